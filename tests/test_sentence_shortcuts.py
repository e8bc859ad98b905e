"""The consequential sentences' speed-ups (#47) answer as what they replace: an itinerary figure asked one amount
at a time (``_itinerary_figures.Itineraries.holds``) as membership in every figure listed, a known figure reckoned
plain first (``_known_figures``) as membership in them all, a statement's one gate (``_sentence_kinds._STATEMENT_WORDS``),
``stated_free``'s bag gate, the hypothetical markers' gate, invented policy's gate and a reply's agreement gate as
the scans behind them, and the flight numbers said, read on from an earlier message's, as a reading from the
conversation's start; a message's worth and a reply's yes read once as read afresh."""

from __future__ import annotations

import dataclasses
import json
import random
import re

import pytest

from conversation_reading import _bag_fees, _sentence_kinds, _sentences
from conversation_reading._claims import _FLIGHT_NO
from conversation_reading._domain import domain_db
from conversation_reading._flights_named import said_numbers
from conversation_reading._gate import holds, needs, scanned_each
from conversation_reading._itinerary_figures import Itineraries
from conversation_reading._normalise import normalise
from conversation_reading._sentence_facts import _Checker
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import real_run


def _search_results(db, count: int, rng: random.Random) -> dict[str, dict]:
    """``count`` flights of the domain's database as a search returns them: each with one date's prices."""
    found = {}
    numbers = sorted(db.flights)
    for number in rng.sample(numbers, len(numbers)):
        dates = db.flights[number].model_dump()["dates"]
        priced = [d for d in dates.values() if d.get("prices")]
        if priced:
            found[number] = {"flight_number": number, "prices": priced[0]["prices"]}
        if len(found) == count:
            break
    return found


def test_an_itinerary_figure_is_asked_as_membership_in_every_figure():
    db = domain_db("airline")
    rng = random.Random(47)
    reservations = [r.model_dump() for r in db.reservations.values()]
    checked = {True: 0, False: 0}
    for case in range(12):
        flights = _search_results(db, rng.randint(0, 8), rng)
        held = rng.sample(reservations, rng.randint(0, 3))
        if case % 4 == 0 and held:
            held[0]["flights"][0]["price"] = 0.1 + 0.2  # a price off the cent grid: the rounding is the set's
        itineraries = Itineraries(list(flights), flights, held)
        figures = itineraries.figures()
        listed = sorted(figures)
        amounts = rng.sample(listed, min(150, len(listed)))
        amounts += [a + d for a in rng.sample(listed, min(100, len(listed))) for d in (0.01, -0.01, 0.005, -0.004, 0.5)]
        amounts += [rng.uniform(0, 5000) for _ in range(200)] + [float(rng.randint(0, 5000)) for _ in range(200)]
        for amount in amounts:
            answer = Itineraries(list(flights), flights, held).holds(amount)
            assert answer == (round(amount, 2) in figures), (case, amount)
            assert itineraries.holds(amount) == answer  # asked again: the same answer
            checked[answer] += 1
    assert checked[True] > 1000 and checked[False] > 1000


def _agent_sentences() -> list[tuple[str, bool]]:
    """Every agent sentence of a real run, with whether the decline's gate holds on its message."""
    raw = json.loads(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text(encoding="utf-8"))
    gate = needs(vocabulary().decline)
    out = []
    for sim in raw["simulations"]:
        for m in sim["messages"]:
            if m.get("role") == "assistant" and isinstance(m.get("content"), str):
                text = normalise(m["content"]).text
                declines = holds(gate, text.lower())
                out += [(s, declines) for s in split_sentences(text)]
    return out


class _Everything:
    def __contains__(self, item: object) -> bool:
        return True


class _Open:
    @staticmethod
    def check(lowered: str) -> bool:
        return True


