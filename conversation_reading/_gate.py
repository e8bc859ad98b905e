"""What a pattern cannot match without: the literal words it needs, read from the pattern itself.

Most of a conversation's text holds none of a claim kind's or a clause's words, and a regex scan of every
message for every pattern is most of the cost of reading it. ``may_match`` answers, with substring tests, whether
``pattern`` could match a text at all: every literal run the pattern must match (in sequence, in a mandatory group,
or a repeat of at least one) must occur in the text, case folded, and of a branch, what one of its alternatives
needs. It is a necessary condition only, so a reader that skips a text it rules out reads what a full scan
reads; it rules out nothing in a text holding a character that a case-insensitive ASCII letter matches without
being its lowercase (``gateable``).
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from types import CodeType, FunctionType
from typing import Any, cast

import ahocorasick_rs

from conversation_reading._gate_needs import NEEDS

# the standard library's own regex parser (the project needs Python 3.11, which has it as ``re._parser``)
_p: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")

# What a pattern needs: every requirement must hold. A requirement is a group of words (one of them occurs in
# the text) or the alternatives of a branch (every requirement of one of them holds).
Requirement = frozenset[str] | tuple[list["Requirement"], ...]


_PRODUCT_CAP = 64  # at most this many spellings of one run (a branch of words inside it multiplies them)
_ZERO_WIDTH = ("AT", "ASSERT", "ASSERT_NOT")  # consume nothing: the text on either side is contiguous


def _words_of(alternatives: list) -> list[str] | None:
    """A branch's alternatives as the texts they match, where each is ASCII literals only (else None)."""
    words = []
    for alternative in alternatives:
        word = ""
        for op, av in alternative:
            if op is not _c.LITERAL or av >= 128:
                return None
            word += chr(av).lower()
        words.append(word)
    return words


def _flat(items: list) -> list:
    """``items`` with each group's contents in its place (a group matches its contents, contiguous with what is
    around it)."""
    out = []
    for op, av in items:
        if op is _c.SUBPATTERN:
            out += _flat(list(av[-1]))
        else:
            out.append((op, av))
    return out


def _group(words: set[str] | frozenset[str]) -> frozenset[str]:
    """A group of words (one of them occurs) less each word that holds another of them: where it occurs the other
    does ("baggage", "bag"; "impossible", "possible"), so the group holds where it held, with fewer tests."""
    return frozenset(w for w in words if not any(v != w and v in w for v in words))


def _requirements(items: list) -> list[Requirement]:
    """The requirements of a sequence of parsed items (ASCII literals only, lowercased). A run of literals, with
    the branches of plain words inside it, is one requirement: one of its spellings (``"the " (user|customer)``:
    "the user" or "the customer") occurs whole."""
    out: list[Requirement] = []
    runs = {""}  # the spellings of the run so far
    # the run's spellings from the literals before its last branch on, where another branch comes before them
    # ("(tell|ask) the (user|customer)": " the user", " the customer"): implied by the run, and fewer words
    tails: set[str] | None = None
    since = ""  # the literals since the run's last branch (or its start)
    branched = False

    def flush() -> None:
        nonlocal runs, tails, since, branched
        if tails is not None and len(tails) < len(runs) and all(len(t) >= 2 for t in tails):
            out.append(_group(tails))
        if all(len(r) >= 2 for r in runs):
            out.append(_group(runs))
        runs, tails, since, branched = {""}, None, "", False

    for op, av in _flat(items):
        if op is _c.LITERAL and av < 128:
            runs = {r + chr(av).lower() for r in runs}
            since += chr(av).lower()
            tails = None if tails is None else {t + chr(av).lower() for t in tails}
            continue
        if str(op) in _ZERO_WIDTH:
            continue
        if op is _c.BRANCH and (words := _words_of(av[1])) is not None and len(runs) * len(words) <= _PRODUCT_CAP:
            if runs != {""} and all(len(r) >= 2 for r in runs):
                out.append(_group(runs))  # implied by what follows, and fewer words: a text lacking it fails fast
            runs = {r + w for r in runs for w in words}
            tails = {since + w for w in words} if branched else None
            since, branched = "", True
            continue
        flush()
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)) and av[0] >= 1:
            out += _requirements(list(av[2]))
        elif op is _c.BRANCH:
            alternatives = [_requirements(list(alternative)) for alternative in av[1]]
            if not all(alternatives):
                continue  # an alternative that needs nothing: the branch needs nothing
            groups = [a[0] for a in alternatives if len(a) == 1 and isinstance(a[0], frozenset)]
            merged = _group({w for group in groups for w in group})  # one word of any of these alternatives
            if len(groups) == len(alternatives):
                out.append(merged)
            else:  # those alternatives as one, the first (the same branch: one of them holds)
                first: list[list[Requirement]] = [[merged]] if groups else []
                out.append(tuple(first + [a for a in alternatives
                                          if not (len(a) == 1 and isinstance(a[0], frozenset))]))
    flush()
    # word groups first, the fewest words first: a substring test is cheaper than a branch's alternatives, and
    # most texts fail one (the order of a conjunction: the same answer)
    return sorted(out, key=lambda r: (isinstance(r, tuple), len(r)))


