"""The consequential sentences' loop (``_sentences.consequential_sentences``) cut for speed (#47) answers as before:
each sentence built by the model's validator over a dict is the model its keyword constructor builds, on the
sentences of real conversations."""

from __future__ import annotations

import json

import pytest
from tau2.data_model.simulation import SimulationRun

from conversation_reading import _sentences
from conversation_reading._reading import conversation_record
from conversation_reading._record import ConsequentialSentence
from gold_variants.readings._base import write_tools
from tests.conftest import real_run


@pytest.fixture(scope="module")
def airline_records() -> list:
    """The records of two real airline runs' conversations."""
    tools = write_tools("airline")
    records = []
    for name in ("whissle_airline_tau3_1trial.json", "aide_claude-sonnet-4-5_airline_tau2_1trial.json"):
        raw = json.loads(real_run(name).read_text(encoding="utf-8"))
        for sim in raw["simulations"][:30]:
            messages = list(SimulationRun.model_validate(sim).messages)
            records.append(conversation_record(messages, "airline", tools.__contains__))
    return records


def test_a_sentence_validated_from_a_dict_is_the_model_its_constructor_builds(airline_records):
    sentences = [s for r in airline_records for s in r.sentences]
    assert len(sentences) > 200 and len({s.kind for s in sentences}) >= 6 and any(s.relied_on for s in sentences)
    for s in sentences:
        fields = {name: getattr(s, name) for name in ConsequentialSentence.model_fields}
        built = ConsequentialSentence(**fields)
        assert type(s) is ConsequentialSentence and s == built
        assert s.model_fields_set == built.model_fields_set == set(ConsequentialSentence.model_fields)
        assert [type(v) for v in s.__dict__.values()] == [type(v) for v in built.__dict__.values()]
        assert s.model_dump_json() == built.model_dump_json()
    with pytest.raises(Exception, match="frozen"):
        sentences[0].verdict = "true"  # validated as the model's own: frozen as it is


def test_the_validator_refuses_what_the_constructor_refuses():
    fields = {"kind": "offer", "verdict": "true", "clause": "", "why": "", "message_index": 3, "excerpt": "x",
              "relied_on": False}
    assert _sentences._validated(fields) == ConsequentialSentence(**fields)
    for bad in ({**fields, "kind": "boast"}, {**fields, "extra": 1}, {k: v for k, v in fields.items() if k != "why"}):
        with pytest.raises(ValueError):
            ConsequentialSentence(**bad)
        with pytest.raises(ValueError):
            _sentences._validated(bad)