def test_a_statements_one_gate_and_the_bag_gate_answer_as_the_scans(monkeypatch):
    sentences = _agent_sentences()
    decline = vocabulary().decline
    gate = needs(decline)
    assert len(sentences) > 1000
    gated = [_sentence_kinds.kind(s, decline, gate, declines) for s, declines in sentences]
    free = [_bag_fees.stated_free(s) for s, _ in sentences]
    hypothetical = [_sentences._words(s, vocabulary().hypothetical) for s, _ in sentences]
    declining = [_sentences._declines(s) for s, _ in sentences]
    monkeypatch.setattr(_sentence_kinds, "_STATEMENT_SCAN", lambda lowered: -1)
    # every gate of ``kind`` open: an option tried on every line (its first character's test too), each pattern and
    # the decline scanned
    monkeypatch.setattr(_sentence_kinds, "_OPTION_OPENS", _Everything())
    monkeypatch.setattr(_sentence_kinds, "may_match", lambda pattern, lowered, gated: True)
    monkeypatch.setattr(_sentence_kinds, "holds", lambda requirements, lowered: True)
    monkeypatch.setattr(_sentence_kinds, "needs", lambda pattern: _Open())
    monkeypatch.setattr(_sentence_kinds, "found", lambda pattern, text, lowered: pattern.search(text) is not None)
    monkeypatch.setattr(_sentences, "may_match", lambda pattern, lowered, gated: True)
    monkeypatch.setattr(_bag_fees, "may_match", lambda pattern, lowered, gated: True)
    assert [_sentence_kinds.kind(s, decline, gate, declines) for s, declines in sentences] == gated
    assert [_bag_fees.stated_free(s) for s, _ in sentences] == free
    assert [_sentences._words(s, vocabulary().hypothetical) for s, _ in sentences] == hypothetical
    assert 0 < hypothetical.count(True) < len(sentences) / 2
    assert [_sentences._declines(s) for s, _ in sentences] == declining and 0 < declining.count(True)
    # the gate rules most sentences out, and what it lets through still takes each kind
    assert {None, "fact_claim", "rule_claim", "offer", "promise", "confirmation_request"} <= set(gated)
    assert gated.count(None) > len(gated) / 3


def test_a_statements_one_scan_lets_through_each_pattern_wherever_its_gate_does_and_rules_most_sentences_out():
    sentences = [s.lower() for s, _ in _agent_sentences()]
    patterns = _sentence_kinds._STATEMENT_WORDS
    scanned = [_sentence_kinds._STATEMENT_SCAN(s) for s in sentences]
    for i, pattern in enumerate(patterns):  # a necessary condition of each pattern's whole gate
        assert all(bits & 1 << i for s, bits in zip(sentences, scanned, strict=True) if holds(needs(pattern), s))
    assert 0 < scanned.count(0) and len(sentences) - scanned.count(0) < len(sentences) / 2
    # what a promise or an offer is of rules out some that hold their own words (the kind test, above, agrees)
    k = _sentence_kinds
    assert any(bits & k._OFFERS and not bits & k._OFFERED for bits in scanned)
    assert any(bits & k._PROMISES and not bits & k._PROMISED for bits in scanned)
    # a word of a pattern's rarest requirement is enough ("zzqq", not "zz"); a pattern that needs nothing: every text
    two = scanned_each((re.compile(r"\bshall I\b", re.I), re.compile(r"zz(?:qq|xx)")))
    assert (two("so shall i go"), two("so zz it is"), two("zzxx, shall i"), two("")) == (1, 0, 3, 0)
    assert scanned_each((re.compile(r"\d+"), re.compile("ab")))("no digits here") == 1


@pytest.mark.parametrize("tail", ["", "\nXYZ123 then ABC456", "\nand ABC456", "ABC456 glued on", " DEF789", "0 cut"])
def test_the_flight_numbers_said_read_on_are_those_read_from_the_start(tail):
    shared: dict = {}  # one conversation's
    said = "\nI fly HAT170 and HAT022\nBooked: HAT0221 and AB1234 or XHAT17 or HAT17"  # "0 cut": HAT170 across the cut
    assert said_numbers(shared, said, None) == _FLIGHT_NO.findall(said)
    longer = said + tail
    assert said_numbers(shared, longer, None) == _FLIGHT_NO.findall(longer)
    other = "\nHAT999 only"  # no longer what was read before: read from the start
    assert said_numbers(shared, other, None) == ["HAT999"]


