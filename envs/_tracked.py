"""A database table whose records are copied on first touch, so that a replay's writes land on copies and
the originals can be put back (``envs._replay``), with savepoints for one call and uncopied reads."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

_MISSING: Any = object()


class TrackedTable(dict):
    """A database table whose records are copied on first touch, so the originals can be restored."""

    def __init__(self, data: dict) -> None:
        super().__init__(data)
        self._undo: dict[str, Any] = {}
        self._reading = False  # a read tool runs: records are read where they are, not copied
        self._save: dict[Any, tuple[bool, Any]] | None = None  # a savepoint: key -> (touched before, value)

    def _touch(self, key: Any) -> None:
        if self._reading:
            return
        if self._save is not None and key not in self._save:
            touched = key in self._undo
            current = dict.get(self, key, _MISSING)
            self._save[key] = (touched, _deep_copy(current) if touched and current is not _MISSING else current)
        if key in self._undo:
            return
        original = dict.get(self, key, _MISSING)
        self._undo[key] = original
        if original is not _MISSING:
            dict.__setitem__(self, key, _deep_copy(original))

    def __getitem__(self, key: Any) -> Any:
        self._touch(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        # membership reads no record: nothing to copy until the record itself is reached
        return dict.__contains__(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._touch(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        self._touch(key)
        dict.__delitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._touch(key)
        return dict.get(self, key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        self._touch(key)
        return dict.pop(self, key, *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._touch(key)
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def touched(self) -> list[Any]:
        return list(self._undo)

    def savepoint(self) -> None:
        self._save = {}

    def release(self, rollback: bool) -> None:
        """End the savepoint; with ``rollback``, every record it touched is as it was when it began."""
        saved, self._save = self._save or {}, None
        if not rollback:
            return
        for key, (touched, value) in saved.items():
            if not touched:  # untouched before: back to the original, and untouched again
                original = self._undo.pop(key)
                if original is _MISSING:
                    dict.pop(self, key, None)
                else:
                    dict.__setitem__(self, key, original)
            elif value is _MISSING:
                dict.pop(self, key, None)
            else:
                dict.__setitem__(self, key, value)

    def restore(self) -> None:
        for key, original in self._undo.items():
            if original is _MISSING:
                dict.pop(self, key, None)
            else:
                dict.__setitem__(self, key, original)
        self._undo.clear()
        self._save, self._reading = None, False


_ATOMS = frozenset({str, int, float, bool, type(None)})


def _deep_copy(value: Any) -> Any:
    """``model_copy(deep=True)`` of a database record, without ``copy.deepcopy``'s per-object memo.

    Records come from validating ``db.json``: trees of models, dicts, lists and immutable atoms, with no part
    shared or cyclic (and copies are dropped at restore, so no replay's write reaches an original). So the
    memo, which keeps shared parts shared, changes nothing here; it was half the cost of a replay. A model
    with private attributes or its own ``__deepcopy__``, and any other type, goes to ``copy.deepcopy``.
    """
    cls = type(value)
    if cls in _ATOMS:
        return value
    # an atom is kept where it stands, without a call: most of a record's values are atoms (a flight's
    # dates, seats and prices), and a call for each was most of a copy's cost
    if cls is dict:
        return {k: v if type(v) in _ATOMS else _deep_copy(v) for k, v in value.items()}
    if cls is list:
        return [v if type(v) in _ATOMS else _deep_copy(v) for v in value]
    if (
        isinstance(value, BaseModel)
        and cls.__deepcopy__ is BaseModel.__deepcopy__
        and getattr(value, "__pydantic_private__", None) is None
    ):  # BaseModel.__deepcopy__, field by field
        new = object.__new__(cls)
        extra = value.__pydantic_extra__
        object.__setattr__(new, "__dict__", {k: v if type(v) in _ATOMS else _deep_copy(v)
                                             for k, v in value.__dict__.items()})
        object.__setattr__(new, "__pydantic_extra__", None if extra is None else _deep_copy(extra))
        object.__setattr__(new, "__pydantic_fields_set__", set(value.__pydantic_fields_set__))
        object.__setattr__(new, "__pydantic_private__", None)
        return new
    return copy.deepcopy(value)
