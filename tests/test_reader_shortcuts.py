"""The readers' shortcuts above the cut (#47 round 6) answer as the paths they skip: the requests read stops once
every write was asked for, and the payment clauses blanked once a reading are those blanked outside one (and
dropped with it: nothing keyed on a conversation's text outlives its record)."""

from __future__ import annotations

from pathlib import Path

from tau2.data_model.simulation import Results

from conversation_reading import _requests
from conversation_reading._evidence import mentions, read_turns
from conversation_reading._units import Units
from conversation_reading._vocabulary import vocabulary
from policy_model import COMPENSATION_TOOL
from tests.conftest import SHARED, real_run

FILES = [real_run("whissle_airline_tau3_1trial.json"), real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
         *sorted((SHARED / "dev-corpus" / "runs").glob("*retail*.json"))[:1]]


def _conversations() -> list[list]:
    return [list(s.messages) for f in FILES
            for s in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations]


def _requests_unskipped(turns, is_write) -> dict[str, int]:
    """The first user message asking for each write, every message and word read: no gate, no early stop."""
    found: dict[str, int] = {}
    for t in turns:
        if t.role != "user" or not t.text.strip():
            continue
        for tool, pattern in vocabulary().requests.items():
            if not is_write(tool) or tool in found or pattern.search(t.text) is None:
                continue
            if mentions(pattern, _requests._without_payment(t.text) if tool == COMPENSATION_TOOL else t.text):
                found[tool] = t.index
    return found


def test_user_requests_answer_as_reading_every_message():
    writes = {"book_reservation", "cancel_reservation", "update_reservation_flights", "update_reservation_baggages",
              "update_reservation_passengers", "send_certificate", "exchange_delivered_order_items",
              "cancel_pending_order", "return_delivered_order_items", "modify_pending_order_items"}
    seen = every = 0
    for messages in _conversations():
        turns = read_turns(messages)
        for is_write in (writes.__contains__, {"send_certificate", "cancel_reservation"}.__contains__):
            with _requests.reading_payments():
                got = {q.tool: q.message_index for q in _requests.user_requests(turns, Units(), is_write)}
            assert got == _requests_unskipped(turns, is_write)
            seen += bool(got)
            every += len(got) == sum(map(is_write, vocabulary().requests))
    assert seen > 20 and every > 0  # conversations that ask for writes, some for every one (the stop is taken)


def test_payment_clauses_blanked_once_a_reading_as_outside_one_and_dropped_with_it():
    texts = [t.text for messages in _conversations() for t in read_turns(messages)
             if t.role == "user" and "certificate" in t.text.lower()]
    assert texts and any(_requests._without_payment(x) != x for x in texts)
    outside = [_requests.without_payment(x) for x in texts]
    with _requests.reading_payments():
        inside = [_requests.without_payment(x) for x in texts]
        assert _requests._WITHOUT_PAYMENT.held and len(_requests._WITHOUT_PAYMENT.held[-1]) == len(set(texts))
    assert inside == outside == [_requests._without_payment(x) for x in texts]
    assert _requests._WITHOUT_PAYMENT.held == []  # dropped with the reading


def test_the_claim_kinds_one_scan_rules_out_only_kinds_whose_gates_fail():
    from conversation_reading._claim_scan import scanned_kinds

    kinds, scan = scanned_kinds()
    passed = ruled_out = 0
    for messages in _conversations():
        for t in read_turns(messages):
            if t.role != "assistant" or not t.text:
                continue
            for text in (t.text, *(s for s in t.text.split(". "))):
                lowered = text.lower()
                bits = scan(lowered)
                for _kind, _checker, _needed, may, mine in kinds:
                    if may(lowered):
                        assert bits & mine, (_kind.name, text)  # the scan never rules out a kind whose gate holds
                        passed += 1
                    else:
                        ruled_out += not bits & mine
    assert passed > 100 and ruled_out > 1000  # both ways taken: kinds let through, most ruled out by the scan


def test_asks_confirmation_answers_as_the_catalog_pattern_searched():
    from conversation_reading._replies import asks_confirmation

    pattern = vocabulary().confirmation_request
    texts = [t.text for messages in _conversations() for t in read_turns(messages) if t.role == "assistant" and t.text]
    texts += ["Shall I PROCEED?", "Is THAT correct\u2014K\u212a?", "\u0130s this right?", "Is this right \u2713", "ok, noted"]
    asked = 0
    for text in texts:
        expected = pattern.search(text) is not None
        assert asks_confirmation(text) == asks_confirmation(text, text.lower()) == expected, text
        asked += expected
    assert 0 < asked < len(texts) // 2  # both answers taken: most messages ask for no confirmation


