"""The record's readers of each speaker's messages (#47 round 8) take the turns from the index's one scan of that
speaker's messages (``TurnIndex.spoken``, ``TurnIndex.saying``) instead of asking ``may_say`` of every turn, and pass
over a message whose scan sets no bit of theirs: on real runs, ``saying`` is ``may_say`` of each turn of the speaker,
and the whole record read with the scan ruling nothing out (every bit set: each pattern's gate alone, the path the
bits skip) is the record as read."""

from __future__ import annotations

import gc
from functools import partial

import pytest
from tau2.data_model.message import ToolCall
from tau2.data_model.simulation import SimulationRun

from conversation_reading._compensation import Violation, unasked_compensation
from conversation_reading._evidence import (
    Turn,
    asserted,
    excerpt_of,
    mentions,
    read_turns,
    split_sentences,
)
from conversation_reading._gate import gateable, may_match
from conversation_reading._message_scan import gate_of, gated_patterns, message_scan
from conversation_reading._precondition_facts import _negated_only, _sentences_said, stated_wants
from conversation_reading._reading import conversation_record
from conversation_reading._replies import answered, confirmation_of, lists, says_yes
from conversation_reading._requests import asks_compensation
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import Units
from conversation_reading._vocabulary import vocabulary
from gold_variants.readings._base import write_tools
from tests.conftest import _raw_run

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json"]


def _messages(name: str, first: int | None = None) -> list[list]:
    return [list(SimulationRun.model_validate(raw).messages) for raw in _raw_run(name)["simulations"][:first]]


@pytest.mark.parametrize("said_by", ["assistant", "user"])
def test_the_turns_saying_a_pattern_are_those_may_say_lets_through(said_by):
    patterns = gated_patterns(said_by)
    let = ruled = 0
    for name in RUNS:
        for messages in _messages(name):
            turns = read_turns(messages)
            index = TurnIndex(turns, messages)
            assert index.spoken(said_by, gate_of(patterns[0], said_by)[0]) == [
                (t, t.text.lower(), index.lowered(t.text)[1], index.scanned(t.text, gate_of(patterns[0], said_by)[0]))
                for t in turns if t.role == said_by]
            for p in patterns:
                gate = gate_of(p, said_by)
                slow = [t for t in turns if t.role == said_by and index.may_say(p, gate, t.text)]
                assert index.saying(p, gate, said_by) == slow, p.pattern[:60]
                let += len(slow)
                ruled += sum(t.role == said_by for t in turns) - len(slow)
    assert let > 100 and ruled > 2 * let  # both answers, most turns ruled out


@pytest.mark.parametrize("name", RUNS)
def test_the_record_read_with_the_scan_ruling_nothing_out_is_the_record(name, monkeypatch):
    domain = "retail" if "retail" in name else "airline"
    tools = write_tools(domain)
    conversations = _messages(name, 40)
    records = [conversation_record(m, domain, tools.__contains__).model_dump() for m in conversations]
    # every bit of every scan set: each reader's gate alone decides, on every message of the speaker
    monkeypatch.setattr(TurnIndex, "scanned", lambda self, text, scan: -1)
    monkeypatch.setattr(TurnIndex, "spoken", lambda self, said_by, scan: [  # it reads the scan in place
        (t, *self.lowered(t.text), -1) for t in self.turns if t.role == said_by])
    monkeypatch.setattr(TurnIndex, "saying", lambda self, pattern, gate, said_by: [
        t for t in self.turns if t.role == said_by and may_match(pattern, t.text.lower(), gateable(t.text))])
    assert [conversation_record(m, domain, tools.__contains__).model_dump() for m in conversations] == records
    # the records hold what the skipped messages would have given: requests, claims and wants
    assert sum(len(r["requests"]) for r in records) > 20 and sum(len(r["claims"]) for r in records) > 5


