"""A call's arguments as ``json.dumps(arguments, ensure_ascii=False)`` writes them, by json's C encoder built once
(#47). ``JSONEncoder.encode`` builds one a call (its ``iterencode``: a float formatter's closure, then the C
encoder object), which cost about as much as encoding a call's few arguments. The encoder is the one ``encode``
builds for them (the same C code, separators and escaping), so the text is the same bytes; tests/test_call_text.py
holds it to ``json.dumps`` on every call of the shared runs."""

from __future__ import annotations

import json
from _json import make_encoder
from typing import Any

_PLAIN = json.JSONEncoder(ensure_ascii=False)
# ``iterencode``'s arguments to the C encoder but the markers (``check_circular``'s memo of the containers open,
# kept on the encoder: one shared across calls would keep a failed call's entries). Arguments parsed from JSON are
# never circular, so none is needed.
_ENCODER = make_encoder(None, _PLAIN.default, json.encoder.encode_basestring, None, _PLAIN.key_separator,
                        _PLAIN.item_separator, _PLAIN.sort_keys, _PLAIN.skipkeys, _PLAIN.allow_nan)


def arguments_json(arguments: Any) -> str:
    """``json.dumps(arguments, ensure_ascii=False)``."""
    return "".join(_ENCODER(arguments, 0))


__all__ = ["arguments_json"]
