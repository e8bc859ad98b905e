"""The one scan of each message (``_message_scan``, #47 round 7) rules a pattern out only where its gate fails: on the
messages and sentences of real runs, every pattern of each speaker's scan whose gate (``_gate.may_match``) holds has
a bit set, and the index's ``may_say`` (its bits, then the gate) answers as the gate alone, for each speaker's
messages and for a text the gate does not apply to."""

from __future__ import annotations

import pytest
from tau2.data_model.simulation import SimulationRun

from conversation_reading._evidence import read_turns
from conversation_reading._gate import gateable, may_match, scanned_each
from conversation_reading._message_scan import gate_of, gated_patterns, scanned_paired
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import split_sentences
from tests.conftest import _raw_run

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json"]


@pytest.mark.parametrize("said_by", ["assistant", "user"])
def test_the_scan_rules_out_only_patterns_whose_gates_fail(said_by):
    patterns = gated_patterns(said_by)
    held = ruled_out = 0
    for name in RUNS:
        for raw in _raw_run(name)["simulations"]:
            turns = read_turns(list(SimulationRun.model_validate(raw).messages))
            index = TurnIndex(turns, ())
            texts = [t.text for t in turns if t.role == said_by and t.text]
            texts += [s for x in texts for s in split_sentences(x)]  # a sentence is a part of its text
            texts += ["K\u212aeep it", "\u0130s there compensation? Upgrading is not allowed."]  # not gateable
            for text in texts:
                lowered, gated = text.lower(), gateable(text)
                for p in patterns:
                    scan, bit = gate_of(p, said_by)
                    holds = may_match(p, lowered, gated)
                    assert index.may_say(p, (scan, bit), text) == holds, (p.pattern[:40], text)
                    held += holds
                    ruled_out += not index.scanned(text, scan) & bit
    assert held > 200 and ruled_out > 5000  # both answers taken: patterns let through, most ruled out by their bits


@pytest.mark.parametrize("said_by", ["assistant", "user"])
def test_a_paired_scan_sets_a_patterns_bit_only_where_its_gate_may_hold_and_rules_out_more(said_by):
    """``scanned_paired`` (the record's message scans) sets a pattern's bit only where the scan
    without pairs does and wherever the pattern's gate holds, and rules out more of the agent's messages than that scan."""
    patterns = gated_patterns(said_by)
    paired, single = scanned_paired(patterns), scanned_each(patterns)
    fewer = 0
    for name in RUNS:
        for raw in _raw_run(name)["simulations"]:
            turns = read_turns(list(SimulationRun.model_validate(raw).messages))
            for text in (t.text for t in turns if t.role == said_by and t.text and gateable(t.text)):
                lowered = text.lower()
                found, loose = paired(lowered), single(lowered)
                assert found & ~loose == 0, text
                for i, p in enumerate(patterns):
                    assert not may_match(p, lowered, True) or found >> i & 1, (p.pattern[:40], text)
                fewer += bin(loose).count("1") - bin(found).count("1")
    # the agent's claim kinds are paired; the user's patterns have no second requirement of long words
    assert fewer > 100 if said_by == "assistant" else fewer == 0