def _unasked_every_turn(turns: list[Turn], index: TurnIndex) -> Violation | None:
    """``unasked_compensation``'s reading before round 8 (no clause declined): every turn in order, up to the user's
    ask, the certificate sent or an offer in words, whichever comes first."""
    v = vocabulary()
    sent_at = [t.index for t, _ in index.named("send_certificate")]
    request, offer = gate_of(v.compensation_request, "user"), gate_of(v.compensation_offer, "assistant")
    asked = next((t.index for t in turns if t.role == "user" and index.may_say(v.compensation_request, request, t.text)
                  and asks_compensation(v.compensation_request, t.text)), None)
    for t in turns:
        if asked is not None and t.index >= asked:
            break
        if sent_at and sent_at[0] == t.index:
            return Violation("compensation_asked", t.index, "a certificate sent before the user asked for compensation")
        if t.role != "assistant" or not index.may_say(v.compensation_offer, offer, t.text):
            continue
        for s in split_sentences(t.text):
            m = v.compensation_offer.search(s)
            if m is not None and asserted(s, m.start()) and not v.decline.search(s):
                return Violation("compensation_asked", t.index, f"compensation offered before the user asked for "
                                 f"any: {excerpt_of(s, 120)!r}")
    return None


def _wants_every_turn(turns: list[Turn], index: TurnIndex) -> list[tuple[str, int]]:
    """``stated_wants`` before round 8: each user message asked of each gate in turn."""
    v = vocabulary()
    compensation = v.requests["send_certificate"]
    named = gated_patterns("user")[-1]  # a change or a cancellation named (``_message_scan.changes``)
    out = []
    for t in turns:
        if t.role != "user":
            continue
        if index.may_say(compensation, gate_of(compensation, "user"), t.text) and asks_compensation(compensation, t.text):
            out.append(("compensation", t.index))
        elif (index.may_say(v.keeps_reservation, gate_of(v.keeps_reservation, "user"), t.text) and mentions(
                v.keeps_reservation, t.text)) or (index.may_say(named, gate_of(named, "user"), t.text) and any(
                _negated_only(named, s, low, index.lowered(t.text)[1]) for s, low in _sentences_said(named, t.text, index))):
            out.append(("keep_reservation", t.index))
    return out


def _certificate(index: int) -> Turn:
    call = ToolCall(id=f"c{index}", name="send_certificate", arguments={"user_id": "u", "amount": 100})
    return Turn(index, "assistant", "", (call,))


MADE = [  # the first of the ask, the certificate sent and an offer in words decides
    [Turn(0, "user", "My flight was delayed by five hours.", ()),
     Turn(1, "assistant", "I can offer you a $100 travel certificate as a gesture of goodwill.", ()), _certificate(2)],
    [Turn(0, "user", "My flight was delayed by five hours.", ()), _certificate(1),
     Turn(2, "assistant", "I have sent you a $100 travel certificate as a gesture of goodwill.", ())],
    [Turn(0, "user", "My flight was delayed, I want compensation for the delay.", ()),
     Turn(1, "assistant", "I can offer you a $100 travel certificate as a gesture of goodwill.", ()), _certificate(2)],
    [Turn(0, "user", "Hello.", ()), Turn(1, "assistant", "I can offer you a $100 travel certificate as a gesture of goodwill.", ()),
     Turn(2, "user", "I want compensation for the delay.", ()), _certificate(3)],
    [Turn(0, "user", "Hello.", ()), _certificate(1), Turn(2, "user", "I want compensation for the delay.", ())],
]


def test_compensation_unasked_and_the_wants_read_from_the_turns_saying_them_are_those_of_every_turn():
    found = {"offer": 0, "certificate": 0, "none": 0}
    wants = 0
    for turns in [*MADE, *(read_turns(m) for name in RUNS for m in _messages(name))]:
        index = TurnIndex(turns, ())
        got = unasked_compensation(turns, lambda _clause, _before: [], index)
        assert got == _unasked_every_turn(turns, TurnIndex(turns, ()))
        found["none" if got is None else "certificate" if "sent" in got.detail else "offer"] += 1
        said = [(w.want, w.message_index) for w in stated_wants(turns, index)]
        assert said == _wants_every_turn(turns, TurnIndex(turns, ()))
        wants += len(said)
    assert found["offer"] >= 2 and found["certificate"] >= 2 and found["none"] > 100 and wants > 100


