"""A message's units: its sentences, and each list a colon introduces joined to its sentence; and one
conversation's units cut once for every reader (``Units``), with the gate (``_gate``) that skips a message a
pattern cannot match."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from conversation_reading._gate import gateable, holds, holds_any, needs
from conversation_reading._normalise import normalise
from conversation_reading._reading_memo import ReadingMemo
from conversation_reading._vocabulary import EvidenceKind, vocabulary

# A sentence ends at the blanks after ".", "!" or "?" ("1. Change ..." is a list item, not a sentence end), and a
# line ends one. One scan of the text finds both: the pattern opens with the character it cuts after (a group:
# ``split`` returns it, ``_cut`` puts it back on its sentence), so the engine skips to the next mark or newline by
# that first character, not trying a lookbehind at every position (a split of the text into lines, then of each line
# at its sentence ends, cost 2.6 times the instructions). It cuts the same runs of blanks as that split, so the
# stripped pieces are the same sentences (tests/test_sentence_cuts.py holds the two-level split as the reference).
_CUT = re.compile(r"([.!?\n])(?:(?<=\n)\s*|(?<!\b\d\.)\s+)")
_LIST_ITEM = re.compile(r"^\s*(?:[-*\u2022]|\d+[.)])\s*")
_LIST_OPENS = re.compile(r":\s*\n")  # a line ending in ":" and another after it: what a joined list needs (``_units``)


class _Said(Protocol):  # a turn (``_evidence.Turn``): its words and tool calls
    text: str
    calls: tuple[Any, ...]


T = TypeVar("T", bound=_Said)


def split_sentences(text: str) -> list[str]:
    return list(_sentences(text))


def _cut(text: str) -> tuple[str, ...]:
    parts = _CUT.split(text)  # each piece, then the mark it ends with (a newline: stripped), ...; the last piece
    if len(parts) == 1:  # no cut (a quarter of the texts)
        return (whole,) if (whole := text.strip()) else ()
    parts.append("")
    pairs = iter(parts)  # (piece, its mark), ..., (the last piece, ""): an even count
    # a loop, not a generator: resuming a generator frame for each sentence cost a quarter of the cut (#47)
    out = []
    for piece, mark in zip(pairs, pairs, strict=False):
        if s := (piece + mark).strip():
            out.append(s)
    return tuple(out)


# Every reader of a message cuts its sentences (each claim kind, request word and precondition fact): cut once
# while one conversation is read (``_sentences.reading``, entered by ``conversation_record``).
_sentences: ReadingMemo[str, tuple[str, ...]] = ReadingMemo(_cut)
reading_sentences = _sentences.reading


def _units(text: str) -> list[str]:
    """The sentences, and each list a colon introduces joined to its sentence ("offered in connection with
    either: 1. changing your flights, or 2. cancelling")."""
    units = split_sentences(text)
    if not _LIST_OPENS.search(text):
        return units  # no line ending in ":" with another after it: no list to join
    # its non-blank lines (a str split, then blank pieces dropped: the same lines as a regex split at runs of
    # newlines, at a ninth of its cost, #47)
    lines = [line for line in text.split("\n") if line.strip()]
    for i, line in enumerate(lines):
        if not line.rstrip().endswith(":"):
            continue
        items = []
        for j in range(i + 1, len(lines)):  # the lines after it, up to the first that is not a list item
            if (item := _LIST_ITEM.match(nxt := lines[j])) is None:
                break
            items.append(nxt[item.end() :].strip())  # the item less its mark (the pattern matches at the start only)
        if items:
            units.append(" ".join([split_sentences(line)[-1], *items]))
    return units


class Units:
    """One conversation's units, cut once for every clause that reads them (a fresh one per reading: nothing is
    kept across conversations)."""

    def __init__(self, scanned: Callable[[str], int] | None = None, bits: Mapping[int, int] | None = None,
                 lowercase: Callable[[str], str] = str.lower) -> None:
        # the one scan of an agent message's lowercase (``_message_scan``, the record's) and each pattern's bits in its
        # answer: ``may_decline`` tests a decline class's gate only where the scan found one of its rarest words
        self._scanned, self._bits = scanned, bits or {}
        self._lowercase = lowercase  # ``str.lower``, or the record's, which lowers each text once for every reader
        self._text: dict[str, list[str]] = {}
        self._summary: dict[str, list[str]] = {}
        self._summary_text: dict[str, str] = {}
        self._gates: dict[str, str | None] = {}
        self._plain: dict[str, str | None] = {}
        # ``may_decline``'s answers by (kind, text): a clause's declines in words and its anaphoric declines ask it of
        # the same agent messages (an entry holds its kind, so a kind's id is not reused while it is held)
        self._declining: dict[tuple[int, str], tuple[EvidenceKind, bool]] = {}
        self._lists: dict[str, bool] = {}  # whether a text joins a list to a sentence (``_LIST_OPENS``), by ``gate``
        # each decline kind's bits in the scan's answer: its classes', and the catalog's decline's (by the kind's id;
        # an entry holds its kind)
        self._kind_bits: dict[int, tuple[EvidenceKind, int, int]] = {}

    def gate(self, text: str) -> str | None:
        """The lowercase of ``text``'s units, joined, that ``_gate`` reads (a unit is a sentence of it, or a list
        joined to its sentence, so the gate reads them all), or of ``text`` itself where no list is joined
        (``_LIST_OPENS``); None where the gate does not apply (``gateable``)."""
        if text not in self._gates:
            if not self._joins_list(text):  # no list joined: each unit is a part of the text, which the gate reads
                self._gates[text] = self.lowered(text)
            else:
                joined = "\n".join(self.of(text)).lower()
                self._gates[text] = joined if gateable(joined) else None
        return self._gates[text]

    def lowered(self, text: str) -> str | None:
        """The lowercase of ``text`` itself, for a reader of its sentences (each a part of it); None where the gate
        does not apply."""
        if text not in self._plain:
            low = self._lowercase(text)
            self._plain[text] = low if gateable(low) else None
        return self._plain[text]

    def may_say(self, patterns: Sequence[re.Pattern[str]], text: str) -> bool:
        """Whether every one of ``patterns`` could match some sentence of ``text``."""
        low = self.lowered(text)
        return low is None or all(holds(needs(p), low) for p in patterns)

    def may_any(self, patterns: tuple[re.Pattern[str], ...], text: str) -> bool:
        """Whether one of ``patterns`` could match some sentence of ``text`` (one compiled gate: ``holds_any``)."""
        low = self.lowered(text)
        return low is None or holds_any(patterns)(low)

    def may(self, patterns: Sequence[re.Pattern[str]], text: str) -> bool:
        """Whether every one of ``patterns`` could match some unit of ``text``."""
        lowered = self.gate(text)
        return lowered is None or all(holds(needs(p), lowered) for p in patterns)

    def may_decline(self, kind: EvidenceKind, text: str) -> bool:
        """Whether a unit of ``text`` could decline on ``kind``'s clause in the agent's words (``_declines``): it
        must state one of the clause's decline classes and name the whole subject (a direct decline), or state
        one of them or any decline and name every part of the indirect subject. Asked once per kind and text."""
        key = (id(kind), text)
        held = self._declining.get(key)
        if held is not None and held[0] is kind:
            return held[1]
        answer = self._may_decline(kind, text)
        self._declining[key] = (kind, answer)
        return answer

    def _may_decline(self, kind: EvidenceKind, text: str) -> bool:
        lowered = self.gate(text)
        if lowered is None:
            return True
        # where the gate reads the text's own lowercase (no list joined to a sentence), the scan's bits first: a class
        # none of whose rarest words the scan found fails its gate (a class's gate scans the whole text for a hundred
        # words, and most agent messages hold none of them)
        scanned = -1 if self._scanned is None or self._lists[text] else self._scanned(text)
        decline = vocabulary().decline
        held = self._held_bits(kind)
        may_class, may_decline = bool(scanned & held[1]), bool(scanned & held[2])
        # the scan's bits first (most messages hold no rarest word of a class, nor of the decline), then the subject's
        # words, then the decline classes' (one compiled gate): the same answer in any order, each test is pure
        if not (may_class or may_decline):
            return False  # most messages: neither's words (the tests below all need one)
        by_class = holds_any(kind.declined_by)
        if may_class and all(needs(p).check(lowered) for p in kind.subject) and by_class(lowered):
            return True
        return bool(kind.indirect) and all(needs(p).check(lowered) for p in kind.indirect) \
            and (may_class and by_class(lowered) or may_decline and needs(decline).check(lowered))

    def _held_bits(self, kind: EvidenceKind) -> tuple[EvidenceKind, int, int]:
        """``kind`` with its decline classes' bits in the scan's answer, and the catalog's decline's."""
        held = self._kind_bits.get(id(kind))
        if held is None or held[0] is not kind:
            held = self._kind_bits[id(kind)] = (kind, self._bits_of(kind.declined_by),
                                                self._bits_of((vocabulary().decline,)))
        return held

    def scanned_turns(self, spoken: Sequence[tuple[T, str, bool, int]]) -> list[tuple[T, int]]:
        """Each agent turn of ``spoken`` (``TurnIndex.spoken``: with the one scan's answer for its text), with that
        answer as ``may_decline`` reads it (``scan_bits``; none for a turn with no words, which no reader reads)."""
        return [(t, self.scan_bits(t.text, bits) if t.text else 0) for t, _, _, bits in spoken]

    def declining(self, agent: Sequence[tuple[T, int]], kind: EvidenceKind) -> list[T]:
        """The turns of ``agent`` (each agent turn with its text's ``scan_bits``; none for a turn with no words) that
        make a call (a transfer's summary is read) or whose text holds a bit ``may_decline`` needs (its classes' or
        the decline's): in the rest it answers no at once, so they hold no decline on ``kind``, in words or anaphoric
        (whose sentence declines in words), and the readers need not ask it turn by turn (#47)."""
        held = self._held_bits(kind)
        mask = held[1] | held[2]
        return [t for t, bits in agent if bits & mask or t.calls]

    def scan_bits(self, text: str, bits: int) -> int:
        """``bits``, the scan's answer for ``text``, as ``may_decline`` reads it: every bit where it reads none (no
        scan; a list joined to a sentence, whose joined unit may hold words the text does not; the gate does not
        apply)."""
        if self._scanned is None:
            return -1
        return -1 if self._joins_list(text) or self.lowered(text) is None else bits

    def _joins_list(self, text: str) -> bool:
        """Whether ``text`` joins a list to a sentence (``_LIST_OPENS``), found once a text."""
        lists = self._lists.get(text)
        if lists is None:
            lists = self._lists[text] = _LIST_OPENS.search(text) is not None
        return lists

    def _bits_of(self, patterns: Sequence[re.Pattern[str]]) -> int:
        """The bits of ``patterns`` in the scan's answer (every bit where the scan answers for one not, or none)."""
        bits = 0
        for p in patterns:
            bits |= self._bits.get(id(p), -1)
        return bits

    def of(self, text: str) -> list[str]:
        found = self._text.get(text)
        if found is None:
            found = self._text[text] = _units(text)
        return found

    def of_summary(self, summary: str) -> list[str]:
        """A transfer summary's units, normalised first as the agent's messages are."""
        found = self._summary.get(summary)
        if found is None:
            found = self._summary[summary] = _units(self.summary_text(summary))
        return found

    def summary_text(self, summary: str) -> str:
        """A transfer summary normalised as the agent's messages are (once: its units and its excerpt read it)."""
        found = self._summary_text.get(summary)
        if found is None:
            found = self._summary_text[summary] = normalise(summary).text
        return found


__all__: list[str] = []
