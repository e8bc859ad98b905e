"""A replayed tool output compared with the recorded one, as tau2 compares them."""

from __future__ import annotations

import json
import re
from typing import Any

# Pydantic validation errors embed a docs URL with the pydantic minor version
# (https://errors.pydantic.dev/2.12/v/missing). A run recorded under one version and replayed under
# another then differs in that URL alone. This is the only normalisation applied, and only after
# an exact comparison has failed.
_PYDANTIC_URL = re.compile(r"https://errors\.pydantic\.dev/\d+(?:\.\d+)*/")
_PYDANTIC_URL_NORMAL = "https://errors.pydantic.dev/<version>/"


def _loads(text: Any) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def _normalise(value: Any) -> Any:
    if isinstance(value, str):
        return _PYDANTIC_URL.sub(_PYDANTIC_URL_NORMAL, value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def outputs_match(actual: Any, expected: Any) -> tuple[bool, bool]:
    """(equal, equal only after normalisation), comparing as tau2 does: parsed JSON, else raw text."""
    if actual == expected and isinstance(actual, str):  # the same text parses to the same value
        return True, False
    a, e = _loads(actual), _loads(expected)
    if a == e:
        return True, False
    if _normalise(a) == _normalise(e):
        return True, True
    return False, False
