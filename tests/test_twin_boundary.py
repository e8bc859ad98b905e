"""A lowercase twin whose source begins with a word boundary before literal word characters is compiled with the
boundary said after them (``_lowered_search._led_by_its_literal``, #47): the same matches at the same places, groups
included, on real texts and on texts where those characters stand inside a word."""

from __future__ import annotations

import re

import pytest

from conversation_reading import conversation_record
from conversation_reading._lowered_search import _TWINS, _led_by_its_literal
from tests.conftest import glued, read_conversations, same_matches


def test_every_rewritten_twin_of_a_real_reading_matches_as_its_source_compiled():
    conversations = read_conversations("whissle_airline_tau3_1trial.json")
    conversations += read_conversations("aide_claude-sonnet-4-5_airline_tau2_1trial.json")
    for _turns, messages in conversations:  # the twins the record makes
        conversation_record(messages, "airline", lambda name: name.startswith(("book", "cancel", "update")))
    rewritten = [(p, t) for p, t in _TWINS.values() if t is not None and t.pattern is None]
    assert len(rewritten) >= 4
    texts = [m.content.lower() for _, messages in conversations for m in messages
             if isinstance(getattr(m, "content", None), str) and m.content.isascii()]
    assert len(texts) > 1000
    hits = 0
    for pattern, found in rewritten:
        plain = re.compile(pattern.pattern.lower(), found.flags & ~re.UNICODE if found.flags & re.ASCII else found.flags)
        for text in texts:
            for variant in glued(text):
                same_matches(found, plain, variant)
            hits += plain.search(text) is not None
    assert hits > 50  # they match real texts, not only fail on them


@pytest.mark.parametrize("source", [r"\bok\b", r"\bcancel\w*", r"\b(cancel)(\w*)\b", r"\bbasic[\s-]*economy\b",
                                    r"\b(?:refund\w*)\b", r"\b_x", r"\b9a"])
def test_a_boundary_before_literals_is_read_after_them(source):
    for flags in (re.ASCII, re.UNICODE):
        found = _led_by_its_literal(source, flags)
        assert found is not None and found.pattern is None
        plain = re.compile(source, flags)
        for text in ("ok", "book ok", "_ok ok_ 9ok ok9", "cancelled, precancel _cancel 9cancel", "cancel",
                     "basic economy basic-economy xbasic economy", "refunds arefund", "_x a_x x", "9a b9a 9a9",
                     "", " ", "ok?ok!cancel"):
            for variant in glued(text):
                same_matches(found, plain, variant, every=1)


@pytest.mark.parametrize("source", [r"\b(?:yes|sure)\b", r"\b[0-9]+", r"\b(cancel|refund)", r"ok\b", r"\b\w+",
                                    r"\b-x", r"\b(?=ok)ok", r"\bok|no"])
def test_a_boundary_before_anything_else_is_left_where_it_is(source):
    """A branch or a class would lead by a set of characters, tried wherever one stands (slower); anything else is
    not a boundary before literal word characters."""
    assert _led_by_its_literal(source, re.ASCII) is None