@pytest.mark.parametrize("text", ["I fly HAT170, HAT022 and XHAT17 (HAT0221)", "caf\u00e9HAT170 and \u00e9 HAT022",
                                  "HAT17\u0663 or HAT170\u00e9 or \u00c9HAT170", "HAT170_ HAT171"])
def test_the_flight_numbers_of_an_ascii_text_are_read_in_ascii_mode_as_the_pattern_reads_them(text):
    """``_flight_numbers_in`` reads an ASCII text in ASCII mode: the pattern's own answer there; a text outside ASCII
    (a letter or digit ASCII mode would not take for one) as the pattern reads it."""
    from conversation_reading._claims import _flight_numbers_in

    for pos in range(len(text) + 1):
        assert _flight_numbers_in(text, pos) == _FLIGHT_NO.findall(text, pos), pos


def test_a_known_figure_reckoned_plain_first_is_one_of_every_figure():
    from tau2.data_model.simulation import Results

    from conversation_reading._conversation_state import _states
    from conversation_reading._evidence import read_turns
    from conversation_reading._known_figures import KnownFigures, _cents
    from policy_model import AirlinePolicy

    results = Results.model_validate_json(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text())
    rng = random.Random(47)
    answers = {"plain": 0, "left": 0, "model": 0, "none": 0}
    for sim in results.simulations[:25]:
        messages = list(sim.messages)
        states = _states(read_turns(messages), messages, "airline")
        read = list({id(s.reservations): s for s in states}.values())  # one state of each set of records read
        # and the first with balances off the cent grid (a gift card, a certificate): what is left to pay of a figure
        # then rounds to a cent up to half a cent from the figure less the balance
        user = {"payment_methods": {"gift_card_1": {"source": "gift_card", "amount": 0.1 + 0.2},
                                    "gift_card_2": {"source": "gift_card", "amount": 40.0049},
                                    "certificate_3": {"source": "certificate", "amount": 100.0051}}}
        for state in [*read, dataclasses.replace(read[-1], user=user)]:
            policy = AirlinePolicy(domain_db("airline"), state.now)
            known = KnownFigures(state, policy, {})
            reference = KnownFigures(state, policy, {})
            reference._records = reference._plain_figures()
            plain, every = _cents(reference._records), _cents(reference._every_figure())
            assert plain <= every
            # what is left to pay of a figure (``modelled`` finds it by the figure's place): not the model's own
            _, model, top, applied = reference._parts()
            left = every - plain - _cents(model) - _cents(reference._balance_sums())
            amounts = [*rng.sample(sorted(every), min(60, len(every))), *(rng.uniform(0, 3000) for _ in range(40))]
            amounts += [a + d for a in rng.sample(sorted(left), min(20, len(left)))
                        for d in (0, 0.004, -0.004, 0.005, -0.005, 0.006, -0.006, 0.01, -0.01)]
            amounts += [t - a for t in top for a in applied if t - a <= 0][:20]  # none left to pay: no figure
            for amount in amounts:
                answer = amount in known
                assert answer == (round(amount, 2) in every), amount
                answers["plain" if round(amount, 2) in plain else "left" if round(amount, 2) in left else
                        "model" if answer else "none"] += 1
            known.derived.add(12345.67)  # a figure a true sentence gave
            assert 12345.67 in known and 12345.671 in known and 12345.68 not in known
    assert min(answers.values()) > 50, answers


