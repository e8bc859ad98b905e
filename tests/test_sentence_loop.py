"""The consequential sentences' loop (``_sentences.consequential_sentences``) cut for speed (#47) answers as before:
each sentence built of its fields (``_record.built``, without validating) is the model its keyword constructor builds, on the
sentences of real conversations."""

from __future__ import annotations

import json

import pytest
from tau2.data_model.simulation import SimulationRun

from conversation_reading import _course, _sentences
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
    """``_course.Course``'s walk as written before its loop (two generators a turn, ``strip()`` for words): the
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
                course = _course.Course(ts, tools.__contains__)
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


def _bag_write_as_read_before(index: int, reply: int, writes: list) -> tuple | None:
    """``_sentences._bag_write`` as written before its loop (``next`` over a generator): the reference."""
    from policy_model import BAG_WRITES

    return next(((w.tool, w.arguments) for w in writes if w.tool in BAG_WRITES and w.message_index >= index
                 and (w.message_index < reply or w.confirmation_index == reply)), None)


def test_the_bag_write_a_message_lists_is_found_as_before(airline_records):
    checked = found = 0
    for record in airline_records:
        end = max([w.message_index for w in record.writes] + [0]) + 3
        for index in range(end):
            for reply in range(index, end + 1):
                expected = _bag_write_as_read_before(index, reply, record.writes)
                assert _sentences._bag_write(index, reply, record.writes) == expected
                checked += 1
                found += expected is not None
    assert checked > 1000 and found >= 20  # messages before a bag write, and ones before none


def test_a_route_is_read_of_the_database_only_where_a_sentence_says_one():
    """The database's model (``_Checker.database``) is built for a sentence saying a route, not for every sentence
    with a "from" (#47); a route said of a reservation against the database is still judged."""
    from conversation_reading._domain import domain_db
    from conversation_reading._route_claims import LED_ROUTE
    from conversation_reading._sentence_facts import _Checker
    from tests.conftest import ROUTE_RUNS, read_sentences

    def unread() -> None:
        raise AssertionError("no state is read for a route")

    db = domain_db("airline")
    plain = [s for s in read_sentences(*ROUTE_RUNS) if "from" in s and not LED_ROUTE.search(s)]
    assert len(plain) >= 50
    for sentence in plain[:200]:
        checker = _Checker(unread, sentence, db)
        _sentences._judge("fact_claim", sentence, checker, figures=False, invents=False)
        assert "database" not in checker.__dict__, sentence
    rid, res = next(iter(db.reservations.items()))
    ends = {res.origin, res.destination}
    wrong = next(a for a in ("JFK", "LAX", "SFO", "ORD", "BOS") if a not in ends)
    other = next(a for a in ("MIA", "SEA", "DEN", "ATL", "PHX") if a not in ends)
    checker = _Checker(unread, f"Reservation {rid} is from {wrong} to {other}.", db)
    verdict = _sentences._judge("fact_claim", f"Reservation {rid} is from {wrong} to {other}.", checker, figures=False,
                                invents=False)
    assert verdict[:2] == ("false", "reservation.route") and "database" in checker.__dict__
