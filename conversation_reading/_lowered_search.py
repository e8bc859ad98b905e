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

import importlib
import re
from collections.abc import Iterator
from typing import Any, cast

# the standard library's regex parser and its codes, as ``_gate`` reads them
from conversation_reading._gate import _c as _constants
from conversation_reading._gate import _p as _parser
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


# a negative lookaround of plain characters ("(?<!i’m )", not after an escape); ``_unforeign`` drops it only where
# the parse shows it is one, not the characters of a class
_GUARD = re.compile(r"(?<!\\)\(\?<?!([^()\[\]\\|*+?{}.^$]+)\)")


def _foreign(char: str, flags: int) -> bool:
    """No ASCII character matches ``char`` under ``flags`` (a typographic apostrophe; not the long s or the Kelvin
    sign, which the case-insensitive flag folds to "s" and "k")."""
    return not char.isascii() and not any(re.fullmatch(re.escape(char), chr(c), flags) for c in range(128))


def _shape(items: Any, flags: int, drop: bool) -> Any:
    """A parse tree as plain tuples; ``drop``: less each negative lookaround of literals one of which is foreign."""
    if isinstance(items, _parser.SubPattern):
        items = items.data
        out = []
        for op, av in items:
            if drop and op is _constants.ASSERT_NOT and all(o is _constants.LITERAL for o, _ in av[1].data) \
                    and any(_foreign(chr(c), flags) for _, c in av[1].data):
                continue
            out.append((op, _shape(av, flags, drop)))
        return tuple(out)
    if isinstance(items, list | tuple):
        return tuple(_shape(x, flags, drop) for x in items)
    return items


def _unforeign(source: str, flags: int) -> str:
    """``source`` less its negative lookarounds of foreign characters (``_foreign``): over an ASCII text such a
    lookaround always holds, so where the text is ASCII (the only text a twin reads) the rest matches where the
    whole does, at the same places. ``source`` itself where its parse is not the rest's with them dropped."""
    rest = _GUARD.sub(lambda m: "" if any(_foreign(c, flags) for c in m.group(1)) else m.group(0), source)
    if rest == source:
        return source
    try:
        same = _shape(_parser.parse(source, flags), flags, True) == _shape(_parser.parse(rest, flags), flags, False)
    except re.error:
        same = False
    return rest if same else source


_compiler: Any = importlib.import_module("re._compiler")
_sre: Any = importlib.import_module("_sre")


def _boundary_behind(items: list) -> list | None:
    """``items``, a parse's sequence after a leading word boundary, with the boundary said after the run of ASCII word
    literals it begins with: ``\\bok`` as ``ok(?<!\\wok)`` (a group's first item likewise). None where it begins
    with anything else: a branch or a class would lead by a set of characters, and the engine then tries every place
    one of them stands, in a word too, where the boundary failed at once (measured: several times slower)."""
    if not items:
        return None
    op, av = items[0]
    if op is _constants.SUBPATTERN:
        inner = _boundary_behind(list(av[3].data))
        return None if inner is None else [
            (op, (av[0], av[1], av[2], _parser.SubPattern(av[3].state, inner))), *items[1:]]
    run = 0
    while run < len(items) and items[run][0] is _constants.LITERAL and items[run][1] < 128 and (
            chr(items[run][1]).isalnum() or items[run][1] == ord("_")):
        run += 1
    if run == 0:
        return None
    behind = _parser.SubPattern(_parser.State(), [(_constants.IN, [(_constants.CATEGORY, _constants.CATEGORY_WORD)]),
                                                  *items[:run]])
    return [*items[:run], (_constants.ASSERT_NOT, (-1, behind)), *items[run:]]


def _parsed(source: str, flags: int) -> Any:
    """``source``'s parse, or None where the parser refuses it (no rewrite of it is tried: each would parse it)."""
    try:
        return _parser.parse(source, flags)
    except (re.error, RecursionError):
        return None


def _led_by_its_literal(source: str, flags: int, parsed: Any = None) -> re.Pattern[str] | None:
    """``source``, which begins with a word boundary before literal word characters, compiled with the boundary
    after them (``_boundary_behind``), or None. A boundary before a word character holds where the character before
    it is none (or there is none): the lookbehind says that of the character before the run, over the same string
    (the engine reads both from the string's start, whatever ``pos``). The same matches at the same places and
    groups; but the pattern now begins with its literal, which the engine finds by a plain scan, where a leading
    boundary left it no prefix and it tried the whole pattern at every place (#47: about ten times faster on a
    sentence; 18K instructions a trajectory). The code is compiled from the parse (``parsed``: ``source``'s, left
    as it is), as ``re.compile`` does (its ``pattern`` is then None)."""
    if not source.startswith("\\b"):
        return None
    try:
        parsed = _parser.parse(source, flags) if parsed is None else parsed
        items = list(parsed.data)
        moved = _boundary_behind(items[1:]) if items[:1] == [(_constants.AT, _constants.AT_BOUNDARY)] else None
        if moved is None:
            return None
        return cast(re.Pattern[str], _compiler.compile(_parser.SubPattern(parsed.state, moved), flags))
    except (re.error, RecursionError):
        return None


