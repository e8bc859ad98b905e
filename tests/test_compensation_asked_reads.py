"""The user's requests for compensation are read only where their answer can count (#47): ``user_requests`` searches a
message's whole text only where its blanked text (``without_payment``) differs, since a match ``mentions`` finds in
a sentence of the unblanked text is one in the text; ``unasked_compensation`` reads the user's messages only before
the last offer its gate lets through or the certificate sent. Each answers as the reading it replaced (kept here as
the reference), on real conversations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tau2.data_model.simulation import Results

from conversation_reading._compensation import Violation, offer_said, unasked_compensation
from conversation_reading._evidence import read_turns
from conversation_reading._lowered_search import says
from conversation_reading._message_scan import gate_of
from conversation_reading._requests import _asks_in_words, asks_compensation
from conversation_reading._turn_index import TurnIndex
from conversation_reading._vocabulary import vocabulary
from policy_model import COMPENSATION_TOOL
from tests.conftest import REAL_RUNS, SHARED, read_conversations


def _conversations() -> list[tuple[list[Any], list[Any]]]:
    """The real runs' conversations, and the dev corpus's (more agents who offer compensation or send a certificate)."""
    out = [c for f in sorted(REAL_RUNS.glob("*.json")) for c in read_conversations(f.name)]
    for f in sorted((SHARED / "dev-corpus" / "runs").glob("*airline*.json")):
        for sim in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations:
            out.append((read_turns(list(sim.messages)), list(sim.messages)))
    return out


def _unasked_reference(turns: list[Any], index: TurnIndex) -> tuple[int, str] | None:
    """``unasked_compensation`` as it read before (every user message up to the first request), less its declines."""
    v = vocabulary()
    sent_at = [t.index for t, _ in index.named(COMPENSATION_TOOL)]
    request, offer = gate_of(v.compensation_request, "user"), gate_of(v.compensation_offer, "assistant")
    asked = next((t.index for t in index.saying(v.compensation_request, request, "user")
                  if asks_compensation(v.compensation_request, t.text)), None)
    sent = sent_at[0] if sent_at else None
    until = min((i for i in (asked, sent) if i is not None), default=None)
    for t in index.saying(v.compensation_offer, offer, "assistant"):
        if until is not None and t.index >= until:
            break
        if offer_said(t, index) is not None:
            return t.index, "offered"
    if sent is not None and sent == until:
        return sent, "sent"
    return None


def _found(found: Violation | None) -> tuple[int, str] | None:
    if found is None:
        return None
    return found.message_index, "sent" if found.detail.startswith("a certificate sent before") else "offered"


def test_unasked_compensation_answers_as_reading_every_request_before_it() -> None:
    seen = found = 0
    for turns, _ in _conversations():
        index = TurnIndex(turns, ())
        expected = _unasked_reference(turns, index)
        # no decline read: a certificate sent after a decline is the reading's last step, which the bound leaves alone
        assert _found(unasked_compensation(turns, lambda *_: [], index)) == expected, [t.text[:80] for t in turns]
        seen += 1
        found += expected is not None
    assert seen > 100 and found >= 3  # offers in words and certificates sent both read


@pytest.mark.parametrize("which", ["send_certificate", "compensation_request"])
def test_a_request_in_words_is_a_search_of_the_text_and_the_blanked_texts_mention(which: str) -> None:
    v = vocabulary()
    pattern = v.requests["send_certificate"] if which == "send_certificate" else v.compensation_request
    seen = asked = blanked = 0
    for turns, _ in _conversations():
        for t in turns:
            if t.role != "user" or not t.text.strip():
                continue
            plain = t.text.lower() if t.text.isascii() else None
            expected = says(pattern, t.text, plain) and asks_compensation(pattern, t.text)
            assert _asks_in_words(pattern, t.text, plain) == expected, t.text
            seen += 1
            asked += expected
            blanked += says(pattern, t.text, plain) and not expected  # a payment clause's certificate alone
    assert seen > 500 and asked > 20 and blanked > 5
