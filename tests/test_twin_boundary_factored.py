"""A lowercase twin that is a branch of alternatives, two or more neighbours of which begin with a word boundary, is
compiled with that boundary said once before them (``_lowered_search._boundary_factored``, #47): the same matches at
the same places, groups included, on real texts, on texts where the words stand inside others, and searched from
every place."""

from __future__ import annotations

import re

import pytest

from conversation_reading import conversation_record
from conversation_reading._lowered_search import _TWINS, _boundary_factored
from conversation_reading._vocabulary import vocabulary
from tests.conftest import glued, read_conversations, same_matches


def test_every_factored_twin_of_a_real_reading_matches_as_its_source_compiled():
    conversations = read_conversations("whissle_airline_tau3_1trial.json")
    conversations += read_conversations("aide_claude-sonnet-4-5_airline_tau2_1trial.json")
    for _turns, messages in conversations:  # the twins the record makes
        conversation_record(messages, "airline", lambda name: name.startswith(("book", "cancel", "update")))
    factored = []
    for pattern, found in list(_TWINS.values()):
        if found is None:
            continue
        plain = re.compile(pattern.pattern.lower(), found.flags & ~re.UNICODE if found.flags & re.ASCII else found.flags)
        rewritten = _boundary_factored(plain.pattern, plain.flags)
        if rewritten is not None:
            assert found.pattern is None  # the twin the readers search by is a rewritten one
            factored.append((rewritten, plain))
    assert vocabulary().payment_use.pattern.lower() in [p.pattern for _, p in factored]
    texts = [m.content.lower() for _, messages in conversations for m in messages
             if isinstance(getattr(m, "content", None), str) and m.content.isascii()]
    assert len(texts) > 1000
    hits = 0
    for rewritten, plain in factored:
        for text in texts:
            for variant in glued(text):
                same_matches(rewritten, plain, variant)
            hits += plain.search(text) is not None
    assert hits > 20  # they match real texts, not only fail on them


_TEXTS = ("use my certificate", "certificate_123 and $50 of my certificates", "reuse certificates", "a b c d",
          "abc _a a_ 9a a9 b", "ba ab b_a", "pay with the certificate balance first", "", " ", "a?b!c.d",
          "cd dc c d", "xyz y z")


@pytest.mark.parametrize("source", [
    r"\ba|\bb|c", r"c|\ba|\bb", r"\ba\b|c|\bb\b|\bc", r"(?:\b(?:pay\w*|use)\b[^.]{0,9}?\bcertificates?\b)|"
    r"(?:\bcertificate_\d+\b)|(?:\$\d+)", r"\b(a)|\b(b)|(c)|\b(d)|\b(?:y|z)", r"\bab|\ba|abc", r"\ba|\b|c", r"\b\w|\bd|x",
])
def test_a_boundary_leading_neighbouring_alternatives_is_said_once_before_them(source):
    for flags in (re.ASCII, re.UNICODE):
        found = _boundary_factored(source, flags)
        assert found is not None and found.pattern is None
        plain = re.compile(source, flags)
        for text in _TEXTS:
            for variant in glued(text):
                same_matches(found, plain, variant, every=1)


@pytest.mark.parametrize("source", [r"\ba|b", r"\ba|\bb", r"\b(?:a|b)", r"a|b", r"x(?:\ba|\bb|c)", r"\ba|c|\bb",
                                    r"(\ba|\bb|c)"])
def test_a_branch_without_two_neighbours_led_by_a_boundary_at_its_top_is_left_as_it_is(source):
    """One such alternative, or a run of them only apart, gains nothing; a branch whose every alternative begins with
    the boundary the parser says once already; a branch inside a group or after other items is not read."""
    assert _boundary_factored(source, re.ASCII) is None
