"""Text as people write it, made matchable: the one normalisation step before any pattern of the evidence
machinery sees a message (#36 item 2).

- literal ``\\n``, ``\\t`` and ``\\"`` (content wrapped as JSON, whose escapes never split a sentence) become a
  newline, a space and a quote;
- Unicode NFKC (full-width letters, ligatures, non-breaking and narrow spaces become plain ones);
- hyphens, dashes and the minus sign (U+2010–U+2015, U+2212, U+FE58, U+FE63, U+FF0D) become ``-``; curly
  apostrophes ``'``; zero-width characters go;
- a markdown table's separator row goes, and each row is one sentence whose cells are clauses (``|`` → ``;``);
- markdown emphasis (``**``, ``__``) goes;
- numbered items run together on one line ("1. Cancel … 2. Book …") each start a line: a list item is a
  sentence;
- a model's reasoning is not speech (#40 class 7): reasoning in tags (``<think>…</think>``, ``<reasoning>``,
  ``<analysis>``, …, Kimi's ``◁think▷``, an analysis channel), everything before a closing tag whose opening
  tag the chat template wrote, and the reasoning fields of a reply wrapped as JSON (``"thought": "…"``) go.
  A reply's paragraphs that deliberate about the user in the third person are reasoning too; the words that
  tell are the catalog's, so ``without_reasoning`` takes them as patterns (``_evidence.read_turns`` applies it to
  every agent message, once, for every reader).

Every character of the result keeps the index of the character it came from (``Normalised.origin``), so an
evidence span found in the normalised text points at the original text, which the viewer marks."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from conversation_reading._gate import gateable, may_match
from conversation_reading._origin import Origin, OriginBuilder
from conversation_reading._paragraph_gate import may_match_paragraphs
from conversation_reading._speech import may_reason, reasoning_dropped

_ESCAPES = re.compile(r"\\[nrt\"]")
# Hyphens and dashes, curly apostrophes, invisible characters: each step's pattern is one class of these, so a text
# holding none of them passes the step unchanged (its guard, ``_steps``: most texts outside ASCII hold a curly
# apostrophe, no dash and nothing invisible).
_DASH_CHARS = (*map(chr, range(0x2010, 0x2016)), "\u2212", "\ufe58", "\ufe63", "\uff0d")
_APOSTROPHE_CHARS = ("\u2018", "\u2019", "\u201b", "\u2032")
_INVISIBLE_CHARS = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")
_DASHES = re.compile(f"[{''.join(_DASH_CHARS)}]")
_APOSTROPHES = re.compile(f"[{''.join(_APOSTROPHE_CHARS)}]")
_INVISIBLE = re.compile(f"[{''.join(_INVISIBLE_CHARS)}]")
_TABLE_RULE = re.compile(r"(?m)^[ \t]*\|?(?:[ \t]*:?-{2,}:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$")
_TABLE_ROW = re.compile(r"(?m)^[ \t]*\|.*$")
_EMPHASIS = re.compile(r"\*\*|__")
_INLINE_ITEM = re.compile(r"(?<=[^\d\s])[ \t]+(?=\d{1,2}[.)][ \t]+[A-Z\"'(])")
# what ``_INLINE_ITEM`` cannot match without: its scan tries every position (a lookbehind first), this one is
# a quick scan that most texts fail; each match of ``_INLINE_ITEM`` is the blanks before the digits of a match of
# this one (``_inline_item_at``). It opens with the mark, after a digit (a lookbehind): the scan then stops only at
# a "." or ")", not at every position (``\d[.)]...``, the same matches one character later, was a third slower).
# It is scanned as its two marks' patterns (``_DOT_ITEM``, ``_PAREN_ITEM``): one opening with one character is
# scanned for by a plain loop over the text, one opening with a class of two by a test of the class at every
# character (4 times the instructions).
_INLINE_ITEM_NEEDS = re.compile(r"[.)](?<=\d[.)])[ \t]+[A-Z\"'(]")
_DOT_ITEM = re.compile(r"\.(?<=\d\.)[ \t]+[A-Z\"'(]")
_PAREN_ITEM = re.compile(r"\)(?<=\d\))[ \t]+[A-Z\"'(]")


def _inline_item_at(text: str) -> int | None:
    """Where ``_INLINE_ITEM``'s first match begins, or None where it has none. Its lookahead is a match of
    ``_INLINE_ITEM_NEEDS`` (the digit before the mark, and one more digit before it where there is one); it matches
    the blanks before those digits where a character that is neither a digit nor a space comes before them (``\\d``,
    ``\\s``: any script's, as ``str.isdecimal``, ``str.isspace``). A match of ``_INLINE_ITEM_NEEDS`` (its mark, a
    digit before it) ends in no digit, so its scan finds every one; of two, the earlier one's blanks come first (the
    later one's blanks and digits hold no mark), so the answer is the earlier of each mark's first."""
    # each mark's scan only where the text holds what it matches "[.)][ \t]" in, tested in place (every message asks,
    # and most find no hint: no loop or call for them, #47); the mark alone first: a one-character test is a
    # ``memchr``, a two-character one walks the text (several times the instructions)
    found = None
    if "." in text and (". " in text or ".\t" in text) and (hint := _DOT_ITEM.search(text)) is not None:
        found = _item_from(text, _DOT_ITEM, hint, None)
    if ")" in text and (") " in text or ")\t" in text) and (hint := _PAREN_ITEM.search(text)) is not None:
        found = _item_from(text, _PAREN_ITEM, hint, found)
    return found


def _item_from(text: str, hints: re.Pattern[str], hint: re.Match[str] | None, found: int | None) -> int | None:
    """``_inline_item_at``'s answer from a mark's first hint on: ``found`` (the other mark's, or None) where no
    hint of this mark before it has the blanks that make an item."""
    # a search on from each match's end, as ``finditer`` (none is empty): its iterator cost twice the search (#47)
    while hint is not None:
        if found is not None and hint.start() > found:
            break  # the other mark's answer comes first
        digits = hint.start() - 1  # the digit before the mark
        if digits > 0 and text[digits - 1].isdecimal():
            digits -= 1
        blanks = digits
        while blanks > 0 and text[blanks - 1] in " \t":
            blanks -= 1
        if 0 < blanks < digits and not text[blanks - 1].isdecimal() and not text[blanks - 1].isspace():
            return blanks
        hint = hints.search(text, hint.end())
    return found


# Reasoning as formats write it (names of tags and JSON fields; the words are the catalog's).
_REASONING_TAGS = (r"think|thinking|thoughts?|reasoning|reason|analysis|scratchpad|reflection"
                   r"|inner_monologue|internal_monologue|chain_of_thought")
_TAGGED = re.compile(rf"<\s*({_REASONING_TAGS})\s*>.*?(?:<\s*/\s*\1\s*>|\Z)", re.IGNORECASE | re.DOTALL)
_OPENED_BY_TEMPLATE = re.compile(rf"\A.*?<\s*/\s*(?:{_REASONING_TAGS})\s*>", re.IGNORECASE | re.DOTALL)
_KIMI = re.compile("\u25c1think\u25b7.*?(?:\u25c1/think\u25b7|\\Z)", re.DOTALL)
_CHANNEL = re.compile(r"<\|channel\|>\s*(?:analysis|commentary)\s*<\|message\|>.*?(?=<\|(?:end|start|channel|return)\|>|\Z)",
                      re.DOTALL)
_CHANNEL_TOKENS = re.compile(r"<\|(?:start|end|message|channel|return)\|>(?:\s*(?:assistant|final)\b)?")
_JSON_STRING = r'"(?:[^"\\]|\\.)*"'
_REASONING_FIELD = re.compile(
    rf'"(?:{_REASONING_TAGS}|reasoning_content|rationale)"\s*:\s*'
    rf"(?:{_JSON_STRING}|\[\s*(?:{_JSON_STRING}\s*,?\s*)*\])\s*,?",
    re.IGNORECASE,
)


@dataclass(frozen=True, eq=False)
class Normalised:
    text: str
    # origin[i]: the original index of text[i]; one more entry: the original length. A text no step changed
    # keeps ``range(len + 1)``, a changed one an ``Origin`` (runs): building and copying a list of every index was
    # most of the normalisation's cost.
    origin: Sequence[int]

    def __eq__(self, other: object) -> bool:  # a range and a tuple of the same indices are the same map
        if not isinstance(other, Normalised):
            return NotImplemented
        return self.text == other.text and (self.origin == other.origin or tuple(self.origin) == tuple(other.origin))

    def __hash__(self) -> int:
        return hash((self.text, tuple(self.origin)))

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original (start, end) of ``text[start:end]``."""
        return origin_span(self.origin, start, end)


def origin_span(origin: Sequence[int], start: int, end: int) -> tuple[int, int]:
    """The original (start, end) of ``text[start:end]``, ``origin`` its map (``Normalised.origin``)."""
    if end <= start:
        return origin[start], origin[start]
    return origin[start], origin[end - 1] + 1


def _apply(
    text: str, origin: Sequence[int], pattern: re.Pattern[str], repl: str | Callable[[re.Match[str]], str],
    start: int = 0,
) -> tuple[str, Sequence[int]]:
    """``pattern.sub(repl, text)`` keeping the origin map: a replacement of the same length maps one to one,
    any other maps every new character to the match's first. Nothing replaced by other text: ``text`` and
    ``origin`` themselves; only replacements of the same length: ``origin`` itself (a curly apostrophe made
    straight moves no character). ``start``: where the scan begins (no match begins before it)."""
    if (pattern is _DASHES or pattern is _APOSTROPHES) and start == 0 and isinstance(repl, str):
        # one character (never ``repl`` itself) for another: every match a change of the same length, as ``sub``
        # writes it in one call, and the origin kept
        new = pattern.sub(repl, text)
        return (text, origin) if new == text else (new, origin)
    if repl == "" and isinstance(origin, range) and _RUNS_BY_DELETION:
        return _deleted(text, origin, pattern, start)
    changes: list[tuple[int, int, str]] = []
    same_length = True
    if callable(repl):
        for m in pattern.finditer(text, start):
            new = repl(m)
            a, b = m.span()
            if new != text[a:b]:
                changes.append((a, b, new))
                same_length = same_length and len(new) == b - a
    else:  # one text for every match: a match of another length is a change, no slice compared (emphasis: each)
        size = len(repl)
        for m in pattern.finditer(text, start):
            a, b = m.span()
            if b - a != size:
                changes.append((a, b, repl))
                same_length = False
            elif text[a:b] != repl:
                changes.append((a, b, repl))
    if not changes:
        return text, origin
    out: list[str] = []
    pos = 0
    for a, b, new in changes:
        out += (text[pos:a], new)
        pos = b
    out.append(text[pos:])
    if same_length:
        return "".join(out), origin
    org = OriginBuilder()  # runs, not an integer per character (``_origin``)
    pos = 0
    for a, b, new in changes:
        org.extend(origin, pos, a)
        if len(new) == b - a:
            org.extend(origin, a, b)
        else:
            org.repeat(origin[a], len(new))
        pos = b
    org.extend(origin, pos, len(origin))
    return "".join(out), org.build()


_RUNS_BY_DELETION = True  # ``_deleted`` for a deletion from an unchanged text (the tests turn it off: the reference)


def _deleted(text: str, origin: range, pattern: re.Pattern[str], start: int) -> tuple[str, Sequence[int]]:
    """``_apply`` of a deletion (``repl`` "") to a text no step has changed (``origin`` a range): the kept pieces
    joined, and the origin's runs written directly, one a piece (the emphasis step deletes a dozen marks from most
    messages that hold any, where ``OriginBuilder`` cost a few calls a mark). A piece after a deletion never continues
    the run before it (the deletion's characters lie between), so no run is joined to another."""
    if pattern is _EMPHASIS and start == 0 and ("__" not in text) != ("**" not in text):  # one mark: a plain split
        return _split_out(text, origin, "**" if "__" not in text else "__")
    out: list[str] = []
    at: list[int] = []
    to: list[int] = []
    length = pos = 0
    for m in pattern.finditer(text, start):
        a, b = m.span()
        if a == b:
            continue  # an empty match deletes nothing
        if a > pos:
            out.append(text[pos:a])
            at.append(length)
            to.append(origin[pos])
            length += a - pos
        pos = b
    if not at and pos == 0:
        return text, origin  # nothing deleted
    out.append(text[pos:])
    at.append(length)
    to.append(origin[pos])
    length += len(origin) - pos  # the rest, with the map's last entry (the original length)
    return "".join(out), Origin(at, to, [origin.step] * len(at), length)


def _split_out(text: str, origin: range, mark: str) -> tuple[str, Sequence[int]]:
    """``_deleted`` of ``mark``, the text's only emphasis: ``str.split`` finds the pattern's places, with no class tested."""
    pieces = text.split(mark)
    at: list[int] = []
    to: list[int] = []
    length = pos = 0  # the text kept so far; where the piece begins in ``text``
    for k in range(len(pieces) - 1):  # each piece before a mark: a run where it holds a character
        if piece := pieces[k]:
            at.append(length)
            to.append(origin[pos])
            length += len(piece)
        pos += len(piece) + len(mark)
    at.append(length)  # the rest, with the map's last entry (the original length)
    to.append(origin[pos])
    return "".join(pieces), Origin(at, to, [origin.step] * len(at), length + len(origin) - pos)


_NON_ASCII_CHAR = re.compile(r"[^\x00-\x7f]")


@lru_cache(maxsize=4096)
def _nfkc_of(char: str) -> str:
    return unicodedata.normalize("NFKC", char)


def _nfkc(text: str, origin: Sequence[int]) -> tuple[str, Sequence[int]]:
    """Each non-ASCII character in its NFKC form (character by character, each new character mapped to the
    one it came from); ASCII passes as it is, unscanned in Python, and so does a text whose characters outside
    ASCII are all their own NFKC form (curly quotes, dashes: most of them)."""
    if text.isascii() or all(_nfkc_of(c) == c for c in set(_NON_ASCII_CHAR.findall(text))):
        return text, origin
    return _apply(text, origin, _NON_ASCII_CHAR, lambda m: _nfkc_of(m.group(0)))


def _escape(m: re.Match[str]) -> str:
    return {"n": "\n", "r": "\n", "t": " ", '"': '"'}[m.group(0)[1]]


_GATED = "gated"  # a guard: the words the pattern needs (``_gate``), read from the pattern itself

# Each step with what its pattern cannot match without (any one of these substrings; a pattern: a match of it;
# nothing: always run), and ``_GATED`` where it needs the words ``_gate`` reads from it as well: a text without them
# passes the step unchanged, so the scan is skipped. Tested against every step run unguarded (test_text_normalisation).
def _steps() -> tuple[tuple, tuple]:
    before = (
        (_REASONING_FIELD, "", ('"',), _GATED),  # before the escapes: the field's value is still one JSON string
        (_ESCAPES, _escape, ("\\",), None),
        (_INVISIBLE, "", _INVISIBLE_CHARS, None),
    )
    after = (
        (_TAGGED, "\n", ("<",), None),
        (_KIMI, "\n", ("\u25c1think\u25b7",), None),
        (_CHANNEL, "\n", ("<|",), None),
        (_CHANNEL_TOKENS, "\n", ("<|",), None),
        (_OPENED_BY_TEMPLATE, "\n", ("<",), None),
        (_DASHES, "-", _DASH_CHARS, None),
        (_APOSTROPHES, "'", _APOSTROPHE_CHARS, None),
        (_TABLE_RULE, lambda m: " " * len(m.group(0)), ("|",), None),
        (_TABLE_ROW, lambda m: m.group(0).replace("|", ";"), ("|",), None),
        (_EMPHASIS, "", ("**", "__"), None),
        (_INLINE_ITEM, "\n", (_INLINE_ITEM_NEEDS,), None),
    )
    return before, after


def _may_match(text: str, needs: tuple[str | re.Pattern[str], ...]) -> int | None:
    """Where the step's scan begins (0: the start), or None where its pattern cannot match ``text``."""
    if not needs:
        return 0
    for n in needs:  # a loop, not ``any``: this runs for every step of every message
        if isinstance(n, str):
            if n in text:
                return 0
        elif n is _INLINE_ITEM_NEEDS:
            if (at := _inline_item_at(text)) is not None:
                return at
        elif n.search(text):
            return 0
    return None


def _run_steps(text: str, origin: Sequence[int], steps: tuple, guarded: bool) -> tuple[str, Sequence[int]]:
    for pattern, repl, required, gated in steps:
        start = _may_match(text, required) if guarded else 0
        if start is None or (guarded and gated is not None and not may_match(pattern, text.lower(), gateable(text))):
            continue
        text, origin = _apply(text, origin, pattern, repl, start)
    return text, origin


def normalise(text: str, guarded: bool = True) -> Normalised:
    """``text`` ready for matching, with its origin map (module docstring). ``guarded=False`` scans every
    step whatever the text holds (the reference the guards are tested against)."""
    return Normalised(*normalised(text, guarded))


# ``range(n + 1)``, the origin map of an unchanged text of ``n`` characters, for each length most messages have, built
# once (from the program's constants, never from a text): building a range computes its length through integer
# objects, about 900 instructions against about 70 for the lookup, once for every message read (#47). A range is
# immutable and compared by value: the one every text of a length shares is the map each would build.
UNCHANGED = tuple(range(n + 1) for n in range(2048))


def normalised(text: str, guarded: bool = True) -> tuple[str, Sequence[int]]:
    """``normalise``'s text and origin map, unwrapped (a reader of every message builds no ``Normalised``)."""
    # A text holding none of these marks (tested in place, not by ``any``: every message passes here), outside
    # ASCII only dashes and apostrophes, and (those made "-" and "'") no match of ``_INLINE_ITEM``
    # (``_inline_item_at``) passes every other guard of ``_steps`` (they need another character outside ASCII),
    # NFKC included. "*" before "**" (and "_" before "__"): a one-character test is a ``memchr``, a two-character one
    # walks the text, and most texts hold neither character.
    if guarded and '"' not in text and "\\" not in text and "<" not in text and "|" not in text and (
            "*" not in text or "**" not in text) and ("_" not in text or "__" not in text):
        # outside ASCII only dashes and curly apostrophes (a user's "it’s"), which NFKC keeps or turns into
        # another of them: the text each becomes "-" or "'" in, one for one; no other step's guard lets it run
        # unless the list-item step's does on that text
        plain = text if text.isascii() else _APOSTROPHES.sub("'", _DASHES.sub("-", text))
        if plain.isascii() and _inline_item_at(plain) is None:
            return plain, UNCHANGED[n] if (n := len(text)) < 2048 else range(n + 1)
    before, after = _STEPS
    text, origin = _run_steps(text, UNCHANGED[n] if (n := len(text)) < 2048 else range(n + 1), before, guarded)
    text, origin = _nfkc(text, origin)
    text, origin = _run_steps(text, origin, after, guarded)
    return text, origin if isinstance(origin, range | Origin) else tuple(origin)


_STEPS = _steps()


def without_reasoning(
    text: Normalised, deliberates: re.Pattern[str], aside: re.Pattern[str], to_the_user: re.Pattern[str]
) -> Normalised:
    """An agent reply's speech: its paragraphs (blocks between blank lines) less the reasoning a model leaked
    into it. A paragraph that ``deliberates`` about the user in the third person ("The user is asking for
    compensation ... I should decline") is reasoning, and so is every paragraph before it (a model reasons,
    then answers); a paragraph that is an ``aside`` (the user in the third person, or self-talk: "Let me
    think") and says nothing ``to_the_user`` ("you") is reasoning on its own. A policy rule quoted to the user
    ("if the user has travel insurance"), next to "your reservation", is speech. Each dropped paragraph becomes
    one newline."""
    said, origin = speech(text.text, text.origin, deliberates, aside, to_the_user)
    return text if said is text.text and origin is text.origin else Normalised(said, origin)


def speech(
    text: str, origin: Sequence[int], deliberates: re.Pattern[str], aside: re.Pattern[str],
    to_the_user: re.Pattern[str],
) -> tuple[str, Sequence[int]]:
    """``without_reasoning`` of a normalised text and its origin map, unwrapped: themselves where none is dropped."""
    if not text:
        return text, origin  # no paragraph (half of an agent's messages are calls with no words)
    lowered, plain = text.lower(), text.isascii() or gateable(text)  # ``gateable``'s own first test, in place
    if plain and not may_reason(deliberates, aside, lowered):  # neither gate can hold (``_speech_gate``): most texts
        return text, origin
    may_deliberate, may_aside = may_match(deliberates, lowered, plain), may_match_paragraphs(aside, lowered, plain)
    if not may_deliberate and not may_aside:  # no paragraph can be reasoning (``_gate``): the scans would drop nothing
        return text, origin
    return reasoning_dropped(text, origin, plain, deliberates if may_deliberate else None,
                             aside if may_aside else None, to_the_user)
