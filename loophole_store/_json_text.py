"""A decoded JSON value's text exactly as ``json.dumps(value, ensure_ascii=False)`` writes it (the messages
column), four times faster: pydantic-core writes it compactly (Infinity and NaN as Python writes them) and
msgspec puts back the space after each ',' and ':' that json writes. Where the two could differ, json
writes it: a value pydantic-core refuses (a lone surrogate, nesting deeper than 254), a non-finite number
(msgspec refuses to reformat it), or a number under 1e-4 (pydantic-core writes 0.00001 and 1e-7 where
Python writes 1e-05 and 1e-07). A value decoded from strict JSON (``finite``: no NaN or Infinity, which
orjson would write as null) is written by orjson instead of pydantic-core, four times faster again: the same
numbers, escapes and refusals otherwise. tests/test_json_text.py checks all three agree."""

from __future__ import annotations

import json

import msgspec
import orjson
import pydantic_core

from loophole_base import number_token_before


def json_text(value: object, finite: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=False)`` of a value decoded from JSON (dicts with string keys, lists,
    strings, numbers, booleans, None: what a results file or ``model_dump(mode="json")`` holds). ``finite``:
    the caller knows it holds no NaN or Infinity (decoded from strict JSON, which has none)."""
    if not isinstance(value, list | dict):  # a bare number has no ' ' or '[' before it for _small_number
        return json.dumps(value, ensure_ascii=False)
    try:
        if finite:  # a list decoded by ``strict_value`` carries orjson's text of itself: not written again
            carried = getattr(value, "compact", None)
            compact = carried if isinstance(carried, bytes) else orjson.dumps(value)
        else:
            compact = pydantic_core.to_json(value, inf_nan_mode="constants")
        spaced = msgspec.json.format(compact, indent=0)
    except (ValueError, TypeError, msgspec.DecodeError):  # orjson refuses with a TypeError, pydantic-core a ValueError
        return json.dumps(value, ensure_ascii=False)
    if _small_number(spaced):
        return json.dumps(value, ensure_ascii=False)
    return spaced.decode("utf-8")


def _small_number(text: bytes) -> bool:
    """Whether ``text`` may hold a number under 1e-4: ``0.0000``, or a number token before ``e-`` (digits
    after a space or '[': a hex id's ``6e-e2`` is none). In a string too, rarely: then json writes it, no harm."""
    if b"0.0000" in text:
        return True
    return number_token_before(text, b"e-", b" [")
