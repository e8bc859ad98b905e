"""A route claim's reservation ids (``_route_claims._ids``) found by a scan that skips to the next capital or digit
(#47) are the ids of the reference pattern (``_RESERVATION_ID``), on every sentence of real conversations and on
written edge cases."""

from __future__ import annotations

from conversation_reading._route_claims import _RESERVATION_ID, _ids
from tests.conftest import ROUTE_RUNS, read_sentences

_EDGES = (
    "", "ABC123", "abc123", "ABC1234", "AB123", "ABCDEF", "123456", "X1Y2Z3, and 4R5T6Y.", "_ABC123", "ABC123_",
    "ABC12\u0663", "\u0663ABC123", "ABC123\u00e9", "\u00e9ABC123", "(ABC123)", "ABC123-DEF456", "ABC 123456 Q2W3E4",
    "ZZ9Z9Z\nQQ1QQ1", "ABCDE1 ABCDE12 A1B2C3D", "ĀBC123 ABC123Ā", "1ABCDE", "ABCDE1",
)


def test_the_ids_a_sentence_names_are_the_reference_patterns():
    checked = named = 0
    for sentence in read_sentences(*ROUTE_RUNS):
        assert _ids(sentence) == set(_RESERVATION_ID.findall(sentence)), sentence
        checked += 1
        named += bool(_ids(sentence))
    for sentence in _EDGES:
        assert _ids(sentence) == set(_RESERVATION_ID.findall(sentence)), sentence
    assert checked > 5000 and named > 300  # sentences naming ids, and many naming none
