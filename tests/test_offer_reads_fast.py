"""The workaround offers' fast reading (#47 round 13) answers as the reference it skips (``offers_in(..., gated=False)``:
every agent message read, each pattern scanned as it is): an agent message passed over where the record's one scan
(``_message_scan``) finds no rarest word of any offer, and an offer's sentence, its decline and the clauses' conditions
searched by the patterns' lowercase twins (``_lowered_search``), on every conversation of the shared runs and the dev
corpus, and on made ones."""

from __future__ import annotations

import glob
import json
from functools import cache
from typing import Any

from tau2.data_model.simulation import SimulationRun

from conversation_reading._evidence import Turn, read_turns
from conversation_reading._gate import holds_any
from conversation_reading._handling import other_option
from conversation_reading._lowered_search import ascii_lowered
from conversation_reading._offer_reads import _conditions, _offered, _offers, offers_in
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import Units, split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import SHARED

_FILES = [f for p in ("real-runs/*.json", "dev-corpus/runs/*.json", "dev-corpus/other-families/runs/*.json")
          for f in sorted(glob.glob(str(SHARED / p)))]

_SAID = ["I can offer you a travel certificate as a gesture of goodwill.",
         "I CAN OFFER YOU A TRAVEL CERTIFICATE, since the flight was delayed.",
         "You could upgrade to economy first, so that you are able to change the flights.",
         "I could cancel this reservation and then book the new flights for you.",
         "Sorry for the trouble. If you change the flight, I can send you a certificate.",
         "If you cancel the flight, I\u2019m able to issue a voucher \u2014 I cannot offer a refund.",
         "I can\u2019t offer a certificate; I\u2019ll send you a voucher if you change the trip.",
         "I will \u017fend a certificate if you cancel the reservation."]


@cache
def _conversations() -> list[list[Turn]]:
    found = [[Turn(0, "user", "Hello", ()), Turn(1, "assistant", text, ())] for text in _SAID]
    for name in _FILES:
        with open(name, "rb") as fh:
            simulations: list[Any] = json.load(fh).get("simulations") or []
        for raw in simulations:
            try:
                found.append(read_turns(list(SimulationRun.model_validate(raw).messages)))
            except Exception:  # noqa: BLE001, S112 - a simulation tau2 cannot read: not this test's
                continue
    return found


def test_every_conversations_offers_read_fast_are_those_of_the_reference():
    clauses = list(vocabulary().kinds)
    gate = holds_any(_offered(vocabulary()))
    found = conditioned = read = passed_over = 0
    for turns in _conversations():
        offers = offers_in(turns, Units(), TurnIndex(turns, []), clauses)
        assert offers == offers_in(turns, Units(), TurnIndex(turns, []), clauses, gated=False), turns[1].text[:80]
        found += len(offers)
        conditioned += sum(bool(o.conditioned_on or o.own_condition) for o in offers)
        for o in offers:  # the clauses each offer's message conditions, as each list read them on its own before
            units, kinds = Units().of(turns[o.message_index].text), vocabulary().kinds
            tied = [n for n in clauses if any(_conditions(kinds[n], u, None) for u in units)]
            assert o.conditioned_on == (tied if vocabulary().offers[o.loophole_id][o.offer].unless_conditioned_in_message
                                        else [])
            assert o.own_condition == [n for n in clauses if any(_conditions(kinds[n], u, None) and not other_option(u)
                                                                  for u in units)]
        agent = [t.text for t in turns if t.role == "assistant" and t.text]
        read += len(agent)
        passed_over += sum(not gate(text.lower()) for text in agent)
    assert len(_conversations()) > 900 and found >= 100 and passed_over > read / 2
    assert conditioned >= 50  # offers whose message states a clause's condition: the conditions read too


def _offer_messages() -> list[str]:
    """The agent messages one offer's pattern could match (the gate of them all), and each in capitals."""
    gate = holds_any(_offered(vocabulary()))
    texts = [t.text for turns in _conversations() for t in turns if t.role == "assistant" and t.text
             and gate(t.text.lower())]
    return texts + [text.upper() for text in texts[:100]]


def test_an_offers_sentence_searched_by_its_twins_answers_as_searched_as_it_is():
    offers = [offer for held in vocabulary().offers.values() for offer in held]
    made = found = 0
    for s in (s for text in _offer_messages() for s in split_sentences(text)):
        low = ascii_lowered(s)
        for offer in offers:
            answer = _offers(offer, s, low)
            assert answer == _offers(offer, s, None), (offer.what, s)
            made += answer
            found += offer.pattern.search(s) is not None
    assert made >= 40 and found > made  # offers among them, and matches the negation or a decline takes back


def test_a_units_conditions_read_by_the_twins_answer_as_scanned_as_they_are():
    kinds = list(vocabulary().kinds.values())
    units = [u for text in _offer_messages() for u in Units().of(text)]
    held = 0
    for u in units:
        low = ascii_lowered(u)
        for kind in kinds:
            answer = _conditions(kind, u, low)
            assert answer == _conditions(kind, u, None), (kind.name, u)
            held += answer
    assert len(units) > 1000 and held >= 20
