"""A decoded JSON value's text exactly as ``json.dumps(value, ensure_ascii=False)`` writes it (the messages
column), four times faster: pydantic-core writes it compactly (Infinity and NaN as Python writes them) and
msgspec puts back the space after each ',' and ':' that json writes. Where the two could differ, json
writes it: a value pydantic-core refuses (a lone surrogate, nesting deeper than 254), a non-finite number
(msgspec refuses to reformat it), or a number under 1e-4 (pydantic-core writes 0.00001 and 1e-7 where
Python writes 1e-05 and 1e-07). tests/test_json_text.py checks the two agree."""

from __future__ import annotations

import json

import msgspec
import pydantic_core


def json_text(value: object) -> str:
    """``json.dumps(value, ensure_ascii=False)`` of a value decoded from JSON (dicts with string keys, lists,
    strings, numbers, booleans, None: what a results file or ``model_dump(mode="json")`` holds)."""
    try:
        spaced = msgspec.json.format(pydantic_core.to_json(value, inf_nan_mode="constants"), indent=0)
    except (ValueError, msgspec.DecodeError):  # PydanticSerializationError is a ValueError
        return json.dumps(value, ensure_ascii=False)
    if _small_number(spaced):
        return json.dumps(value, ensure_ascii=False)
    return spaced.decode("utf-8")


def _small_number(text: bytes) -> bool:
    """Whether ``text`` may hold a number under 1e-4: ``0.0000``, or a number token before ``e-`` (digits
    after a space or '[': a hex id's ``6e-e2`` is none). In a string too, rarely: then json writes it, no harm."""
    if b"0.0000" in text:
        return True
    at = text.find(b"e-")
    while at != -1:
        start = at
        while start > 0 and text[start - 1] in b"0123456789.-":
            start -= 1
        if start < at and start > 0 and text[start - 1] in b" [":
            return True
        at = text.find(b"e-", at + 2)
    return False