def test_a_clause_may_be_declined_where_the_scan_finds_its_class_as_its_gate_alone_says():
    """``Units.may_decline`` with the record's scan (``_message_scan``: the decline classes' rarest words) answers as
    without it, for every clause, on the agent's messages of real runs and on messages whose list joins a sentence
    (where the gate reads the units joined, which the scan of the message does not: the scan is not asked there)."""
    kinds = vocabulary().kinds
    scan, bits = message_scan("assistant")
    made = ["I'm afraid I:\n- cannot change the destination of this basic economy flight.",
            "Here is what we can do:\n1. Cancel the reservation\n2. Upgrade the cabin",
            "Changing a basic economy reservation is not permitted."]
    texts = made + [t.text for name in RUNS for m in _messages(name) for t in read_turns(m)
                    if t.role == "assistant" and t.text]
    ruled = let = 0
    for text in texts:
        index = TurnIndex([], [])
        scanned, plain = Units(partial(index.scanned, scan=scan), bits), Units()
        for kind in kinds.values():
            assert scanned.may_decline(kind, text) == plain.may_decline(kind, text), (kind.name, text[:80])
            let += plain.may_decline(kind, text)
        ruled += not index.scanned(text, scan) & bits[id(vocabulary().decline)]
    assert let > 50 and ruled > len(texts) / 2  # clauses let through, most messages ruled out by the scan


def test_the_record_leaves_no_turn_of_its_conversation_to_the_collector():
    """A reading kept in a reference cycle by a reader (the consequential sentences' checkers) is dropped once its
    record is built: its turns are freed when the record is, not by the collector. Nor do the checkers and their
    figures make cycles (a policy holding its checker's method, figures held in a dict they hold): each record's
    objects are freed by their reference counts (the collector's pauses cost the record's CPU budget, #47)."""
    tools = write_tools("airline")
    conversations = _messages("whissle_airline_tau3_1trial.json", 20)
    gc.collect()
    gc.disable()
    try:
        for messages in conversations:
            conversation_record(messages, "airline", tools.__contains__)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    held = {"Turn", "UnreadTurn", "TurnIndex", "Units", "_Reading", "_Checker", "KnownFigures", "AirlinePolicy",
            "_State", "Itineraries"}
    assert not held & set(left), sorted(set(left))


def _confirmation_read_in_full(turns: list[Turn], index: int, arguments: dict, tool: str) -> tuple[Turn | None, int]:
    """``confirmation_of`` with no message passed over unread: each answered agent message read again, whatever
    its text; and how many answered a text already read."""
    read: list[str] = []
    again = 0
    for said in reversed(turns[:index]):
        if said.role != "user" or not said.text.strip():
            continue
        asked = answered(turns, said)
        if asked is None:
            return None, again
        again += asked.text in read
        read.append(asked.text)
        if lists(asked, arguments, tool):
            return (said if says_yes(said, asked) else None), again
        if not any(s.rstrip().endswith("?") for s in split_sentences(asked.text)):
            return None, again
    return None, again


def test_a_confirmation_passing_over_a_text_read_before_is_the_one_read_in_full():
    """``confirmation_of`` reads each agent text it passes over once: the same answer as reading every message
    again, on every write of the shared runs (where some users answer the same question several times)."""
    writes = repeated = 0
    for name in RUNS:
        domain = "retail" if "retail" in name else "airline"
        tools = write_tools(domain)
        for messages in _messages(name):
            turns = read_turns(messages)
            for t in turns:
                for call in (c for c in t.calls if c.name in tools):
                    arguments = dict(call.arguments or {})
                    found, again = _confirmation_read_in_full(turns, t.index, arguments, call.name)
                    assert confirmation_of(turns, t.index, arguments, call.name) is found, (name, t.index)
                    writes, repeated = writes + 1, repeated + bool(again)
    assert writes > 50 and repeated > 0, (writes, repeated)
