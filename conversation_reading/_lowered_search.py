"""A case-insensitive pattern searched as its lowercase twin over the lowercase of an ASCII text: the same answer,
several times faster (the regex engine folds the case of each character it tries under ``re.IGNORECASE``; a
case-sensitive pattern over text already lowered does not, and finds its literal prefixes by a plain scan).

Over ASCII text, ``str.lower`` maps A-Z to a-z and nothing else, so the lowercase keeps every position, every
word character and every space, and an ASCII letter of a case-insensitive pattern matches a character exactly when
its lowercase is the letter's lowercase. The twin is the pattern's source lowered, compiled without
``re.IGNORECASE``; it is made only from a source whose lowercase means the same pattern: ASCII (no literal whose
lowercase is longer or folds otherwise), no escape of a capital letter (``\\W``, ``\\B``, ``\\S``, ``\\D``,
``\\A``, ``\\Z``: a different class once lowered), no character by its code (``\\x41``, ``\\u0041``, ``\\101``: a
capital the lowered source still names) or back reference, no range of a class with a capital at one end only
(``[A-z]`` lowered is ``[a-z]``, without ``_``), no inline flag (``(?-i:...)``). Any other pattern, and any text
outside ASCII, is searched as it is."""

from __future__ import annotations

import re
from collections.abc import Iterator

from conversation_reading._gate import may_match

# what makes a source's lowercase another pattern: an escape of a capital, a capital by its code (an octal code or
# a back reference, whatever it names), an inline flag (a group's ``(?:``, lookaround and ``(?P<name>`` are none),
# a range with a capital at one end only (a hyphen beside a capital outside a class is refused too: no twin is
# only slower)
_UNSAFE = re.compile(r"\\[A-Z0-9]|\\(?:x|u00)(?:4[1-9a-fA-F]|5[0-9aA])|\(\?(?![:=!]|<[=!]|P<)"
                     r"|[A-Z]-(?![A-Z])|(?<![A-Z])-[A-Z]")

# the twins by the pattern's identity (a compiled pattern's hash walks its code: ``_gate``); an entry keeps its
# pattern, so its id is not reused while it is held
_TWINS: dict[int, tuple[re.Pattern[str], re.Pattern[str] | None]] = {}


def twin(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """The case-sensitive pattern that matches the lowercase of an ASCII text where ``pattern`` matches the text,
    at the same places (None: ``pattern`` has none, and is searched as it is)."""
    held = _TWINS.get(id(pattern))
    if held is not None and held[0] is pattern:
        return held[1]
    source = pattern.pattern
    found = None
    if pattern.flags & re.IGNORECASE and isinstance(source, str) and source.isascii() and not _UNSAFE.search(source):
        found = re.compile(source.lower(), pattern.flags & ~re.IGNORECASE)
    _TWINS[id(pattern)] = (pattern, found)
    return found


def says(pattern: re.Pattern[str], text: str, lowered: str | None) -> bool:
    """``pattern.search(text) is not None``; ``lowered``: the lowercase of ``text`` where ``text`` is ASCII, else
    None (the text is searched as it is)."""
    if lowered is not None:
        held = _TWINS.get(id(pattern))
        found = held[1] if held is not None and held[0] is pattern else twin(pattern)
        if found is not None:
            return found.search(lowered) is not None
    return pattern.search(text) is not None


def matches(pattern: re.Pattern[str], text: str, lowered: str | None) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text)``'s matches, at the same places (their text lowered where the twin found them);
    ``lowered`` as ``says`` takes it."""
    found = twin(pattern) if lowered is not None else None
    return pattern.finditer(text) if found is None else found.finditer(lowered)  # type: ignore[arg-type]


def scans(pattern: re.Pattern[str], sentence: str, low: str | None) -> bool:
    """``says``; of an ASCII sentence (``low``: its lowercase), the pattern's gate (``_gate``) first:
    a sentence is checked against many patterns, most of whose words it lacks (a substring test each, not a scan)."""
    return (low is None or may_match(pattern, low, True)) and says(pattern, sentence, low)


def searched(pattern: re.Pattern[str], sentence: str, low: str | None) -> re.Match[str] | None:
    """``pattern.search(sentence)``: None without a scan where the gate rules it out over ``low`` (as ``scans``)."""
    return None if low is not None and not may_match(pattern, low, True) else pattern.search(sentence)


def ascii_lowered(text: str) -> str | None:
    """The lowercase ``says`` takes: of an ASCII text, else None."""
    return text.lower() if text.isascii() else None


__all__ = ["ascii_lowered", "matches", "says", "scans", "searched", "twin"]