class Needs(tuple):
    """A pattern's requirements (``needs``), with ``check``: the same test as ``holds``, compiled into one
    function of substring tests (``"word" in s or ...``), which runs several times faster than walking them."""

    check: Callable[[str], bool]


_SCANNED = 56  # a group of at least this many words is tested by one Aho-Corasick scan, not a substring test each
# (on the shared runs, below this many words the substring tests cost fewer instructions than the scan: #47)


def _words_in(requirement: Requirement) -> frozenset[str]:
    """Words one of which occurs wherever ``requirement`` holds: a group's own, and of a branch, one requirement of
    each alternative, the rarest (``rarity``)."""
    if isinstance(requirement, frozenset):
        return requirement
    return frozenset(w for alternative in requirement for w in _words_in(max(alternative, key=rarity)))


def rarity(requirement: Requirement) -> tuple[int, int]:
    """``max``'s key to the rarest requirement: its shortest word the longest, then the fewest words."""
    return min(map(len, _words_in(requirement))), -len(requirement)


# Every node's place in the source the compiler asks for, given as it is built: ``ast.fix_missing_locations``
# walks the whole tree after, in Python (about half of compiling a gate, #47: one-time cost of a rescore).
_AT: dict[str, Any] = {"lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 0}


def _scan(words: frozenset[str], scans: dict[str, Any]) -> ast.expr:
    """A test over ``s`` that is true where one of ``words`` occurs in ``s``: one DFA pass over its UTF-8 bytes
    (``word_bits``; a substring test each costs a pass each), bound in ``scans`` under the name it reads."""
    name = f"_a{len(scans)}"
    scans[name] = _finder(words)
    encoded = ast.Call(ast.Attribute(_S(), "encode", ast.Load(), **_AT),
                       [ast.Constant("utf-8", **_AT), ast.Constant("surrogatepass", **_AT)], [], **_AT)
    found = ast.Call(ast.Name(name, ast.Load(), **_AT), [encoded], [], **_AT)
    return ast.Compare(found, [ast.NotEq()], [ast.List([], ast.Load(), **_AT)], **_AT)


def _S() -> ast.Name:  # noqa: N802 - the text, as the test's one argument reads it
    return ast.Name("s", ast.Load(), **_AT)


def _any_of(tests: list[ast.expr]) -> ast.expr:
    if not tests:
        return ast.Constant(False, **_AT)  # no word to find: as walking it answers
    return tests[0] if len(tests) == 1 else ast.BoolOp(ast.Or(), tests, **_AT)


def _any_word(words: frozenset[str]) -> ast.expr:
    """A substring test each, ``"word" in s or ...``."""
    return _any_of([ast.Compare(ast.Constant(word, **_AT), [ast.In()], [_S()], **_AT) for word in sorted(words)])


def _all_of(tests: list[ast.expr]) -> ast.expr:
    return tests[0] if len(tests) == 1 else ast.BoolOp(ast.And(), tests, **_AT)


def _expression(requirements: Sequence[Requirement], scans: dict[str, Any]) -> ast.expr:
    """``requirements`` as one test over the lowered text ``s``, a syntax tree of string constants, ``in``, ``and``
    and ``or``: each large group (or the words of a large branch, a test that must pass before its alternatives are
    tried) one scan (``_scan``, its automaton bound in ``scans``); a branch whose words, less those that hold
    another, are fewer than its alternatives, a substring test each first ("the user", "the customer")."""
    parts: list[ast.expr] = []
    for r in requirements:
        if isinstance(r, frozenset):
            if len(r) >= _SCANNED:
                parts.append(_scan(r, scans))
            else:
                parts.append(_any_word(r))
        else:
            branch = _any_of([_expression(alternative, scans) for alternative in r])
            words = _group(_words_in(r))  # one of them occurs wherever an alternative holds
            if len(words) >= _SCANNED:
                parts.append(_all_of([_scan(words, scans), branch]))
            elif len(words) < len(r):  # fewer tests than the alternatives' first ones: most texts fail them
                parts.append(_all_of([_any_word(words), branch]))
            else:
                parts.append(branch)
    return _all_of(parts) if parts else ast.Constant(True, **_AT)


def _compiled(test: ast.expr, scans: dict[str, Any]) -> Callable[[str], bool]:
    """The function ``lambda s: <test>``, compiled from the tree ``_expression`` built (no text is evaluated: the
    tree holds the words as constants), reading nothing but ``next`` and the scans' automata."""
    tree = ast.Expression(ast.Lambda(ast.arguments(posonlyargs=[], args=[ast.arg("s", **_AT)], kwonlyargs=[],
                                                   kw_defaults=[], defaults=[]), test, **_AT))
    code = next(c for c in compile(tree, "<gate>", "eval").co_consts if isinstance(c, CodeType))
    return cast(Callable[[str], bool], FunctionType(code, {"__builtins__": {"next": next}, **scans}))


# ``needs`` and ``holds_any`` by the patterns' identity: a compiled pattern's hash walks its whole compiled code
# each time (~3 us for the catalog's largest), more than the gate it looks up. An entry keeps its patterns, so
# their ids are not reused while it is held; the lookups behind are by equality.
_BY_ID: dict[int, tuple[re.Pattern[str], Needs]] = {}
_ANY_BY_IDS: dict[tuple[int, ...], tuple[tuple[re.Pattern[str], ...], Callable[[str], bool]]] = {}


def needs(pattern: re.Pattern[str]) -> Needs:
    """What ``pattern`` needs (a compiled catalog pattern: the cache holds patterns, never texts)."""
    held = _BY_ID.get(id(pattern))
    if held is not None and held[0] is pattern:
        return held[1]
    found = _needs(pattern)
    _BY_ID[id(pattern)] = (pattern, found)
    return found


@cache
def _needs(pattern: re.Pattern[str]) -> Needs:
    tabulated = NEEDS.get((pattern.pattern, pattern.flags))  # the program's own patterns: read ahead (``_gate_tabulate``)
    if tabulated is not None:
        found = Needs(tabulated[0])
        if tabulated[1] is not None:
            found.check = tabulated[1]
            return found
    else:
        try:
            found = Needs(_requirements(list(_p.parse(pattern.pattern, pattern.flags))))
        except Exception:  # noqa: BLE001 - a pattern the parser cannot take apart: no gate, always scan
            found = Needs()
    try:  # the tree holds only string constants, ``in``, ``and``, ``or`` and the scans
        scans: dict[str, Any] = {}
        found.check = _compiled(_expression(found, scans), scans)
    except (SyntaxError, RecursionError, MemoryError):  # nested past what the compiler takes: walk it
        found.check = lambda s: walked(found, s)
    return found


# ``holds_any`` by the tuple's own identity: most readers pass one tuple held for good (a module's constant), and
# this lookup builds no key and compares no pattern. Bounded: a reader may pass a new tuple each call.
_ANY_BY_TUPLE: dict[int, tuple[tuple[re.Pattern[str], ...], Callable[[str], bool]]] = {}
_ANY_BY_TUPLE_MAX = 256


def holds_any(patterns: tuple[re.Pattern[str], ...]) -> Callable[[str], bool]:
    """Whether one of ``patterns`` could match a lowered text: ``any(holds(needs(p), s) for p in patterns)``, compiled
    into one expression (a reader that gates a message on a claim kind's patterns calls it once, not once each)."""
    held_tuple = _ANY_BY_TUPLE.get(id(patterns))
    if held_tuple is not None and held_tuple[0] is patterns:
        return held_tuple[1]
    key = tuple(map(id, patterns))
    held = _ANY_BY_IDS.get(key)
    if held is not None and all(a is b for a, b in zip(held[0], patterns, strict=True)):
        found = held[1]
    else:
        found = _holds_any(patterns)
        _ANY_BY_IDS[key] = (patterns, found)
    if len(_ANY_BY_TUPLE) >= _ANY_BY_TUPLE_MAX:
        _ANY_BY_TUPLE.clear()
    _ANY_BY_TUPLE[id(patterns)] = (patterns, found)
    return found


@cache
def _holds_any(patterns: tuple[re.Pattern[str], ...]) -> Callable[[str], bool]:
    required = [needs(p) for p in patterns]
    try:  # as ``needs``; a word group every pattern needs is tested once, first (A and B or A and C: A and (B or C))
        scans: dict[str, Any] = {}
        common = [r for r in required[0] if isinstance(r, frozenset) and all(r in q for q in required)] if required else []
        rest = _any_of([_expression([r for r in q if r not in common], scans) for q in required])
        return _compiled(_all_of([*(_expression([g], scans) for g in common), rest]), scans)
    except (SyntaxError, RecursionError, MemoryError):
        return lambda s: any(holds(r, s) for r in required)


def _finder(words: Iterable[str]) -> Callable[..., list[tuple[int, int, int]]]:
    """The matches (word's index, start, end) of ``words`` in a text's UTF-8 bytes (``encode("utf-8", "surrogatepass")``),
    by one DFA pass: a word occurs where its bytes do (UTF-8 is self-synchronising)."""
    return ahocorasick_rs.BytesAhoCorasick([w.encode("utf-8", "surrogatepass") for w in words],
                                           implementation=ahocorasick_rs.Implementation.DFA).find_matches_as_indexes


def word_bits(bits: dict[str, int], always: int) -> Callable[[str], int]:
    """``always`` with the bits of each word of ``bits`` in a text: one DFA pass over its UTF-8 bytes (#47: a third of
    pyahocorasick's; ASCII by ``encode()``, parsing no arguments). A word occurs where its bytes do (``surrogatepass``)."""
    if not bits:
        return lambda s: always
    values = list(bits.values())
    find = _finder(bits)

    def scanned(s: str) -> int:
        found = always
        for i, _start, _end in find(s.encode() if s.isascii() else s.encode("utf-8", "surrogatepass"), True):  # overlapping
            found |= values[i]
        return found

    return scanned


def scanned_each(patterns: tuple[re.Pattern[str], ...]) -> Callable[[str], int]:
    """Which of ``patterns`` could match a lowered text (a looser necessary condition than each one's gate, for a reader
    that tests the gate after): bit ``i`` where a word of pattern ``i``'s rarest requirement occurs (``word_bits``)."""
    bits: dict[str, int] = {}
    always = 0  # the patterns that need nothing: every text may match them
    for i, p in enumerate(patterns):
        rarest = max(needs(p), key=rarity, default=None)
        if rarest is None:
            always |= 1 << i
        for word in () if rarest is None else _words_in(rarest):
            bits[word] = bits.get(word, 0) | 1 << i
    return word_bits(bits, always)


def holds(requirements: Sequence[Requirement], lowered: str) -> bool:
    """Whether the text whose lowercase is ``lowered`` has what ``requirements`` (``needs``) asks for: a pattern's
    ``needs`` by its compiled ``check``, any other by walking it (the reference the check is tested against)."""
    if isinstance(requirements, Needs):
        return requirements.check(lowered)
    return walked(requirements, lowered)


def walked(requirements: Sequence[Requirement], lowered: str) -> bool:
    """``holds`` by walking the requirements. (A branch's alternatives are tested in place, not by a call each.)"""
    for r in requirements:
        if isinstance(r, frozenset):
            for word in r:
                if word in lowered:
                    break
            else:
                return False
            continue
        for alternative in r:
            for g in alternative:
                if isinstance(g, frozenset):
                    for word in g:
                        if word in lowered:
                            break
                    else:
                        break  # this alternative lacks a word
                elif not walked((g,), lowered):
                    break
            else:
                break  # this alternative has all it needs
        else:
            return False
    return True


# The capital I with a dot: ``re`` lowercases it to "i" (its simple mapping), ``str.lower`` to "i" and a combining
# dot (its full mapping), so the lowered text no longer holds the word the pattern matches ("İs" -> "i̇s").
_LOWERED_APART = "\u0130"


def _folding_to_ascii() -> frozenset[str]:
    """The characters outside ASCII that a case-insensitive pattern's ASCII letter matches although their lowercase
    is not that letter (dotless i, long s, dotted capital I): a text holding one is not gated."""
    try:
        from re._casefix import _EXTRA_CASES  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - Python < 3.11
        return frozenset("\u0131\u017f" + _LOWERED_APART)
    return frozenset(chr(c) for k, v in _EXTRA_CASES.items() if k < 128 for c in v if c >= 128) | {_LOWERED_APART}


_FOLDING = _folding_to_ascii()


def gateable(text: str) -> bool:
    """Whether ``may_match`` may rule a pattern out on ``text``: an ASCII letter of a pattern then matches
    exactly the characters whose lowercase is that letter (a text outside ASCII keeps its other characters,
    which no ASCII literal matches)."""
    return text.isascii() or not any(c in text for c in _FOLDING)


def may_match(pattern: re.Pattern[str], lowered: str, gated: bool) -> bool:
    """Whether ``pattern`` could match the text whose lowercase is ``lowered`` (``gated``: ``gateable(text)``)."""
    if not gated:
        return True
    held = _BY_ID.get(id(pattern))  # ``holds(needs(pattern), lowered)`` without its two calls: readers ask it most
    return (held[1] if held is not None and held[0] is pattern else needs(pattern)).check(lowered)


__all__ = ["gateable", "holds", "holds_any", "may_match", "needs", "rarity", "scanned_each", "walked", "word_bits"]
