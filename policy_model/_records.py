"""Records read alike from tau2's database models and from their dict form (a tool result as a conversation
read it, a ``model_dump``): the model computes over either without converting a whole database."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Whether a record's type is a mapping, by type: an ABC's isinstance is slow, and the money rules ask it of the
# same few record types (tau2's database models, dicts) tens of thousands of times a rescore. Keyed by type only.
_MAPPING: dict[type, bool] = {}


def get(record: Any, name: str, default: Any = None) -> Any:
    """Field ``name`` of a record, a dict or a pydantic model."""
    kind = type(record)
    if kind is dict:  # most records: a tool result's
        return record.get(name, default)
    mapping = _MAPPING.get(kind)
    if mapping is None:
        mapping = _MAPPING[kind] = isinstance(record, Mapping)
    return record.get(name, default) if mapping else getattr(record, name, default)


def table(db: Any, name: str) -> Mapping[str, Any]:
    """Table ``name`` (``reservations``, ``users``, ``orders``, ...) of a database, a dict or a tau2 DB."""
    found = get(db, name)
    return found if isinstance(found, Mapping) else {}


# the types ``items`` and ``number`` test, built once: ``list | tuple`` written in a test builds a new union each time
# it runs (three times the test's cost; every price and payment the model reckons is tested, #47)
_SEQUENCES, _NUMBERS = (list, tuple), (int, float)


def items(record: Any, name: str) -> list[Any]:
    """A list field of a record (its flights, passengers, payments); missing or malformed: empty."""
    found = get(record, name)
    return list(found) if isinstance(found, _SEQUENCES) else []


def number(value: Any) -> float | None:
    return float(value) if isinstance(value, _NUMBERS) and not isinstance(value, bool) else None
