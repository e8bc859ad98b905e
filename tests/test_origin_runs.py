"""Round 2 of the reading speed-ups (#47) answer as what they replace: a normalised text's origin map held as runs
(``_origin.Origin``) holds, index for index, the integers the list it replaces held, on every message of the shared
runs; and ``holds_any`` looked up by its tuple's identity answers for that tuple only."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from tau2.data_model.message import AssistantMessage, UserMessage

from conversation_reading import _evidence, _normalise
from conversation_reading._gate import _ANY_BY_TUPLE, holds, holds_any, needs
from conversation_reading._origin import Origin, OriginBuilder
from conversation_reading._vocabulary import vocabulary
from tests.conftest import REAL_RUNS


class _ListBuilder:
    """The origin map as it was built before runs: a list of every index (the reference)."""

    def __init__(self) -> None:
        self.values: list[int] = []

    def extend(self, origin: Sequence[int], lo: int, hi: int) -> None:
        self.values += origin[lo:hi]

    def repeat(self, value: int, count: int) -> None:
        self.values += [value] * count

    def build(self) -> tuple[int, ...]:
        return tuple(self.values)


_MADE = [  # each step that rewrites text of another length, and the reasoning and quotes read_turns drops
    "**Note** 1. Cancel 2. Book __now__", 'line\\none \\"quoted\\" \\t end', "| a | b |\n|---|---|\n| **1** | 2 |",
    '{"thought": "decline it", "reply": "Sorry, **you** cannot."}', "<think>x</think>\n\n**Hi** there",
    "The user is asking for a refund. I should decline.\n\nI'm sorry, **but** no.", "\ufb01ne caf\u00e9 e\u0301 \u00bd",
    "Let me think.\n\n**Sure**, done\u2014ok \u2019x\u2019", "zero\u200bwidth \u00adsoft *a* **b**\u200b!", "",
]


def _conversations() -> list[list]:
    out = []
    for path in sorted(REAL_RUNS.glob("*.json")):
        for sim in json.loads(path.read_text(encoding="utf-8"))["simulations"]:
            messages = []
            for m in sim.get("messages") or []:
                content = m.get("content") if isinstance(m.get("content"), str) else ""
                if m.get("role") == "user":
                    messages.append(UserMessage(role="user", content=content))
                elif m.get("role") == "assistant":
                    messages.append(AssistantMessage(role="assistant", content=content))
            out.append(messages)
    out.append([UserMessage(role="user", content="I want a full refund for the cancelled flight please"),
                *(AssistantMessage(role="assistant", content=f'You said "I want a full refund for the cancelled flight '
                                                             f'please" and {t}') for t in _MADE)])
    return out


def _read(conversations: list[list]) -> list[tuple[str, tuple[int, ...], str, tuple[int, ...]]]:
    v = vocabulary()
    out = []
    for text in [m.content for c in conversations for m in c] + _MADE:
        said = _normalise.normalise(text)
        spoken = _normalise.without_reasoning(said, v.reasoning, v.aside, v.second_person)
        out.append((said.text, tuple(said.origin), spoken.text, tuple(spoken.origin)))
    for c in conversations:
        _evidence._LAST.clear()
        out += [(t.text, tuple(t.origin), "", ()) for t in _evidence.read_turns(c)]
    _evidence._LAST.clear()
    return out


def test_origin_runs_hold_the_indices_the_list_held(monkeypatch: pytest.MonkeyPatch):
    """``normalise``, ``without_reasoning`` and ``read_turns`` (a quote of the user dropped) give the same texts and,
    index for index, the same origin maps with runs as with the list of every index; and some maps are runs."""
    conversations = _conversations()
    assert sum(map(len, conversations)) > 1000
    runs = _read(conversations)
    monkeypatch.setattr(_normalise, "OriginBuilder", _ListBuilder)
    listed = _read(conversations)
    assert len(runs) == len(listed)
    for a, b in zip(runs, listed, strict=True):
        assert a == b, a[0][:200]
    monkeypatch.undo()
    changed = [n for n in map(_normalise.normalise, _MADE) if isinstance(n.origin, Origin)]
    assert len(changed) >= 6


def test_an_origin_reads_as_the_sequence_of_its_integers():
    built = OriginBuilder()
    built.extend(range(20), 2, 6)  # 2..5
    built.repeat(9, 3)  # a replacement of another length: its first index each
    built.extend(range(20), 6, 8)  # continues nothing before it
    built.extend((40, 41, 43), 0, 3)  # any other sequence, value by value
    origin = built.build()
    values = (2, 3, 4, 5, 9, 9, 9, 6, 7, 40, 41, 43)
    assert tuple(origin) == values and len(origin) == len(values) and origin == values and values == origin
    assert [origin[i] for i in range(-len(values), len(values))] == [*values, *values]
    for lo in range(len(values) + 1):
        for hi in range(len(values) + 1):
            assert tuple(origin[lo:hi]) == values[lo:hi]
    part = OriginBuilder()
    part.extend(origin, 3, 10)
    assert tuple(part.build()) == values[3:10]
    assert origin[::2] == values[::2] and hash(origin) == hash(values) and origin != values[:-1]
    with pytest.raises(IndexError):
        origin[len(values)]
    assert _normalise.origin_span(origin, 4, 7) == (9, 10) and _normalise.origin_span(origin, 8, 8) == (7, 7)


def test_holds_any_by_identity_answers_for_its_own_tuple_only():
    """A tuple's gate is found by the tuple's id, and only where the entry holds that very tuple (an id is reused once
    its object is gone): an entry left under the id by another tuple is not taken."""
    v = vocabulary()
    first, second = (v.agreement,), (v.withdrawal, v.transfer_request)
    texts = ["yes please go ahead", "never mind, i no longer want it", "transfer me to a human", "the flight"]
    assert [holds_any(first)(t) for t in texts] == [any(holds(needs(p), t) for p in first) for t in texts]
    _ANY_BY_TUPLE[id(second)] = _ANY_BY_TUPLE[id(first)]  # as a gone tuple's entry under a reused id
    try:
        assert [holds_any(second)(t) for t in texts] == [any(holds(needs(p), t) for p in second) for t in texts]
        assert holds_any(second)("transfer me to a human") and not holds_any(first)("transfer me to a human")
    finally:
        _ANY_BY_TUPLE.clear()


def test_mentions_answers_as_every_sentence_scanned():
    """``mentions`` gates each sentence on the pattern's words (``_gate``) before its scan: on every user and agent
    message of the shared runs, for every pattern the record asks it of, it answers as the scan of every sentence;
    and both answers occur, and many a sentence is passed over in a text whose own gate holds."""
    from conversation_reading._evidence import _mentions, negated
    from conversation_reading._units import split_sentences

    v = vocabulary()
    patterns = [v.withdrawal, v.transfer_request, v.agreement, v.compensation_request, *v.requests.values()]
    texts = [_normalise.normalise(m.content).text for c in _conversations() for m in c]
    texts += ["Yes. I no longer want to change it.", "Please change it. I do not want a refund."]
    answers, skipped = set(), 0
    for pattern in patterns:
        for text in texts:
            lowered = text.lower()
            skipped += holds(needs(pattern), lowered) and any(
                not holds(needs(pattern), s.lower()) for s in split_sentences(text))
            answer = _mentions(pattern, text)
            assert answer == any(any(not negated(s, m.start()) for m in pattern.finditer(s))
                                 for s in split_sentences(text)), (pattern.pattern[:80], text[:200])
            answers.add(answer)
    assert answers == {True, False} and skipped > 1000