def test_a_figure_asked_plain_then_of_the_itineraries_then_of_the_model_answers_as_known_or_itinerary():
    """``_Checker.given`` (the plain figures, the itineraries', then the model's) answers as ``known(a) or
    itinerary_figure(a)``, membership in every figure of either (which the tests above hold them to)."""
    from tau2.data_model.simulation import Results

    from conversation_reading._conversation_state import _states
    from conversation_reading._evidence import read_turns
    from conversation_reading._known_figures import _cents

    results = Results.model_validate_json(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text())
    rng = random.Random(47)
    db = domain_db("airline")
    answers = {"plain": 0, "itinerary": 0, "model": 0, "none": 0}
    for sim in results.simulations[:12]:
        messages = list(sim.messages)
        states = _states(read_turns(messages), messages, "airline")
        for state in {(id(s.reservations), id(s.flights)): s for s in states}.values():
            reference = _Checker(lambda state=state: state, "", db)
            figures = reference.known_figures()
            figures.plain(0.0)  # builds the plain figures
            plain = figures._plain or set()
            model = _cents(figures._every_figure()) - plain
            reference.itinerary_figure(0.0)
            assert reference._itineraries is not None
            itinerary = reference._itineraries.figures()
            pool = sorted(model | itinerary)
            amounts = [*rng.sample(pool, min(60, len(pool))), *(rng.uniform(0, 3000) for _ in range(30)),
                       *(float(rng.randint(0, 3000)) for _ in range(30))]
            asked = _Checker(lambda state=state: state, "", db)  # asked one after another, as a message's sentences
            for amount in amounts:
                at = round(amount, 2)
                assert asked.given(amount) == (at in plain or at in model or at in itinerary), amount
                answers["plain" if at in plain else "itinerary" if at in itinerary else "model" if at in model
                        else "none"] += 1
    assert min(answers.values()) > 20, answers


def test_invention_behind_its_gate_answers_as_its_finders():
    from conversation_reading._invented_policy import insurance_waiver, invented, invention

    sentences = [s for s, _ in _agent_sentences()]
    sentences += ["A supervisor may be able to make an exception for you.",
                  "Our loyalty team can upgrade your membership status to gold.",
                  "As a gold member you get $100 in compensation, for gold members only.",
                  "Your travel insurance will waive the change fees for this flight.",
                  "I cannot make an exception to the policy.", "The fare is $120, and Silver members pay it too.",
                  "Gold members receive a $50 voucher.", "For gold members: $100 certificates, compensat\u0131on."]
    answers = [invention(s) for s in sentences]
    assert answers == [invented(s) or insurance_waiver(s) for s in sentences]
    assert sum(a is not None for a in answers) >= 4


def test_a_reply_the_agreement_gate_rules_out_does_not_agree():
    from conversation_reading._replies import agrees, may_agree

    raw = json.loads(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text(encoding="utf-8"))
    replies = [m["content"] for sim in raw["simulations"] for m in sim["messages"]
               if m.get("role") == "user" and isinstance(m.get("content"), str)]
    replies += ["Yes, please go ahead.", "No, don't do that.", "OK", "Hmm, what are my options?"]
    gated = [may_agree(r) for r in replies]
    assert all(may for may, r in zip(gated, replies, strict=True) if agrees(r))  # a necessary condition
    assert gated.count(False) > len(replies) / 5 and any(agrees(r) for r in replies)


def test_the_states_parse_only_the_tool_results_they_read(monkeypatch):
    from tau2.data_model.simulation import Results

    from conversation_reading import _conversation_state
    from conversation_reading._evidence import read_turns

    results = Results.model_validate_json(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text())
    conversations = [(read_turns(list(sim.messages)), list(sim.messages)) for sim in results.simulations[:30]]
    gated = [_conversation_state._states(turns, messages, "airline") for turns, messages in conversations]
    monkeypatch.setattr(_conversation_state, "_read_by_state", lambda name: True)
    every = [_conversation_state._states(turns, messages, "airline") for turns, messages in conversations]
    assert gated == every
    assert any(s.reservations and s.user and s.flights for states in gated for s in states)


