"""``_reading._Reading.declines`` passes a clause's readers only the agent's turns that make a call or whose text the
one scan of the agent's messages lets decline on the clause (``Units.declining``, #47): a turn left out makes no call
and ``Units.may_decline`` answers no for its text, on every conversation of real runs, for every clause; the scan's
answer is read as ``may_decline`` reads it (``Units.scan_bits``: none where a list is joined or the gate does not
apply). That the declines read over those turns are those read over every turn: ``tests/test_decline_loop.py``."""

from __future__ import annotations

from conversation_reading._message_scan import message_scan
from conversation_reading._reading import _Reading
from conversation_reading._vocabulary import vocabulary
from tests.conftest import read_conversations

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json", "whissle_retail_tau3_5sims.json"]


def test_a_turn_left_out_makes_no_call_and_may_not_decline_on_the_clause():
    left_out = kept = 0
    for name in RUNS:
        for _, messages in read_conversations(name):
            reading = _Reading(messages, "airline", lambda _: False)
            agent = reading.units.scanned_turns(reading.index.spoken("assistant", message_scan("assistant")[0]))
            assert [t for t, _ in agent] == [t for t in reading.turns if t.role == "assistant"]
            for kind in vocabulary().kinds.values():
                read = reading.units.declining(agent, kind)
                ids = {id(t) for t in read}
                assert read == [t for t, _ in agent if id(t) in ids]  # in order, each once
                for t, _ in agent:
                    if id(t) in ids:
                        kept += 1
                        continue
                    left_out += 1
                    assert not t.calls, (name, t.index)
                    assert not t.text or not reading.units.may_decline(kind, t.text), (name, kind.what, t.index)
    assert left_out >= 1000 and kept >= 500, (left_out, kept)


def test_the_scans_answer_is_read_only_where_may_decline_reads_it():
    messages = read_conversations("whissle_airline_tau3_1trial.json")[0][1]
    units = _Reading(messages, "airline", lambda _: False).units
    assert units.scan_bits("I can change that flight for you.", 5) == 5
    # a list joined to its sentence: the joined unit is not the text, whose scan ``may_decline`` does not read
    assert units.scan_bits("Here are the options:\n- change the flight\n- keep it", 5) == -1
    # a dotless i: the gate does not apply (``_gate.gateable``), so neither does the scan
    assert units.scan_bits("That \u0131s not possible.", 5) == -1