def test_the_flight_numbers_a_quoted_total_reads_are_the_patterns_findall():
    import re

    from conversation_reading._claims import _flight_numbers_in

    texts = [t.text for messages in _conversations() for t in read_turns(messages) if t.text]
    texts += ["hat170 or HAT170, Hat171 (HAT0221) HAT172\u00e9 caf\u00e9HAT173", "flights hat001 and HAT002"]
    found = 0
    for text in texts:
        assert _flight_numbers_in(text) == re.findall(r"\b[A-Z]{3}\d{3}\b", text), text
        found += bool(_flight_numbers_in(text))
    assert found > 100


def test_a_sentence_scan_behind_its_gate_answers_as_the_pattern_searched():
    import re

    from conversation_reading import _sentence_facts, _sentences, _worth_reading
    from conversation_reading._lowered_search import ascii_lowered, scans
    from conversation_reading._units import split_sentences

    patterns = [p for module in (_sentences, _sentence_facts, _worth_reading) for p in vars(module).values()
                if isinstance(p, re.Pattern)]
    patterns += [*_sentences._GENERAL_RULES.values(), *_sentence_facts._CABINS.values()]
    sentences = [s for messages in _conversations()[:120] for t in read_turns(messages) if t.role == "assistant"
                 for s in split_sentences(t.text)]
    sentences += ["Your Compensation IS a certificate.", "\u0130f you CHANGE it", "caf\u00e9: cancel? Business class"]
    found = 0
    for s in sentences:
        low = ascii_lowered(s)
        for p in patterns:
            expected = p.search(s) is not None
            assert scans(p, s, low) == expected, (p.pattern, s)
            found += expected
    assert len(patterns) > 30 and found > 1000


def test_a_sentences_act_and_main_clause_behind_their_gates_are_the_patterns_own():
    from conversation_reading import _sentence_kinds, _sentences
    from conversation_reading._lowered_search import ascii_lowered, searched
    from conversation_reading._units import split_sentences

    sentences = [s for messages in _conversations()[:120] for t in read_turns(messages) if t.role == "assistant"
                 for s in split_sentences(t.text)]
    sentences += ["Since it's Basic, I CAN Cancel it, AS LONG AS none has flown.", "\u0130 can cancel it provided that"]
    acts = cut = 0
    for s in sentences:
        low = ascii_lowered(s)
        act, expected = _sentences._offered_act(s, low), _sentence_kinds._OPTION.match(s) or _sentences._ACT.search(s)
        assert (act and (act.span(), act.group(1))) == (expected and (expected.span(), expected.group(1))), s
        assert searched(_sentences._ACT, s, low).__class__ is _sentences._ACT.search(s).__class__
        main = _sentences._PROVISO.sub("", _sentences._REASON.sub("", s))
        assert _sentences._main_clause(s, low) == main, s
        acts += act is not None
        cut += main != s
    assert acts > 50 and cut > 5


def test_a_messages_flight_numbers_found_once_a_reading_as_outside_one_and_dropped_with_it():
    import re

    from conversation_reading import _claims

    texts = [t.text for messages in _conversations() for t in read_turns(messages) if t.role == "assistant" and t.text]
    assert sum(bool(re.findall(r"\b[A-Z]{3}\d{3}\b", x)) for x in texts) > 20
    with _claims.reading_flights():
        inside = [list(_claims._MESSAGE_FLIGHTS(x)) for x in texts + texts]  # the second time, as held
        assert len(_claims._MESSAGE_FLIGHTS.held[-1]) == len(set(texts))
    assert inside == [re.findall(r"\b[A-Z]{3}\d{3}\b", x) for x in texts + texts]
    assert _claims._MESSAGE_FLIGHTS.held == []  # dropped with the reading


def test_a_total_less_a_booked_fare_found_by_bisection_answers_as_every_pair_tested():
    import random

    from conversation_reading._fare_totals import _differs_by

    rng = random.Random(47)
    found = 0
    for _ in range(3000):
        totals = {round(rng.uniform(-50, 3000), rng.choice([0, 1, 2])) for _ in range(rng.randint(0, 40))}
        booked = {round(rng.uniform(-20, 1500), rng.choice([0, 2])) for _ in range(rng.randint(0, 8))} | {0.0}
        pairs = [(x, b) for x in totals for b in booked]
        x, b = rng.choice(pairs) if pairs else (0.0, 0.0)
        # the quote at a difference, a cent off it either way, just inside and outside, or anywhere
        quoted = rng.choice([x - b, x - b + 0.01, x - b - 0.01, x - b + 0.0099, x - b - 0.0101, rng.uniform(0, 3000),
                             1e20, float("inf")])
        expected = any(abs(quoted - (x - b)) < 0.01 for x in totals for b in booked if 0 < b < x)
        assert _differs_by(quoted, totals, booked) == expected, (quoted, sorted(totals), sorted(booked))
        found += expected
    assert 300 < found < 2700  # both answers taken
