"""A message's payment plan (``_sentence_facts._Checker.plan``) is read sentence by sentence only where its text
holds "certificate_" or "gift_card_" more times than one reservation may use such ids (#47): the ids a plan uses are
among those the text names, each holding its prefix. On every agent text of the shared runs and both dev-corpus
sets, and on written plans (an id said twice, ids glued to words), the gated reading answers as the full one."""

from __future__ import annotations

from conversation_reading._sentence_facts import _Checker
from tests.conftest import normalised_agent_texts

_WRITTEN = (
    "I will use both certificates, certificate_4856383 and certificate_7504069 ($350.00), for the new booking.",
    "You have two certificates: certificate_1 ($100) and certificate_2 ($50).\nI'll apply certificate_1 to pay $100.",
    "Payment: gift_card_1 $10, gift_card_2 $20, gift_card_3 $30 and gift_card_4 $40 will be charged.",
    "I'll pay with gift_card_1 $10 and gift_card_1 again, then gift_card_2 and gift_card_3: $60 charged.",
    "Use certificate_1 or certificate_2 to pay $100?", "certificate_12x certificate_13 pay $5 and certificate_14",
    "apply certificate_1. certificate_2 paid $3\u2028certificate_3 applied, $4", "",
)


def _checker(text: str) -> _Checker:
    return _Checker(lambda: None, text, None)  # type: ignore[arg-type, return-value]  # a plan reads the text alone


def test_a_plan_read_only_where_the_text_names_too_many_ids_answers_as_the_full_reading():
    texts = normalised_agent_texts(*_WRITTEN)
    named = broken = 0
    for text in texts:
        assert _checker(text)._read_plan() == _checker(text)._plan_over_limit(), text
        named += "certificate_" in text or "gift_card_" in text
        broken += _checker(text)._plan_over_limit() is not None
    assert named > 100 and broken >= 3  # texts with ids, some of whose plans break the limit