def test_a_route_said_is_checked_against_the_database_without_the_state_read():
    """A reservation's route is true or not whatever was read (``route_claim`` over the database's record): the
    sentence's check builds no state of the conversation, and says what the database says."""
    db = domain_db("airline")
    res = next(iter(db.reservations.values()))
    rid, origin, destination = res.reservation_id, res.origin, res.destination
    other = next(code for code in ("JFK", "SEA", "ORD", "BOS") if code not in (origin, destination))

    def unread() -> None:
        raise AssertionError("the state was built")

    said = {f"Reservation {rid} is from {origin} to {destination}.": "read_elsewhere",
            f"Reservation {rid} is from {other} to {destination}.": "false",
            f"Reservation {rid} goes from {destination} to {origin}.": "read_elsewhere"}
    for sentence, verdict in said.items():
        checker = _Checker(unread, sentence, db)  # type: ignore[arg-type]
        found = _sentences._judge("fact_claim", sentence, checker)
        assert found[0] == verdict, (sentence, found)
    assert _sentences._judge("fact_claim", f"Reservation {rid} is from {other} to {destination}.",
                             _Checker(unread, "", db))[1] == "reservation.route"  # type: ignore[arg-type]


def test_the_rule_pattern_spelt_whole_matches_as_before_and_its_gate_needs_its_own_words():
    """``_RULE`` spells "let you" and "allow you to" whole: the same matches as ``lets? you`` and ``allows? you to``
    (the former spelling, here), and a gate whose first scan needs its words, not any " you"."""
    from conversation_reading._sentence_facts import _RULE

    former = re.compile(r"\b(?:allowed|permitted|possible|impossible|eligible|ineligible|entitled|qualif\w+|required|"
                        r"requires?|must|policy|policies|waive\w*|covered|exception|non-?refundable|not able|unable|"
                        r"cannot|can't|can not|you can|you could|you may|you(?:'re| are) able to|allows? you to|"
                        r"lets? you)\b", re.IGNORECASE)
    sentences = [s for s, _ in _agent_sentences()]
    sentences += ["It lets you change it.", "This LET YOU pick.", "That allows you to cancel.", "It allow you to.",
                  "lets  you", "letsyou", "outlets you", "You're able to", "you are able to", "Thank you for waiting."]
    assert [_RULE.search(s) is not None for s in sentences] == [former.search(s) is not None for s in sentences]
    from conversation_reading._gate import _words_in

    scanned = _words_in(needs(_RULE)[0])  # the words one of which the gate's first scan must find
    assert " you" not in scanned and {"let you", "lets you", "allow you to"} <= scanned
    assert holds(needs(_RULE), "it lets you change it.")


def test_the_flight_numbers_of_an_ascii_text_are_those_the_unicode_pattern_finds_from_any_start():
    """``_flight_numbers_in``'s pattern for ASCII text (opening with the capital, its boundary checked behind it)
    finds what ``_FLIGHT_NO`` finds: over what was said before each message of two runs, from the start and from
    each message's start and a few places inside words (the reading on from an earlier message's numbers)."""
    from conversation_reading._claims import _FLIGHT_NO_ASCII, _flight_numbers_in

    rng = random.Random(47)
    found = tried = 0
    for run in ("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json"):
        raw = json.loads(real_run(run).read_text(encoding="utf-8"))
        for sim in raw["simulations"]:
            said, starts = "", [0]
            for m in sim["messages"]:
                if m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str):
                    said += "\n" + normalise(m["content"]).text
                    starts.append(len(said))
            said += " XHAT170 HAT1701 hat170 _HAT170 HAT170_ (HAT170) HAT17 0HAT170 HAT170."
            if not said.isascii():
                continue
            for pos in [*starts, *(rng.randrange(len(said)) for _ in range(20))]:
                numbers = _flight_numbers_in(said, pos)
                assert numbers == _FLIGHT_NO.findall(said, pos) == _FLIGHT_NO_ASCII.findall(said, pos), pos
                found, tried = found + len(numbers), tried + 1
    assert tried > 1000 and found > 5000


