"""A pattern's matches found from the places its leading words stand (#47).

A twin (``_lowered_search``) led by a word boundary before a branch of alternatives ("\\b(?:yes|yeah|ok(?:ay)?|...)")
has no literal prefix the regex engine could skip to, so ``finditer`` starts a match at every position of the text.
Where every alternative opens with a literal word (after zero-width assertions only), a match can only start where
one of those words stands: one DFA pass (``_gate._finder``) over the ASCII lowercase finds those places, and the twin
is matched at each, left to right, past the end of the last match: ``finditer``'s leftmost, non-overlapping
matches, the same spans and groups (a match at a position reads the text before it, as the scan's boundary and
lookbehinds do). A pattern of any other shape, and any text outside ASCII, is read as ``matches`` reads it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from conversation_reading._gate import _c as _constants
from conversation_reading._gate import _finder, gateable, may_match
from conversation_reading._lowered_search import matches, twin, twin_parse

_ZERO_WIDTH = (_constants.AT, _constants.ASSERT, _constants.ASSERT_NOT)

# by the pattern's identity: (the pattern, its twin, the finder of the twin's leading words; None: read by ``matches``).
# An entry keeps its pattern, so its id is not reused while it is held (the program's own patterns, not texts)
_LED: dict[int, tuple[re.Pattern[str], re.Pattern[str] | None, Callable[..., list[tuple[int, int, int]]] | None]] = {}


def leads(items: Any) -> set[str] | None:
    """The literal words every match of a parse (``items``) opens with, past zero-width assertions; None where one
    alternative opens otherwise (a class, a repeat, a group with flags), or with a word outside ASCII."""
    prefix: list[str] = []
    for op, av in items:
        if op in _ZERO_WIDTH:
            if prefix:
                break  # the words so far stand at the match's start
            continue
        if op is _constants.LITERAL:
            prefix.append(chr(av))
            continue
        if prefix:
            break
        if op is _constants.BRANCH:
            found: set[str] = set()
            for alternative in av[1]:
                inner = leads(alternative)
                if inner is None:
                    return None
                found |= inner
            return found
        if op is _constants.SUBPATTERN and not av[1] and not av[2]:  # a group, no inline flags
            return leads(av[3])
        return None
    word = "".join(prefix)
    return {word} if word and word.isascii() else None


def _held(pattern: re.Pattern[str]) -> tuple[re.Pattern[str] | None, Callable[..., list[tuple[int, int, int]]] | None]:
    held = _LED.get(id(pattern))
    if held is None or held[0] is not pattern:
        found = twin(pattern)
        # a twin compiled from its parse (``_lowered_search._led_by_its_literal``) has no source, and a literal lead
        words = None if found is None or found.pattern is None else leads(twin_parse(found))
        held = _LED[id(pattern)] = (pattern, found, None if words is None else _finder(sorted(words)))
    return held[1], held[2]


def led_matches(pattern: re.Pattern[str], text: str, lowered: str | None) -> Iterator[re.Match[str]]:
    """``matches(pattern, text, lowered)``: ``pattern.finditer(text)``'s matches at the same places; ``lowered``: the
    lowercase of an ASCII ``text``, else None."""
    if lowered is None:
        return matches(pattern, text, lowered)
    found, find = _held(pattern)
    if found is None or find is None:
        return matches(pattern, text, lowered)
    return iter(_at_leads(found, find, lowered))


def may_lead(pattern: re.Pattern[str], text: str, lowered: str) -> bool:
    """Whether ``pattern`` could match ``text`` (``lowered``: its lowercase): of an ASCII text, whether one of its
    leading words occurs (every match holds one); else, or for a pattern with none, its gate (``_gate.may_match``)."""
    if text.isascii():
        find = _held(pattern)[1]
        if find is not None:
            return bool(find(lowered.encode("ascii")))
    return may_match(pattern, lowered, gateable(text))


def _at_leads(found: re.Pattern[str], find: Callable[..., list[tuple[int, int, int]]], lowered: str
              ) -> list[re.Match[str]]:
    out: list[re.Match[str]] = []
    hits = find(lowered.encode("ascii"), overlapping=True)
    if not hits:
        return out  # no leading word: no match (most texts)
    end = 0
    for at in sorted({start for _i, start, _end in hits}):  # by start: the DFA reports them by their end
        if at >= end:
            m = found.match(lowered, at)
            if m is not None:
                out.append(m)
                end = m.end()  # never ``at``: every match holds its leading word
    return out


def led_search(pattern: re.Pattern[str], text: str, lowered: str | None) -> bool:
    """``pattern.search(text) is not None`` (``lowered`` as ``led_matches`` takes it): of an ASCII text, the twin tried
    at the places its leading words stand, up to the first that matches (not a scan from every position)."""
    found, find = _held(pattern) if lowered is not None else (None, None)
    if lowered is None or found is None or find is None:
        return next(matches(pattern, text, lowered), None) is not None
    hits = find(lowered.encode("ascii"), overlapping=True)
    if hits:
        match = found.match
        for at in sorted({start for _i, start, _end in hits}):
            if match(lowered, at) is not None:
                return True
    return False


__all__ = ["leads", "led_matches", "led_search", "may_lead"]
