"""The record readers' speed-ups (#47, round 4) answer as what they replace: a change named only under a negation
(``_precondition_facts._negated_only``) with the negation's gate as the scan without it, an informational answer
(``_no_write.answer_in``) that skips a message lacking the fact's text as the reading of every sentence, and a
pattern's lowercase twin's matches (``_lowered_search.matches``) as the pattern's own, at the same places."""

from __future__ import annotations

import random
import re

from conversation_reading._evidence import Turn, asks, mentions, read_turns
from conversation_reading._gate import gateable, holds_any
from conversation_reading._lowered_search import ascii_lowered, matches, twin
from conversation_reading._message_scan import changes as _changes
from conversation_reading._no_write import _spoken, _token, anaphoric_in, answer_in
from conversation_reading._precondition_facts import _negated_only
from conversation_reading._units import Units, split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import real_run

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json"]


def _conversations(name: str) -> list[list[Turn]]:
    from tau2.data_model.simulation import Results

    results = Results.model_validate_json(real_run(name).read_text(encoding="utf-8"))
    return [read_turns(list(sim.messages)) for sim in results.simulations[:40]]


def _sentences(role: str) -> list[str]:
    return [s for name in RUNS for turns in _conversations(name) for t in turns if t.role == role
            for s in split_sentences(t.text)]


def test_a_change_under_a_negation_reads_as_the_scan_without_the_negations_gate():
    v = vocabulary()
    changes = _changes(v.requests["update_reservation_flights"].pattern, v.requests["cancel_reservation"].pattern)
    sentences = _sentences("user") + [
        "I don't want to cancel my flight.", "I never asked to change anything.", "Please cancel it.",
        "No, keep it; I won't change the cabin.", "I know I could change it now.", "Cancel it, not the other one.",
        "Ich möchte nicht cancel.", "K\u212aeep it, don't change it.",  # outside ASCII: the gate and the twin pass
    ]
    answers = [_negated_only(changes, s, s.lower(), gateable(s)) for s in sentences]
    assert answers == [changes.search(s) is not None and not mentions(changes, s) for s in sentences]
    assert answers.count(True) >= 3  # a negated change is among them, and so is one the gate skips
    assert any(changes.search(s) and not answer for s, answer in zip(sentences, answers, strict=True))


def _answer_by_every_sentence(turns: list[Turn], facts: list[str]) -> tuple[int, str] | None:
    """``answer_in``'s reading with no message skipped: every sentence of every agent message, for every fact."""
    last = None
    for fact in facts:
        pattern = _token(fact)
        found = next(((t.index, s) for t in _spoken(turns, "assistant")
                      for s in split_sentences(t.text.lower().replace(",", ""))
                      if (m := pattern.search(s)) is not None and not asks(s, m.start())), None)
        if found is None:
            return None
        last = max(last, found) if last else found
    return last


def test_an_informational_answer_skipping_messages_without_the_fact_reads_every_sentence():
    rng = random.Random(47)
    asked = 0
    for name in RUNS:
        for turns in _conversations(name):
            words = sorted({w.strip(".,!?:;()*\"'") for t in _spoken(turns, "assistant") for w in t.text.split()} - {""})
            for _ in range(6):
                facts = rng.sample(words, min(len(words), rng.randint(1, 3))) + rng.choice(
                    [[], ["no such fact"], [str(rng.randint(1, 999))]])
                found = answer_in(turns, facts)
                want = _answer_by_every_sentence(turns, facts)
                assert (found is None) == (want is None), facts
                if found is not None:
                    assert want is not None and found.message_index == want[0], facts
                asked += found is not None
    assert asked > 40


def test_a_twins_matches_are_the_patterns_own_at_the_same_places():
    v = vocabulary()
    patterns = [v.explicit_yes, v.tier_claim, v.false_cabin_rule, v.confirmation_request, v.decline]
    assert all(twin(p) is not None for p in patterns)  # else ``matches`` tests the pattern against itself
    texts = _sentences("assistant") + _sentences("user") + ["I'm a GOLD member, yes, PLEASE go ahead.", "Ça va, yes"]
    seen = 0
    for p in patterns:
        for text in texts:
            got = [(m.start(), m.end(), m.group().lower()) for m in matches(p, text, ascii_lowered(text))]
            assert got == [(m.start(), m.end(), m.group().lower()) for m in p.finditer(text)]
            seen += bool(got)
    assert seen > 50


def test_matches_searches_a_text_outside_ascii_as_it_is():
    pattern = re.compile(r"stra(?:ss|\u00df)e", re.IGNORECASE)
    assert [m.group() for m in matches(pattern, "STRASSE und Stra\u00dfe", None)] == ["STRASSE", "Stra\u00dfe"]
    assert ascii_lowered("Stra\u00dfe") is None and ascii_lowered("STRASSE") == "strasse"


