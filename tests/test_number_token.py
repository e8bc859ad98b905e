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


def _walked_from_each_find(text: bytes, marker: bytes, openers: bytes) -> bool:
    """The definition, marker by marker as ``bytes.find`` meets them."""
    at = text.find(marker)
    while at != -1:
        start = at
        while start > 0 and text[start - 1] in b"0123456789.-":
            start -= 1
        if 0 < start < at and text[start - 1] in openers:
            return True
        at = text.find(marker, at + 1)
    return False


@pytest.mark.parametrize("seed", range(30))
def test_markers_found_by_numpy_in_long_texts_agree_with_find(seed: int) -> None:
    """Texts past numpy's threshold and short ones: the same answer as the marker-by-marker walk, found
    anywhere, including at the text's first and last bytes."""
    import random

    rng = random.Random(seed)
    for size in (3, 50, 4095, 4096, 9000):
        text = bytes(rng.choice(b'e+- [:,"0123.ax') for _ in range(size))
        for marker, openers in ((b"e+", b":,["), (b"e-", b" [")):
            for t in (text, marker + text, text + marker, b"[7" + marker + text[5:]):
                assert number_token_before(t, marker, openers) is _walked_from_each_find(t, marker, openers)
