"""The payment claims' checkers scan a message as they did (#47 round 11): certificate ids found by a pattern opening
with its letter are those the boundary-first pattern finds, the payment alternatives searched by their lowercase twins
answer as searched as they are, and the certificate checker, which scans for alternatives only where the plan would
use too many certificates, answers as the checker that scanned first; a policy claim's marker words, gated, and a bag
allowance's cabins, searched by their twins, answer as before."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tau2.data_model.simulation import Results

from conversation_reading import _claims, _policy_claims
from conversation_reading._conversation_state import _State, _states
from conversation_reading._evidence import read_turns, split_sentences
from conversation_reading._lowered_search import ascii_lowered, says, twin
from conversation_reading._vocabulary import vocabulary
from policy_model import PAYMENT_LIMITS
from tests.conftest import SHARED, real_run

FILES = [real_run("whissle_airline_tau3_1trial.json"), real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
         *sorted((SHARED / "dev-corpus" / "runs").glob("*airline*.json"))[:3]]
EDGES = ["xcertificate_1 and _certificate_2", "certificate_3a, certificate_4.", "\u00e9certificate_5 (certificate_6)",
         "certificate_\u0663\u0664 or certificate_7", "Certificate_8 OR CERTIFICATE_9", "ccertificate_10 certificate_",
         "use certificate_11 or certificate_12 or gift_card_1", "pay with gift_card_2 EITHER credit_card_3",
         "certificate_13 \u017fr certificate_14", "one of gift_card_4, gift_card_5", "whichever credit_card_6"]


def _conversations() -> list[list[Any]]:
    return [list(s.messages) for f in FILES
            for s in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations]


def _agent_texts() -> list[str]:
    return [t.text for messages in _conversations() for t in read_turns(messages) if t.role == "assistant" and t.text]


def test_certificate_ids_found_by_the_letter_first_pattern_are_those_the_boundary_first_pattern_finds():
    texts = _agent_texts() + EDGES
    found = [_claims._CERTIFICATE_ID.findall(x) for x in texts]
    assert found == [re.findall(r"\bcertificate_\d+\b", x) for x in texts]
    assert sum(bool(f) for f in found) > 20  # ids to find, in most messages none
    assert found[-len(EDGES):][:3] == [[], ["certificate_4"], ["certificate_6"]]


def test_payment_alternatives_searched_by_their_twins_answer_as_searched():
    texts = _agent_texts()
    texts += [x.upper() for x in texts[:300]] + EDGES
    for pattern in (_claims._ALTERNATIVES, _policy_claims._ALTERNATIVES):
        assert twin(pattern) is not None  # the fast scan is the one taken over ASCII text
        expected = [pattern.search(x) is not None for x in texts]
        assert [says(pattern, x, ascii_lowered(x)) for x in texts] == expected, pattern.pattern
        assert 0 < sum(expected) < len(texts)


def _certificates_scanned_first(sentence: str, m: re.Match[str], text: str, state: _State) -> str | None:
    """The checker as it was: every certificate id and the alternatives scanned, whatever the count."""
    ids = set(re.findall(r"\bcertificate_\d+\b", text))
    if state.user is not None:
        methods = state.user.get("payment_methods") or {}
        certs = {k: v for k, v in methods.items() if isinstance(v, dict) and v.get("source") == "certificate"}
        ids |= {k for k in certs if k in text}
    if _claims._ALTERNATIVES.search(text):
        return None
    if len(ids) > PAYMENT_LIMITS["certificate"]:
        return f"the plan uses {len(ids)} travel certificates ({', '.join(sorted(ids))}); the policy allows one per reservation"
    return None


def test_the_certificate_checker_answers_as_the_checker_that_scanned_first():
    kind = next(k for k in _claims.claim_kinds()[0] if k.name == "certificates_per_reservation")
    cases: list[tuple[str, re.Match[str], str, _State]] = []
    for messages in _conversations():
        turns = read_turns(messages)
        states = _states(turns, messages, "airline")
        for t in turns:
            if t.role == "assistant" and "certificate" in t.text.lower():
                cases += [(s, m, t.text, states[t.index]) for s in split_sentences(t.text)
                          for p in kind.patterns for m in p.finditer(s)]
    user = {"payment_methods": {"certificate_1": {"source": "certificate"}, "certificate_2": {"source": "certificate"}}}
    for text in ("Use certificate_1 and certificate_2 to pay.", "Use certificate_1 or certificate_2 to pay.",
                 "Use CERTIFICATE_1 and certificate_3 to pay.", "Use certificate_1 to pay.", *EDGES):
        for state in (_State({}, None, user, {}, None), _State({}, None, None, {}, None)):
            cases += [(text, m, text, state) for p in kind.patterns for m in p.finditer(text)]
    answers = [_claims._certificates(*c) for c in cases]
    assert answers == [_certificates_scanned_first(*c) for c in cases]
    assert sum(a is not None for a in answers) >= 3 and sum(a is None for a in answers) >= 3


def test_a_policy_claims_marker_words_gated_answer_as_every_word_matched():
    v = vocabulary()
    parts = [s[:k] for x in _agent_texts() for s in split_sentences(x) for k in (len(s) // 2, len(s))]
    parts += [x.upper() for x in parts[:500]] + EDGES + ["If it isn't", "CANNOT", "unless\u017f", "n\u2019t if"]
    for markers in (v.hypothetical, v.negation):
        assert markers.flags & re.IGNORECASE  # the gate reads a lowercase
        expected = [any(markers.fullmatch(w.strip(".,!?\"'*()").lower()) for w in x.split()) for x in parts]
        assert [_policy_claims._words(x, markers) for x in parts] == expected, markers.pattern
        assert 50 < sum(expected) < len(parts) - 50


def test_a_bag_allowances_cabins_searched_by_their_twins_answer_as_searched():
    halves = [h for x in _agent_texts() for s in split_sentences(x) for h in (s[: len(s) // 2], s[len(s) // 2 :])]
    halves += [x.upper() for x in halves[:300]] + ["basic-economy", "BASIC ECONOMY", "basic economy", "\u0130 economy"]
    for _, pattern in _policy_claims._CABINS:
        assert twin(pattern) is not None
        expected = [pattern.search(x) is not None for x in halves]
        assert [says(pattern, x, ascii_lowered(x)) for x in halves] == expected, pattern.pattern
        assert 0 < sum(expected) < len(halves)


def test_a_bag_allowance_checked_with_twin_searches_answers_as_with_the_patterns_searched(monkeypatch):
    kind = next(k for k in _claims.claim_kinds()[0] if k.name == "bag_allowance")
    cases: list[tuple[str, re.Match[str], str, _State]] = []
    for messages in _conversations():
        turns = read_turns(messages)
        states = _states(turns, messages, "airline")
        cases += [(s, m, t.text, states[t.index]) for t in turns if t.role == "assistant"
                  for s in split_sentences(t.text) for p in kind.patterns for m in p.finditer(s)]
    gold = _State({}, None, {"membership": "gold"}, {}, None)
    for text in ("In business class you are entitled to 2 free checked bags per passenger.",
                 "You are entitled to 2 free checked bags per passenger in BASIC ECONOMY.",
                 "In basic economy, you get 4 free checked bags per passenger.",
                 "As a Gold member in economy you receive 3 free checked bags per person."):
        cases += [(text, m, text, gold) for p in kind.patterns for m in p.finditer(text)]
    fast = [_policy_claims._bag_allowance(*c) for c in cases]
    monkeypatch.setattr(_policy_claims, "says", lambda pattern, text, _low: pattern.search(text) is not None)
    assert fast == [_policy_claims._bag_allowance(*c) for c in cases]
    assert sum(a is not None for a in fast) >= 2 and sum(a is None for a in fast) >= 2
