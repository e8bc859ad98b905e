"""The consequential sentences' loop (``_sentences.consequential_sentences``) cut for speed (#47) answers as before:
each sentence built of its fields (``_record.built``, without validating) is the model its keyword constructor builds, on the
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


def _course_as_read_before(turns: list, is_write) -> tuple[list, list, int, int]:
    """``_sentences._Course``'s walk as written before its loop (two generators a turn, ``strip()`` for words): the
    reference its answers are tested against."""
    n = len(turns)
    said_from, writes_from, first_write, acted_after = [None] * (n + 1), [n] * (n + 1), n, -1
    said, written = None, n
    for at in range(n - 1, -1, -1):
        t = turns[at]
        if t.calls:
            writes = any(is_write(c.name) for c in t.calls)
            if writes:
                first_write = t.index
                if t.role == "assistant":
                    written = at
            if acted_after < 0 and (writes or any(c.name == "transfer_to_human_agents" for c in t.calls)):
                acted_after = t.index
        if t.role == "user" and t.text.strip():
            said = t
        said_from[at], writes_from[at] = said, written
    return said_from, writes_from, first_write, acted_after


def test_the_course_of_a_conversation_is_walked_as_before():
    from conversation_reading._evidence import Turn
    from tests.conftest import read_conversations

    tools = write_tools("airline")
    checked = acted = 0
    for name in ("whissle_airline_tau3_1trial.json", "aide_claude-sonnet-4-5_airline_tau2_1trial.json"):
        for turns, _messages in read_conversations(name):
            # blank user texts too (" ", "\n\t", "\u2003": no words), which the real runs rarely hold
            edited = [*turns, *(Turn(len(turns) + i, "user", text, ()) for i, text in enumerate((" ", "\n\t", "\u2003")))]
            for ts in (turns, edited):
                course = _sentences._Course(ts, tools.__contains__)
                assert (course._said_from, course._writes_from, course.first_write, course.acted_after) == \
                    _course_as_read_before(ts, tools.__contains__)
                checked += 1
                acted += course.acted_after >= 0
    assert checked >= 100 and acted >= 20  # conversations that write or transfer, and ones that do not


def test_a_sentence_a_false_claim_covers_takes_the_first_such_claims_reliance(airline_records):
    """A sentence read false by a claim kind's checker (clause "claim") is relied on as the first false claim of its
    message (one a message and excerpt, the last read) whose excerpt's start lies in the sentence's (a loop, #47)."""
    checked = 0
    for record in airline_records:
        by_key = {(c.message_index, c.excerpt[:60]): c.relied_on for c in record.claims if c.false}
        for s in record.sentences:
            if s.clause != "claim":
                continue
            expected = next(on for (i, e), on in by_key.items() if i == s.message_index and e[:40] in s.excerpt)
            assert s.relied_on == expected, s
            checked += 1
    assert checked >= 3
