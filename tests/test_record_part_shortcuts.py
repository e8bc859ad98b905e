"""The record's parts' shortcuts (#47, round 10) answer as what they replace, on the real runs' conversations: a
certificate named as a means of payment blanked by the pattern's lowercase twin (``_requests.without_payment``) as
the pattern's own ``sub`` blanks it."""

from __future__ import annotations

from pathlib import Path

from tau2.data_model.simulation import Results

from conversation_reading import _requests
from conversation_reading._evidence import read_turns
from conversation_reading._vocabulary import vocabulary
from tests.conftest import REAL_RUNS, SHARED

FILES = [*sorted(REAL_RUNS.glob("*.json")), *sorted((SHARED / "dev-corpus" / "runs").glob("*.json"))[:2]]


def _texts(role: str) -> list[str]:
    return [t.text for f in FILES for s in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations
            for t in read_turns(list(s.messages)) if t.role == role and t.text]


def test_a_certificate_as_payment_blanked_by_the_twin_as_by_the_patterns_own_sub():
    use = vocabulary().payment_use
    texts = [x for x in _texts("user") if "certificate" in x.lower()]
    texts += [x.upper() for x in texts] + [
        "Pay with CERTIFICATE_123 and $50 of my certificates, then the balance on my certificate.",
        "Use my certificate \u2014 the balance on certificate_9 first; I also want a certificate for the delay.",
        "I want a certificate as compensation.", "Apply the certıficate (a dotless i) to the payment."]
    blanked = 0
    for text in texts:
        expected = use.sub(" ", text) if "certificate" in text.lower() else text
        assert _requests._without_payment(text) == expected, text
        blanked += expected != text
    assert blanked > 20 and blanked < len(texts)  # some name a certificate as payment, some ask for one
