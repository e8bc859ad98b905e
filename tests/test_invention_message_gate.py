"""``consequential_sentences`` asks ``invention`` of a message's sentences only where the record's one scan of the
agent's messages (``_message_scan``) found a word of a pattern invention's gate needs (``invention_bits``): where it
found none in a gateable message, every sentence of it is one the finders (``invented``, ``insurance_waiver``)
answer None for, and the records are those read with the scan ruling nothing out."""

from __future__ import annotations

import json

from conversation_reading._gate import gateable
from conversation_reading._invented_policy import insurance_waiver, invented
from conversation_reading._message_scan import gate_of, invention_bits
from conversation_reading._normalise import normalise
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import SHARED, real_run

# messages of one each: invented policy in each of the finders' ways, and its near misses
_MADE_UP = ["A supervisor may be able to make an exception for you. Shall I transfer you?",
            "Our loyalty team can upgrade your membership status to gold.",
            "As a gold member you get $100 in compensation, for gold members only.",
            "Gold members receive a $50 voucher. Anything else?",
            "Your travel insurance will waive the change fees for this flight.",
            "I cannot make an exception to the policy.", "The fare is $120, and Silver members pay it too."]


def _agent_texts() -> list[str]:
    runs = [real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"), real_run("whissle_airline_tau3_1trial.json"),
            *sorted((SHARED / "dev-corpus" / "runs").glob("*.json"))[:8]]
    texts = list(_MADE_UP)
    for path in runs:
        raw = json.loads(path.read_text(encoding="utf-8"))
        texts += [normalise(m["content"]).text for sim in raw["simulations"] for m in sim["messages"]
                  if m.get("role") == "assistant" and isinstance(m.get("content"), str)]
    return texts


def test_a_message_the_scan_rules_out_has_no_sentence_the_finders_find_invented():
    scan = gate_of(vocabulary().decline, "assistant")[0]  # the agent's one scan (the same for every pattern)
    bits = invention_bits()
    ruled_out = found = 0
    for text in _agent_texts():
        sentences = split_sentences(text)
        answers = [invented(s) or insurance_waiver(s) for s in sentences]  # the path the skip skips, ungated
        found += sum(a is not None for a in answers)
        if gateable(text) and not scan(text.lower()) & bits:
            ruled_out += 1
            assert answers == [None] * len(sentences), text
    assert found >= 5 and ruled_out > 1000  # it finds invented policy, and rules most messages out


def test_the_records_are_those_read_with_the_scan_ruling_nothing_out(monkeypatch):
    from tau2.data_model.simulation import SimulationRun

    from conversation_reading._reading import conversation_record
    from conversation_reading._turn_index import TurnIndex
    from gold_variants.readings._base import write_tools

    tools = write_tools("airline")
    conversations = []
    for path in sorted((SHARED / "dev-corpus" / "runs").glob("*.json"))[:8]:
        raw = json.loads(path.read_text(encoding="utf-8"))
        conversations += [list(SimulationRun.model_validate(sim).messages) for sim in raw["simulations"]]
    sentences = [conversation_record(m, "airline", tools.__contains__).sentences for m in conversations]
    monkeypatch.setattr(TurnIndex, "scanned", lambda self, text, scan: -1)
    assert [conversation_record(m, "airline", tools.__contains__).sentences for m in conversations] == sentences
    clauses = {s.clause for found in sentences for s in found if s.verdict == "false"}
    assert clauses & {"transfer", "compensation.eligible", "insurance.covers"}  # invented policy among them