def test_the_decline_bits_of_the_agents_one_scan_rule_out_a_message_only_where_the_decline_gate_does(monkeypatch):
    """``consequential_sentences`` tests the decline's gate on a message only where the record's one scan of the
    agent's messages (``_message_scan``) found a rarest word of it: a necessary condition of the gate, so the same
    answer; and the sentences read with the scan ruling nothing out are the same."""
    from tau2.data_model.simulation import SimulationRun

    from conversation_reading._message_scan import gate_of
    from conversation_reading._reading import conversation_record
    from conversation_reading._turn_index import TurnIndex
    from gold_variants.readings._base import write_tools

    decline = vocabulary().decline
    gate, (scan, bits) = needs(decline), gate_of(decline, "assistant")
    texts = [s for s, _ in _agent_sentences()]  # each sentence as a message of its own, and each message whole
    raw = json.loads(real_run("whissle_airline_tau3_1trial.json").read_text(encoding="utf-8"))
    texts += [normalise(m["content"]).text for sim in raw["simulations"] for m in sim["messages"]
              if m.get("role") == "assistant" and isinstance(m.get("content"), str)]
    held = [holds(gate, t.lower()) for t in texts]
    assert [bool(scan(t.lower()) & bits) and h for t, h in zip(texts, held, strict=True)] == held
    assert 0 < held.count(True) and sum(not scan(t.lower()) & bits for t in texts) > len(texts) / 4
    conversations = [list(SimulationRun.model_validate(sim).messages) for sim in raw["simulations"][:30]]
    tools = write_tools("airline")
    sentences = [conversation_record(m, "airline", tools.__contains__).sentences for m in conversations]
    monkeypatch.setattr(TurnIndex, "scanned", lambda self, text, scan: -1)
    assert [conversation_record(m, "airline", tools.__contains__).sentences for m in conversations] == sentences
    assert sum(s.kind == "decline" for found in sentences for s in found) > 3


def test_a_messages_worth_and_a_replys_yes_read_once_answer_as_read_afresh():
    """``_worth_reading`` over the record's lowercase of the message (``TurnIndex.lowered``) answers as over the
    text lowered afresh, and ``_agreed`` (``agrees`` alone, its own gate inside) as the agreement gate then
    ``agrees``, on real conversations and on texts the gate does not apply to."""
    from tau2.data_model.simulation import Results

    from conversation_reading._evidence import Turn, read_turns
    from conversation_reading._gate import gateable
    from conversation_reading._replies import agrees, may_agree
    from conversation_reading._turn_index import TurnIndex

    results = Results.model_validate_json(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text())
    worth = agreed = 0
    for sim in results.simulations[:40]:
        turns = read_turns(list(sim.messages))
        # the long s, which the case-insensitive scan folds to "s": a text the gate does not apply to
        extra = [Turn(len(turns), "assistant", "Your travel in\u017furance covers it.", ()),
                 Turn(len(turns) + 1, "user", "\u0130 agree, yes please.", ()), Turn(len(turns) + 2, "user", "No, yes.", ())]
        index = TurnIndex([*turns, *extra], ())
        for t in [*turns, *extra]:
            if t.role == "assistant" and t.text:
                for follows in (False, True):
                    answer = _sentences._worth_reading(t.text, follows, *index.lowered(t.text))
                    assert answer == _sentences._worth_reading(t.text, follows, t.text.lower(), gateable(t.text))
                    worth += answer
            elif t.role == "user":
                answer = _sentences._agreed(t, {})
                assert answer == (may_agree(t.text) and agrees(t.text)), t.text
                agreed += answer
    assert worth > 10 and agreed > 10  # both answers taken


