"""Whether a JSON text holds a number token written with a given exponent marker: the one walk back over a
number's characters that both the strict decoder (orjson's ``1.8e+19``: an integer read as a float) and the
messages column's writer (a number under 1e-4: ``1e-05``) look for."""

from __future__ import annotations

_NUMBER_CHARS = b"0123456789.-"


def number_token_before(text: bytes, marker: bytes, openers: bytes) -> bool:
    """Whether some ``marker`` (``b"e+"``, ``b"e-"``) in ``text`` ends a run of number characters (digits, '.',
    '-') that starts right after one of the bytes ``openers`` (what may precede a JSON value there: a hex id's
    ``"6e-e2"`` follows a quote, so it is none). Looked for after the marker only: a walk over a few bytes at
    each, where a regex over the whole text cost 10x more."""
    at = text.find(marker)
    while at != -1:
        start = at
        while start > 0 and text[start - 1] in _NUMBER_CHARS:
            start -= 1
        if start < at and start > 0 and text[start - 1] in openers:
            return True
        at = text.find(marker, at + 2)
    return False
