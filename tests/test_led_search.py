"""Whether a pattern matches, found from the places its leading words stand (``_led_matches.led_search``, #47): the
same answer as ``pattern.search`` on every agent text of the shared runs and dev corpus (``asks_confirmation``'s
pattern, the one it now reads, and the catalog's other led patterns), and on written texts."""

from __future__ import annotations

import pytest

from conversation_reading._led_matches import _held, led_search
from conversation_reading._replies import _asks_confirmation
from conversation_reading._vocabulary import vocabulary
from tests.conftest import normalised_agent_texts


def _patterns() -> list:
    v = vocabulary()
    return [v.confirmation_request, v.agreement, v.explicit_yes, v.withdrawal, v.decline, v.transfer_request]


def test_asks_confirmation_is_read_from_its_leading_words():
    found, find = _held(vocabulary().confirmation_request)
    assert found is not None and find is not None  # the fast path is the one taken


def test_led_search_answers_as_the_search_on_every_agent_text():
    texts = sorted(set(normalised_agent_texts()))
    assert len(texts) > 2000
    asked = 0
    pattern = vocabulary().confirmation_request
    for text in texts:
        expected = pattern.search(text) is not None
        assert _asks_confirmation(text) is expected, text
        asked += expected
        low = text.lower() if text.isascii() else None
        for other in _patterns()[1:]:
            assert led_search(other, text, low) is (other.search(text) is not None), (other.pattern[:60], text)
    assert 200 < asked < len(texts)  # both answers occur


@pytest.mark.parametrize("text", [
    "", "confirm", "Shall I proceed?", "shall it", "okay to go", "ok to", "is this correct", "is this correctly",
    "unconfirmed", "xconfirm", "reconfirm it", "would you like me to", "would you like to", "proceeded", "goahead",
    "Is everything right?", "\u0130s this correct?", "Confirm\u00e9?",
])
def test_written_texts_answer_as_the_search(text):
    pattern = vocabulary().confirmation_request
    assert _asks_confirmation(text) is (pattern.search(text) is not None)
    assert _asks_confirmation(text, text.lower()) is (pattern.search(text) is not None)