def test_a_decline_spelt_with_a_dotless_i_is_a_decline_as_its_pattern_reads_it():
    """The decline's gate rules a message or a sentence out only where it applies (``gateable``): a dotless i
    (which normalisation keeps) matches the pattern's "i" case-insensitively, but its lowercase is not "i", so the
    gate's words ("ineligible", "is not possible") are not in it. Such a decline is a decline, in a sentence and in
    a conversation's record, as the pattern alone reads it."""
    from tau2.data_model.simulation import SimulationRun

    from conversation_reading._reading import conversation_record
    from gold_variants.readings._base import write_tools

    decline = vocabulary().decline
    gate = needs(decline)
    declining = [s for s, on in _agent_sentences() if _sentence_kinds.kind(s, decline, gate, on) == "decline"]
    assert len(declining) > 10
    dotless = [s.replace("i", "\u0131") for s in declining]
    assert all(decline.search(s) for s in dotless) and sum(not holds(gate, s.lower()) for s in dotless) > 3
    assert [_sentence_kinds.kind(s, decline, gate, True) for s in dotless] == ["decline"] * len(dotless)
    # a message the record reads (an exception named) whose one decline is spelt so (each gate word of it has an "i")
    raw = json.loads(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text(encoding="utf-8"))
    tools = write_tools("airline")
    kinds = {}
    for i in ("i", "\u0131"):
        sim = SimulationRun.model_validate(raw["simulations"][4])
        sim.messages[2].content = f"I'm sorry, but that {i}s not poss{i}ble for this reservation, even as an exception."
        record = conversation_record(list(sim.messages), "airline", tools.__contains__)
        kinds[i] = [(s.message_index, s.kind) for s in record.sentences]
    assert not holds(gate, "that \u0131s not poss\u0131ble") and (2, "decline") in kinds["i"]
    assert kinds["\u0131"] == kinds["i"]


def test_a_messages_promise_on_a_condition_is_found_by_its_twin_opening_with_the_if_as_by_the_pattern():
    """``_worth_reading._IF_ACTS_LOWERED`` (the "if" first, its boundary checked behind it) finds a match in an ASCII
    text's lowercase exactly where ``_IF_ACTS`` finds one in the text: every agent and user message of four runs,
    each also cut at random places (a match at the text's start or end, an "if" inside a word)."""
    from conversation_reading._worth_reading import _IF_ACTS, _IF_ACTS_LOWERED

    rng = random.Random(47)
    texts = ["if you change", "If you cancel", "gif you change", "if, you modify", "life if cancel", "if\nchange",
             *(f"if {'x' * n} cancel" for n in (56, 58, 59, 61)), "elif chang", "IF MODIFY", "ifchange"]  # 60 between
    for run in ("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json",
                "toolorchestra_retail_tau2_1trial.json", "whissle_retail_tau3_5sims.json"):
        raw = json.loads(real_run(run).read_text(encoding="utf-8"))
        for sim in raw["simulations"]:
            for m in sim["messages"]:
                if m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str):
                    text = normalise(m["content"]).text
                    texts += [text, *(text[rng.randrange(len(text) + 1):] for _ in range(3) if text)]
    found = 0
    for text in (t for t in texts if t.isascii()):
        answer = _IF_ACTS.search(text) is not None
        assert (_IF_ACTS_LOWERED.search(text.lower()) is not None) == answer, text
        found += answer
    assert found > 50 and len(texts) > 5000


def test_a_reservations_terms_in_each_cabin_are_read_from_its_record():
    """``_Reservation`` reads a record's payment and passengers once, and keeps its own flights' sums only in its own
    cabin: in each cabin the terms are those the record gives there (the reference ``figures`` reads the same terms,
    so they are checked against the record itself)."""
    from conversation_reading._itinerary_figures import _CABINS, _Reservation

    db = domain_db("airline")
    for res in list(db.reservations.values())[:60]:
        record = res.model_dump()
        prices = [float(f["price"]) for f in record["flights"]]
        base = _Reservation(record)
        for cabin in _CABINS:
            terms = base.in_cabin(cabin)
            own = {0.0}
            for price in prices if record["cabin"] == cabin else []:
                own |= {x + price for x in own}
            assert terms.kept == sorted(own), (record["reservation_id"], cabin)
            assert (terms.n, terms.total_old) == (len(record["passengers"]) or 1, sum(prices))
            assert terms.paid == sum(float(p["amount"]) for p in record["payment_history"])