def test_an_anaphoric_decline_read_only_where_the_clause_may_be_declined_is_the_reading_of_every_message():
    """``_no_write.anaphoric_in`` reads an agent message only where ``Units.may_decline`` lets it through (#47, round
    7): on the runs' conversations, every clause's anaphoric decline is the one read from every message, and the gate
    passes over most messages, or it would save nothing."""
    found = skipped = read = 0
    kinds = vocabulary().kinds
    # the runs decline anaphorically on the generic refusal and the basic economy clause in words of the decline
    # class; these on each clause, in the condition class and (an indirect subject's) any decline's words
    said = ["You would get a certificate if you change your flight. This compensation requires that first.",
            "You would get a certificate if you change your flight. This compensation cannot be given otherwise.",
            "You asked to modify a basic economy ticket. This modification is not permitted.",
            "You asked to change the destination of the trip. Such a change is against our policy."]
    made = [[Turn(0, "user", "Hello", ()), Turn(1, "assistant", text, ())] for text in said]
    for turns in [*made, *(turns for name in RUNS for turns in _conversations(name))]:
        agent = [t.text for t in turns if t.role == "assistant"]
        for kind in kinds:
            gated = anaphoric_in(kind, turns, cut := Units())
            assert gated == anaphoric_in(kind, turns, Units(), gated=False), (kind, agent[:1])
            found += gated is not None
            skipped += sum(not cut.may_decline(kinds[kind], text) for text in agent)
            read += len(agent)
    assert found >= 10 and skipped > read / 2


def test_an_anaphoric_decline_read_only_in_messages_declining_in_words_is_the_reading_of_every_message():
    """``anaphoric_in(..., declined=...)`` reads only the agent messages where the clause's declines in words
    (``_evidence._declines_in``, over the same units) found one, as the record passes them (#47): on the runs'
    conversations and made anaphoric declines, every clause's anaphoric decline is the one read from every message,
    and the generic refusal's gate (no subject) lets through messages the hint passes over, or it would save nothing."""
    from conversation_reading._evidence import _declines_in

    kinds = vocabulary().kinds
    said = ["I can't help with that. It is not something I am able to do.",
            "You asked to modify a basic economy ticket. This modification is not permitted.",
            "You asked to change the destination of the trip. Such a change is against our policy."]
    made = [[Turn(0, "user", "Hello", ()), Turn(1, "assistant", text, ())] for text in said]
    found = passed_over = 0
    for turns in [*made, *(turns for name in RUNS for turns in _conversations(name))]:
        for kind in kinds:
            cut = Units()
            declined = {e.message_index for e in _declines_in(kinds[kind], turns, cut=cut) if e.tool_call is None}
            hinted = anaphoric_in(kind, turns, cut, declined=declined)
            assert hinted == anaphoric_in(kind, turns, Units(), gated=False), (kind, turns[1].text[:80])
            found += hinted is not None
            passed_over += sum(t.role == "assistant" and bool(t.text) and t.index not in declined
                               and cut.may_decline(kinds[kind], t.text) for t in turns)
    assert found >= 10 and passed_over > 50


def test_offers_read_only_in_messages_where_one_offer_may_match_are_those_every_message_makes():
    """``_offer_reads.offers_in`` reads an agent message only where one offer's pattern could match it (one gate of
    them all, ``holds_any``): on the runs' conversations and on made offers of each loophole, the offers are those
    read with each offer's own gate alone, and the gate passes over most messages."""
    from conversation_reading._offer_reads import _offered, offers_in
    from conversation_reading._turn_index import TurnIndex

    said = ["I can offer you a travel certificate as a gesture of goodwill.",
            "You could upgrade to economy first, so that you are able to change the flights.",
            "I could cancel this reservation and then book the new flights for you.",
            "Sorry for the trouble. If you change the flight, I can send you a certificate."]
    made = [[Turn(0, "user", "Hello", ()), Turn(1, "assistant", text, ())] for text in said]
    clauses = list(vocabulary().kinds)
    found = skipped = read = 0
    gate = holds_any(_offered(vocabulary()))
    for turns in [*made, *(turns for name in RUNS for turns in _conversations(name))]:
        index = TurnIndex(turns, [])
        offers = offers_in(turns, Units(), index, clauses)
        assert offers == offers_in(turns, Units(), index, clauses, gated=False)
        found += len(offers)
        agent = [t.text for t in turns if t.role == "assistant" and t.text]
        skipped += sum(not gate(text.lower()) for text in agent)
        read += len(agent)
    assert found >= 6 and skipped > read / 2


def test_a_kind_without_other_grounds_declines_as_when_its_empty_pattern_is_scanned():
    """``EvidenceKind.other_grounds`` False skips ``not_the_clause``, ``terms([])``: every kind's decline, direct or
    not, on real agent units, as with the pattern scanned."""
    from dataclasses import replace

    from conversation_reading._evidence import _declines

    kinds = list(vocabulary().kinds.values())
    assert {k.name for k in kinds if not k.other_grounds} >= {"refusal"}
    units = [u for name in RUNS for turns in _conversations(name) for t in turns if t.role == "assistant"
             for u in Units().of(t.text)] + [
        "I cannot offer compensation since your flight was not delayed, unless you change or cancel it.",
        "I'm unable to issue a certificate if you keep the reservation; the flight was on time.",
    ]
    seen = 0
    for kind in kinds:
        scanned = replace(kind, other_grounds=True)
        for direct in (True, False):
            answers = [_declines(kind, u, direct=direct) for u in units]
            assert answers == [_declines(scanned, u, direct=direct) for u in units], (kind.name, direct)
            seen += answers.count(True)
    assert seen >= 10  # declines among them, so the skip is tried where it could change one
