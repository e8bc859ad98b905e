"""A gate for a pattern searched paragraph by paragraph (``_normalise.speech``'s aside): ``may_match``'s words, and of an
alternative anchored at its text's start (``^\\s*(?:okay|ok|...)``: self-talk opening a paragraph), that a line of the
lowered text opens, after blanks, with one of the words it opens with.

A paragraph (``_normalise._PARAGRAPH``) begins at its text's start or after a newline, so a match of such an alternative
in a paragraph is a line of the whole text that opens so as well: the gate holds on a message wherever it holds on one
of its paragraphs. ``may_match`` alone reads the anchored alternative as its words anywhere ("ok" in "book", "so" in
"also"): it let 30 of 333 agent messages of the benchmark file through to the paragraph scans, this gate 3 (#47)."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from typing import Any

from conversation_reading._gate import (
    Requirement,
    _c,
    _compiled,
    _expression,
    _flat,
    _p,
    _requirements,
    may_match,
)

_ANCHORS = (_c.AT_BEGINNING, _c.AT_BEGINNING_STRING)
_AT = {"lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 0}


def _blanks(items: list) -> bool:
    """Whether the parsed ``items`` match one blank only: ``\\s`` (``Py_UNICODE_ISSPACE``, as ``str.lstrip``) or a
    class or literal of blanks ("[ \\t]")."""
    if len(items) != 1:
        return False
    op, av = items[0]
    if op is _c.LITERAL:
        return chr(av).isspace()
    return op is _c.IN and all(o is _c.CATEGORY and a is _c.CATEGORY_SPACE or o is _c.LITERAL and chr(a).isspace()
                               for o, a in av)


def _opening(items: list) -> tuple[str, ...] | None:
    """The lowered words a match of the parsed alternative ``items`` opens with after an anchor and blanks (``^``,
    ``\\s*``), or None where it is not so anchored or one of its openings is no ASCII literal."""
    items = _flat(items)
    if not items or items[0][0] is not _c.AT or items[0][1] not in _ANCHORS:
        return None
    rest = items[1:]
    if rest and rest[0][0] in (_c.MAX_REPEAT, _c.MIN_REPEAT) and _blanks(list(rest[0][1][2])):
        rest = rest[1:]  # blanks, which ``str.lstrip`` strips
    branches = [list(a) for a in rest[0][1][1]] if rest and rest[0][0] is _c.BRANCH else [rest]
    words = []
    for branch in branches:
        word = ""
        for op, av in _flat(branch):
            if op is not _c.LITERAL or av >= 128:
                break
            word += chr(av).lower()
        if not word or word[0].isspace():  # nothing to test, or a blank ``lstrip`` would strip
            return None
        words.append(word)
    return tuple(sorted(words))


def _implied_dropped(requirements: list[Requirement]) -> list[Requirement]:
    """``requirements`` less each group another implies (every word of the other holds one of its words: "the " of
    "the user", "the customer"): a test that most texts pass, repeated."""
    groups = [r for r in requirements if isinstance(r, frozenset)]
    return [r for r in requirements if not (isinstance(r, frozenset) and any(
        g is not r and all(any(w in v for w in r) for v in g) for g in groups))]


def _later_line(words: tuple[str, ...]) -> Callable[[str], re.Match[str] | None]:
    """The search for a line after the first that opens with one of ``words`` after its blanks (``_opens_a_line``)."""
    return re.compile(rf"\n\s*(?:{'|'.join(map(re.escape, words))})").search


def _opens_a_line(words: tuple[str, ...]) -> Callable[[str], bool]:
    """Whether a line of a lowered text (split at "\\n") opens with one of ``words`` after its blanks (``str.lstrip``'s,
    which ``\\s`` matches): the first line by ``str.lstrip`` and ``startswith`` (no word opens with a blank, so no
    shorter run of blanks lets a word match), every other by a search from its "\\n", a plain scan for that character,
    only where the text holds one (#47: a fifth of splitting the text into lines and testing each; most messages are
    one line). ``\\s*`` may run past a "\\n" into the next lines: the word then opens a line whose blanks it passed, as
    the lines' test finds."""
    later = _later_line(words)

    def opens(lowered: str) -> bool:
        return lowered.lstrip().startswith(words) or "\n" in lowered and later(lowered) is not None

    return opens


def anchored(pattern: re.Pattern[str]) -> list[tuple[list[Any], tuple[str, ...] | None]] | None:
    """``pattern``'s top-level alternatives, each with the words one of which opens a line where it is anchored at a
    line's start (``_opening``; None: not anchored); None where the parser cannot take it apart or none is anchored."""
    try:
        items = _flat(list(_p.parse(pattern.pattern, pattern.flags)))
    except Exception:  # noqa: BLE001 - a pattern the parser cannot take apart: ``may_match`` as it is
        return None
    alternatives = [list(a) for a in items[0][1][1]] if len(items) == 1 and items[0][0] is _c.BRANCH else [items]
    openings = [_opening(a) for a in alternatives]
    return None if all(o is None for o in openings) else list(zip(alternatives, openings, strict=True))


def _built(pattern: re.Pattern[str]) -> Callable[[str], bool] | None:
    """The gate's test over a lowered text, or None where no alternative of ``pattern`` is anchored (``may_match``)."""
    found = anchored(pattern)
    if found is None:
        return None
    scans: dict[str, Any] = {}
    tests: list[ast.expr] = []
    for alternative, opening in found:
        test = _expression(_implied_dropped(_requirements(alternative)), scans)
        if opening is not None:  # the lines first: most texts have one or two, and few open with such a word
            name = f"_opens{len(scans)}"
            scans[name] = _opens_a_line(opening)
            opens = ast.Call(ast.Name(name, ast.Load(), **_AT), [ast.Name("s", ast.Load(), **_AT)], [], **_AT)
            test = ast.BoolOp(ast.And(), [opens, test], **_AT)
        tests.append(test)
    return _compiled(tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests, **_AT), scans)


# by the pattern's identity (the catalog's: held for good, never a text), as ``_gate.needs``
_BUILT: dict[int, tuple[re.Pattern[str], Callable[[str], bool] | None]] = {}


def may_match_paragraphs(pattern: re.Pattern[str], lowered: str, gated: bool) -> bool:
    """Whether ``pattern`` could match a paragraph of the text whose lowercase is ``lowered`` (or the text itself, a
    paragraph or one of them: ``gated`` is ``gateable(text)``)."""
    held = _BUILT.get(id(pattern))
    if held is None or held[0] is not pattern:
        held = _BUILT[id(pattern)] = (pattern, _built(pattern))
    test = held[1]
    if test is None:
        return may_match(pattern, lowered, gated)
    return not gated or test(lowered)


__all__ = ["may_match_paragraphs"]
