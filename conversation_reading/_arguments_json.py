"""A call's arguments as ``json.dumps(arguments, ensure_ascii=False)`` writes them, by json's C encoder built once
(#47). ``JSONEncoder.encode`` builds one a call (its ``iterencode``: a float formatter's closure, then the C
encoder object), which cost about as much as encoding a call's few arguments. The encoder is the one ``encode``
builds for them (the same C code, separators and escaping), so the text is the same bytes; tests/test_call_text.py
holds it to ``json.dumps`` on every call of the shared runs."""

from __future__ import annotations

import json
from _json import make_encoder
from typing import Any

from conversation_reading._excerpts import cut, excerpt_of

_PLAIN = json.JSONEncoder(ensure_ascii=False)
# ``iterencode``'s arguments to the C encoder but the markers (``check_circular``'s memo of the containers open,
# kept on the encoder: one shared across calls would keep a failed call's entries). Arguments parsed from JSON are
# never circular, so none is needed.
_ENCODER = make_encoder(None, _PLAIN.default, json.encoder.encode_basestring, None, _PLAIN.key_separator,
                        _PLAIN.item_separator, _PLAIN.sort_keys, _PLAIN.skipkeys, _PLAIN.allow_nan)
_KEY = json.encoder.encode_basestring  # how the encoder writes a string key (the same C function)


def arguments_json(arguments: Any) -> str:
    """``json.dumps(arguments, ensure_ascii=False)``."""
    return "".join(_ENCODER(arguments, 0))


def arguments_excerpt(arguments: Any, limit: int) -> str:
    """``excerpt_of(arguments_json(arguments), limit)``, a dict's entries encoded only until the excerpt is decided: a
    booking's passengers and flights come after the first ``limit`` characters, and encoding them was most of the
    acts' cost (#47). The collapse of a prefix of a text is a prefix of the text's collapse, so once a prefix's
    collapse is longer than ``limit``, the text's is too, and both are cut at the same characters."""
    if type(arguments) is dict:
        pieces: list[str] = []
        size = 1  # "{"
        for key, value in arguments.items():
            if type(key) is not str:
                break  # the encoder's own way with other keys: the whole text below
            pieces.append(f"{_KEY(key)}: {''.join(_ENCODER(value, 0))}")
            size += len(pieces[-1]) + 2
            if size > limit:  # a collapse is no longer than its text: only now may it be longer than the limit
                said = " ".join(("{" + ", ".join(pieces)).split())  # ``excerpt_of``'s collapse
                if len(said) > limit:
                    return cut(said, limit)
        else:
            return excerpt_of("{" + ", ".join(pieces) + "}", limit)
    return excerpt_of(arguments_json(arguments), limit)


__all__ = ["arguments_excerpt", "arguments_json"]
