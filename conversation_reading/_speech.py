"""``_normalise.speech``'s parts: the paragraphs of a reply that are reasoning dropped (``reasoning_dropped``: a
function of its own, so a message the gates rule out makes none of its closure's cells), and one rule-out for both
of its gates (#47): a test over a message's lowercase that fails where
neither the deliberation's gate (``_gate.may_match``) nor the aside's (``_paragraph_gate.may_match_paragraphs``) can
hold, so the two gates are not asked at all (they were, on every agent message with words: 97% hold neither).

Each gate holds only where one of its alternatives' requirements all do, so where that alternative's rarest
requirement (``_gate.rarity``) does: one of its words occurs; an alternative anchored at a line's start (self-talk,
``^\\s*(?:okay|ok|...)``) holds only where a line opens with one of its words (``_paragraph_gate``: "ok" alone is in
"book"). The words of every alternative, less each that holds another ("tell the user" holds "the user"), are one
substring test each; the anchored alternatives' line tests follow. A pattern with an alternative that needs nothing
(or that the parser cannot take apart) has no rule-out: the test passes every text."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from typing import Any

from conversation_reading._gate import (
    Requirement,
    _any_of,
    _any_word,
    _compiled,
    _requirements,
    _words_in,
    holds,
    needs,
    rarity,
)
from conversation_reading._origin import OriginBuilder
from conversation_reading._paragraph_gate import _implied_dropped, _later_line, anchored


def _words(requirements: list[Requirement]) -> frozenset[str] | None:
    """The words of the rarest of ``requirements``, one of which occurs wherever they all hold; None where none is."""
    return _words_in(max(requirements, key=rarity)) if requirements else None


def _parts(pattern: re.Pattern[str], by_lines: bool) -> tuple[set[str], set[tuple[str, ...]]] | None:
    """The words one of which occurs, and the openings of which one opens a line, wherever ``pattern``'s gate holds
    (``by_lines``: the paragraph gate's, which tests the anchored alternatives by their lines); None where nothing
    rules it out."""
    if not by_lines:
        words = _words(list(needs(pattern)))
        return None if words is None else (set(words), set())
    anchors = anchored(pattern)
    if anchors is None:
        return _parts(pattern, False)  # the paragraph gate is ``may_match`` itself
    found: tuple[set[str], set[tuple[str, ...]]] = (set(), set())
    for alternative, opening in anchors:
        if opening is not None:  # its gate: the line test and its requirements; the line test alone is needed
            found[1].add(opening)
            continue
        words = _words(_implied_dropped(_requirements(alternative)))
        if words is None:
            return None
        found[0].update(words)
    return found


def _built(deliberates: re.Pattern[str], aside: re.Pattern[str]) -> Callable[[str], bool] | None:
    parts = [_parts(deliberates, False), _parts(aside, True)]
    if any(p is None for p in parts):
        return None
    words = {w for p in parts if p is not None for w in p[0]}
    words = {w for w in words if not any(v != w and v in w for v in words)}  # a word holding another: implied
    scans: dict[str, Any] = {}
    tests: list[ast.expr] = [_any_word(frozenset(words))] if words else []
    for opening in sorted({o for p in parts if p is not None for o in p[1]}):
        # ``_opens_a_line(opening)(s)`` written out in the test, not called: a frame less on every agent message
        name = f"_later{len(scans)}"
        scans[name] = _later_line(opening)
        tests.append(ast.parse(f"s.lstrip().startswith({opening!r}) or '\\n' in s and {name}(s) is not None",
                               mode="eval").body)
    return _compiled(_any_of(tests), scans)


# by the patterns' identities (the catalog's: held for good, never a text), as ``_paragraph_gate._BUILT``
_BUILT: dict[tuple[int, int], tuple[re.Pattern[str], re.Pattern[str], Callable[[str], bool]]] = {}


def may_reason(deliberates: re.Pattern[str], aside: re.Pattern[str], lowered: str) -> bool:
    """Whether ``may_match(deliberates, ...)`` or ``may_match_paragraphs(aside, ...)`` could hold on the gateable text
    whose lowercase is ``lowered`` (False: neither does)."""
    held = _LAST[0]  # the last pair asked (every caller asks the catalog's one pair): no key built
    if held[0] is not deliberates or held[1] is not aside:
        kept = _BUILT.get((id(deliberates), id(aside)))
        if kept is None or kept[0] is not deliberates or kept[1] is not aside:
            kept = _BUILT[id(deliberates), id(aside)] = (deliberates, aside, _built(deliberates, aside) or _ANY)
        held = _LAST[0] = kept
    return held[2](lowered)


def _ANY(lowered: str) -> bool:  # noqa: N802 - the test of a pair nothing rules out
    return True


_LAST: list[tuple[Any, Any, Callable[[str], bool]]] = [(None, None, _ANY)]


# a run of non-newlines taken whole, not character by character: the same spans, several times faster
_PARAGRAPH = re.compile(r"(?:[^\n]+|\n(?![ \t]*\n))+")


def reasoning_dropped(
    text: str, origin: Sequence[int], plain: bool, deliberates: re.Pattern[str] | None, aside: re.Pattern[str] | None,
    to_the_user: re.Pattern[str],
) -> tuple[str, Sequence[int]]:
    """``speech`` of a text whose gates hold (``plain``: ``gateable(text)``; ``deliberates``, ``aside``: None where
    its gate does not): each paragraph that is reasoning one newline; ``text`` and ``origin`` where none is."""
    blocks = [m.span() for m in _PARAGRAPH.finditer(text)]
    said = [text[a:b] for a, b in blocks]
    low = [b.lower() for b in said] if plain else None  # each gated on its own (a part of a gateable text is)

    def says(pattern: re.Pattern[str], i: int) -> bool:
        return (low is None or holds(needs(pattern), low[i])) and pattern.search(said[i]) is not None

    last = max((i for i in range(len(said)) if deliberates is not None and says(deliberates, i)), default=-1)
    # "you" first: most paragraphs say it, and the aside's scan is the costlier (both are pure: the same answer)
    drop = [i <= last or (aside is not None and not says(to_the_user, i) and says(aside, i)) for i in range(len(said))]
    if not any(drop):
        return text, origin
    out: list[str] = []
    org = OriginBuilder()
    pos = 0
    for (a, b), dropped in zip(blocks, drop, strict=True):
        if not dropped:
            continue
        out.append(text[pos:a] + "\n")
        org.extend(origin, pos, a)
        org.repeat(origin[a], 1)
        pos = b
    out.append(text[pos:])
    org.extend(origin, pos, len(origin))
    return "".join(out), org.build()


__all__ = ["may_reason", "reasoning_dropped"]
