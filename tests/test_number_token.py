"""loophole_base.number_token_before: the one walk back from an exponent marker over a number token, which
the strict decoder (``e+``) and the messages column's writer (``e-``) share."""

from __future__ import annotations

import pytest

from loophole_base import number_token_before


@pytest.mark.parametrize(
    ("text", "marker", "openers", "found"),
    [
        (b'{"a":1.8446744073709552e+19}', b"e+", b":,[", True),  # orjson's float for a 65-bit integer
        (b'[1,-2.5e+3]', b"e+", b":,[", True),  # after ',' and a minus sign
        (b'{"a":"x1e+5"}', b"e+", b":,[", False),  # inside a string, after a letter: no number token
        (b'{"a":"e+"}', b"e+", b":,[", False),  # no digits before the marker
        (b'1e+5', b"e+", b":,[", False),  # the token starts the text: no opener before it
        (b'{"a": 1e-05}', b"e-", b" [", True),  # json's spaced text: a small number after ': '
        (b'[1e-07, 2]', b"e-", b" [", True),
        (b'{"id": "6e-e2"}', b"e-", b" [", False),  # a hex id follows a quote
        (b'{"a": "x", "b": 3e-4}', b"e-", b":,[", False),  # a space before it, and ' ' not an opener here
        (b'{"a": "x 7e-1"}', b"e-", b" [", True),  # in a string after a space: taken for one (harmless)
        (b'{"a": 1, "b": 2}', b"e-", b" [", False),
    ],
)
def test_number_token_before(text: bytes, marker: bytes, openers: bytes, found: bool) -> None:
    assert number_token_before(text, marker, openers) is found


def test_a_later_marker_is_found_after_one_that_is_not_a_number() -> None:
    text = b'{"id": "6e-e2", "x": 5e-06}'
    assert number_token_before(text, b"e-", b" [")
    assert not number_token_before(text[: text.index(b', "x"')] + b"}", b"e-", b" [")
