"""One conversation's turns indexed once for the record's readers (#47): the calls in order and by tool name,
the tool message answering each call, each tool result parsed once, each text lowercased (with whether the gate
applies to it) and its sentences lowercased once.

A dozen readers of the record looped over every turn for the few that carry a call of one tool, parsed the same
tool results (the states, the tiers read, a write's details), and lowercased the same agent sentences for their
gates (the claims, the tier claims, the cabin misstatements, compensation offered, workaround offers). Built per
record (``_reading._Reading``) and dropped with it: nothing is kept across conversations."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from tau2.data_model.message import Message, ToolMessage

from conversation_reading._evidence import Turn
from conversation_reading._gate import gateable, may_match
from conversation_reading._message_kinds import is_tool_message
from conversation_reading._units import split_sentences

# A tool result that is not JSON (``parsed``): every reader of the parse passes over it.
UNPARSED: Any = object()

_DECODER = msgspec.json.Decoder()
# What json's scanner opens a value with, after its blanks: a text opening with anything else ("available", an
# "Error: ..."), or with nothing, json refuses at once (``JSONDecodeError``), after raising and formatting an error
_OPENS = frozenset('{["-0123456789tfnNI')
_BLANKS = " \t\n\r"
# msgspec reads a few levels of nesting past where json runs out of stack (``RecursionError``): a text that may
# nest this deep (as many brackets, so twice as many characters) is read by json alone. A shallower one runs out
# of neither's stack unless its reader is called some 500 frames deep (the record's are a few dozen)
_DEEP = 500


class TurnIndex:
    """The turns and messages of one conversation, indexed as the record's readers ask."""

    def __init__(self, turns: list[Turn], messages: Sequence[Message]) -> None:
        self.turns = turns
        self.messages = messages
        self.calls: list[tuple[Turn, Any]] = [(t, c) for t in turns for c in t.calls]  # in order
        self._named: dict[str, list[tuple[Turn, Any]]] | None = None
        self._answers: dict[str, list[int]] | None = None
        self._parsed: dict[int, Any] = {}
        self._lowered: dict[str, tuple[str, bool]] = {}
        self._sentences: dict[str, list[str]] = {}
        self._scanned: dict[Callable[[str], int], dict[str, int]] = {}  # by scan: its answers by text
        self._spoken: dict[tuple[str, Callable[[str], int]], list[tuple[Turn, str, bool, int]]] = {}
        self._last_said: list[Turn | None] | None = None

    def named(self, name: str) -> list[tuple[Turn, Any]]:
        """Every call of tool ``name``, with its turn, in order."""
        if self._named is None:
            self._named = {}
            for t, c in self.calls:
                self._named.setdefault(c.name, []).append((t, c))
        return self._named.get(name, [])

    def reply(self, call_id: str, after: int) -> tuple[int, ToolMessage] | None:
        """The tool message answering the call made at message ``after`` (some agents reuse call ids: the next
        one), with its index: as the messages after it are searched for it."""
        at = next((i for i in self._answering(call_id) if i > after), None)
        if at is None:
            return None
        m = self.messages[at]
        assert is_tool_message(m)
        return at, m

    def failed(self, call_id: str) -> bool:
        """A tool message with id ``call_id`` is an error (any: some agents reuse call ids)."""
        messages = self.messages
        return any(messages[i].error for i in self._answering(call_id))

    def _answering(self, call_id: str) -> list[int]:
        """The indices of the tool messages with id ``call_id``, in order."""
        if self._answers is None:
            self._answers = {}
            for i, m in enumerate(self.messages):
                if is_tool_message(m):  # by its type (``_message_kinds``)
                    self._answers.setdefault(m.id, []).append(i)
        return self._answers.get(call_id, [])

    def parsed(self, index: int) -> Any:
        """Message ``index``'s content as JSON (``json.loads``), or ``UNPARSED`` where it is none (no text, or not
        JSON): parsed once for every reader.

        msgspec reads it first (half the instructions, #47): every JSON text json reads, it reads to the same value
        (a duplicate key's last value in its first place, integers of any size, floats correctly rounded), and it
        refuses what json reads otherwise or alone (NaN, a lone surrogate, a number past a double's range), which
        json then reads, raising as it raises (tests/test_tool_json.py). json is called here, not in a function of
        its own: from the frame it always was, it runs out of stack at the same nesting."""
        if index not in self._parsed:
            content = self.messages[index].content
            if not isinstance(content, str) or content.lstrip(_BLANKS)[:1] not in _OPENS:
                self._parsed[index] = UNPARSED
                return UNPARSED
            if len(content) < 2 * _DEEP or content.count("[") + content.count("{") < _DEEP:
                try:
                    self._parsed[index] = _DECODER.decode(content)
                    return self._parsed[index]
                except (ValueError, TypeError, RecursionError):  # msgspec's are ValueErrors; a str subclass a TypeError
                    pass
            try:
                self._parsed[index] = json.loads(content)
            except json.JSONDecodeError:
                self._parsed[index] = UNPARSED
        return self._parsed[index]

    def lowered(self, text: str) -> tuple[str, bool]:
        """``text`` lowercased, and whether the gate applies to it (``_gate.gateable``)."""
        found = self._lowered.get(text)
        if found is None:
            found = self._lowered[text] = (text.lower(), gateable(text))
        return found

    def lowercase(self, text: str) -> str:
        """``text.lower()``, lowered once for every reader (``lowered``)."""
        return self.lowered(text)[0]

    def scanned(self, text: str, scan: Callable[[str], int]) -> int:
        """``scan`` of ``text``'s lowercase: the one scan of a speaker's messages for the rarest words of every pattern
        the record's readers of them gate on (``_message_scan``), where a pattern none of whose bits it sets could
        match no part of the text, if the gate applies to it. Scanned once for every reader."""
        held = self._scanned.get(scan)
        if held is None:
            held = self._scanned[scan] = {}
        found = held.get(text)
        if found is None:
            found = held[text] = scan(self.lowered(text)[0])
        return found

    def may_say(self, pattern: re.Pattern[str], gate: tuple[Callable[[str], int], int], text: str) -> bool:
        """``_gate.may_match(pattern, ...)`` over ``text`` lowered, whether the gate applies to it or not (``gate``: the
        scan of the speaker's messages and ``pattern``'s bits in its answer, ``_message_scan.gate_of``): its bits of
        the one scan first, which rule most messages out without the gate's substring tests."""
        lowered, gated = self.lowered(text)
        return not gated or bool(self.scanned(text, gate[0]) & gate[1]) and may_match(pattern, lowered, True)

    def spoken(self, said_by: str, scan: Callable[[str], int]) -> list[tuple[Turn, str, bool, int]]:
        """Each turn of ``said_by`` (its role), in order, with its text lowercased, whether the gate applies to it
        (``lowered``) and ``scan`` of the lowercase (``scanned``, the one scan of that speaker's messages): read once
        for every reader of the speaker's messages, which passes over the turns its bits rule out in one loop, not a
        call or three a turn."""
        found = self._spoken.get((said_by, scan))
        if found is None:
            # ``lowered`` and ``scanned`` of each turn, in place: two calls a turn (and ``scanned``'s call of ``lowered``)
            # were most of building it (#47); the same answers, kept where they keep theirs
            found = self._spoken[(said_by, scan)] = []
            lowered, held = self._lowered, self._scanned.get(scan)
            if held is None:
                held = self._scanned[scan] = {}
            for t in self.turns:
                if t.role == said_by:
                    text = t.text
                    low = lowered.get(text)
                    if low is None:
                        low = lowered[text] = (text.lower(), gateable(text))
                    bits = held.get(text)
                    if bits is None:
                        bits = held[text] = scan(low[0])
                    found.append((t, low[0], low[1], bits))
        return found

    def saying(self, pattern: re.Pattern[str], gate: tuple[Callable[[str], int], int], said_by: str) -> list[Turn]:
        """The turns of ``said_by`` whose text ``pattern`` may match (``may_say`` of each; ``gate``: the scan of that
        speaker's messages and ``pattern``'s bits in its answer), in order."""
        bit = gate[1]
        return [t for t, lowered, gated, bits in self.spoken(said_by, gate[0])
                if not gated or bits & bit and may_match(pattern, lowered, True)]

    def sentences_lowered(self, text: str) -> list[str]:
        """Each sentence of ``text`` (``split_sentences``) lowercased. A sentence is a part of its text, so the gate
        applies to each where it applies to the text."""
        found = self._sentences.get(text)
        if found is None:
            found = self._sentences[text] = [s.lower() for s in split_sentences(text)]
        return found

    def said_before(self, index: int) -> Turn | None:
        """The last user message with words before message ``index``."""
        if self._last_said is None:
            last: Turn | None = None
            self._last_said = []
            for t in self.turns:
                self._last_said.append(last)
                if t.role == "user" and t.text.strip():
                    last = t
            self._last_said.append(last)
        return self._last_said[min(index, len(self.turns))]


__all__ = ["UNPARSED", "TurnIndex"]
