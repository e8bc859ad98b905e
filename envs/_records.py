"""A database record's share of tau2's database hash input, and the bytes that tell, without writing it, that a
record's share is its pristine share (``ReplayEngine._collect_and_restore``)."""

from __future__ import annotations

import json
import marshal
from typing import Any

from pydantic import BaseModel

from envs._tracked import _MISSING


def record_json(value: Any) -> str | None:
    """The record's share of tau2's database hash input."""
    if value is _MISSING:
        return None
    return json_of(dump_of(value))


def dump_of(record: Any) -> Any:
    return record.model_dump() if isinstance(record, BaseModel) else record


def json_of(dumped: Any) -> str:
    return json.dumps(dumped, sort_keys=True, default=str)


def marshal_of(dumped: Any) -> bytes | None:
    """A record's dump in ``marshal``'s bytes, None where it holds an object marshal refuses.

    marshal writes only objects of exactly its own types (``str``, ``int``, ``float``, ``bool``, ``None``, lists,
    dicts in their order, ...), each with its type and its exact value (a float's very bits), and refuses any
    other (a subclass, a date, an enum; a bytes-like object it writes as bytes, but a dump read from ``db.json``
    holds none). So a dump with the pristine dump's bytes is the same tree of the same types and values, and
    ``json_of`` writes the same text for both: the answer comparing the JSON gives, where writing the bytes costs
    about a fifth of writing the JSON (sorted keys, every float's repr, every string escaped). Bytes that differ
    prove nothing (a key order, a string shared or not): the JSON decides."""
    try:
        return marshal.dumps(dumped)
    except ValueError:
        return None


Shot = tuple[bytes | None, str | None]  # a record's dump in marshal's bytes (``marshal_of``) and its JSON (``json_of``)


def shot_of(dumped: Any, reference: Shot) -> Shot:
    """A dumped record's bytes and JSON; the ``reference`` itself where the bytes are its bytes: the same JSON, known
    without writing it (``marshal_of``). Most records a write reaches are left as they were."""
    data = marshal_of(dumped)
    if data is not None and data == reference[0]:
        return reference
    return data, json_of(dumped)