def _boundary_factored(source: str, flags: int, parsed: Any = None) -> re.Pattern[str] | None:
    """``source``, a branch two or more of whose neighbouring alternatives begin with a word boundary, compiled with
    that boundary said once before them (``(?:\\ba)|(?:\\bb)|c`` as ``\\b(?:a|b)|c``), or None. At each place the
    engine tried the boundary once for every such alternative, and the alternatives in turn; now once, then the same
    alternatives in the same order where it holds: the same matches at the same places and groups (the catalog's
    patterns join many alternatives, each led by a boundary: ``payment_use``'s scan of a message took about half the
    instructions). The code is compiled from the parse (``parsed``: ``source``'s, left as it is), as ``re.compile``
    does (its ``pattern`` is then None)."""
    if source.count("\\b") < 2:
        return None
    try:
        parsed = _parser.parse(source, flags) if parsed is None else parsed
        items = list(parsed.data)
        if len(items) != 1 or items[0][0] is not _constants.BRANCH:
            return None
        alternatives = items[0][1][1]
        out: list[Any] = []
        run: list[Any] = []  # the alternatives led by a boundary, in a row

        def close() -> None:
            if len(run) > 1:
                led = [_parser.SubPattern(a.state, a.data[1:]) for a in run]
                out.append(_parser.SubPattern(parsed.state, [
                    (_constants.AT, _constants.AT_BOUNDARY),
                    (_constants.SUBPATTERN, (None, 0, 0, _parser.SubPattern(parsed.state, [
                        (_constants.BRANCH, (None, led))])))]))
            else:
                out.extend(run)
            run.clear()

        for a in alternatives:
            if a.data[:1] == [(_constants.AT, _constants.AT_BOUNDARY)]:
                run.append(a)
            else:
                close()
                out.append(a)
        close()
        if len(out) == len(alternatives):
            return None
        factored = _parser.SubPattern(parsed.state, [(_constants.BRANCH, (None, out))])
        return cast(re.Pattern[str], _compiler.compile(factored, flags))
    except (re.error, RecursionError):
        return None


def _from_parse(source: str, parsed: Any, flags: int) -> re.Pattern[str]:
    """``re.compile(source, flags)`` from ``parsed``, its parse under ``flags``: what ``re._compiler.compile`` does after
    its own parse (a second parse of a twin whose rewrites did not apply cost as much as its code, once a process)."""
    code = _compiler._code(parsed, flags)
    state = parsed.state
    indexgroup: list[str | None] = [None] * state.groups
    for name, i in state.groupdict.items():
        indexgroup[i] = name
    return cast(re.Pattern[str], _sre.compile(source, flags | state.flags, code, state.groups - 1, state.groupdict,
                                              tuple(indexgroup)))


def twin(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """The case-sensitive pattern that matches the lowercase of an ASCII text where ``pattern`` matches the text,
    at the same places (None: ``pattern`` has none, and is searched as it is). A negative lookaround of characters
    no ASCII one matches is dropped first (``_unforeign``): the twin reads ASCII text only."""
    held = _TWINS.get(id(pattern))
    if held is not None and held[0] is pattern:
        return held[1]
    source = pattern.pattern
    if isinstance(source, str) and not source.isascii():
        source = _unforeign(source, pattern.flags)
    found = None
    if pattern.flags & re.IGNORECASE and isinstance(source, str) and source.isascii() and not _UNSAFE.search(source):
        lowered = source.lower()
        flags: int = pattern.flags & ~re.IGNORECASE
        # under re.ASCII where it holds no \s (\S is refused above): over an ASCII text, all a twin reads, \w, \d
        # and \b mean what they mean under Unicode, and the engine tests a word character by a table, not by
        # Unicode's lookups (about 1% of the record, #47); \s does not (Unicode's spaces include 0x1c-0x1f). Read
        # from the source's text, not its parse (a parse a twin costs more than the flag saves in a short rescore):
        # the two characters anywhere, an escaped backslash's "s" too, keep Unicode.
        if "\\s" not in lowered:
            flags = flags & ~re.UNICODE | re.ASCII
        # as a plain int: a ``re.RegexFlag`` reaches the parser and compiler below as it is (``re.compile`` turns it
        # into its value first), and each of their many flag tests then runs ``enum``'s ``&`` in Python (2,200 of
        # them in a cold rescore of the benchmark's file, #47); the same bits, the same patterns
        flags = int(flags)
        # one parse for both rewrites (a parse is most of a compile: once a process, #47), kept for ``twin_parse``
        parsed = _parsed(lowered, flags) if lowered.startswith("\\b") or lowered.count("\\b") >= 2 else None
        if parsed is not None:
            found = _led_by_its_literal(lowered, flags, parsed) or _boundary_factored(lowered, flags, parsed)
        if found is None and parsed is not None:
            found = _from_parse(lowered, parsed, flags)
            _PARSES[id(found)] = (found, parsed)
        elif found is None:
            found = re.compile(lowered, flags)
    _TWINS[id(pattern)] = (pattern, found)
    return found


# a twin compiled from its source by its parse (``twin`` made it for the rewrites), by the twin's identity (an entry
# keeps its twin, so its id is not reused while it is held; the program's own patterns)
_PARSES: dict[int, tuple[re.Pattern[str], Any]] = {}


def twin_parse(found: re.Pattern[str]) -> Any:
    """The parse of a twin compiled from its source (``found.pattern``): the one ``twin`` made, else made now. (A
    parse of a twin's source under the twin's own flags: the flags a compile adds, ``re.UNICODE`` or ``re.ASCII``,
    change no item of it.)"""
    held = _PARSES.get(id(found))
    return held[1] if held is not None and held[0] is found else _parser.parse(found.pattern, found.flags)


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


__all__ = ["ascii_lowered", "matches", "says", "scans", "searched", "twin", "twin_parse"]
