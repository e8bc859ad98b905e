"""A database table whose touched records can be put back as they were (``envs._replay``), with savepoints
for one call and uncopied reads.

A write tool changes the records it reaches in place. The first time a record is ever touched, the record as
loaded is kept (its shadow, for the table's lifetime: the pristine database never changes) and the table holds
a copy of it from then on; a touch after that copies nothing. So no record object the database was loaded with
is ever changed, and a pristine view of the table (``TrackedTable.pristine``) shares them. Putting a record back installs a fresh copy of its shadow, and only where the
record changed: a write tool reads far more records than it changes (a flight's whole calendar, copied on
every touch, was a fifth of a replay), and one whose JSON is its pristine JSON is left where it stands."""

from __future__ import annotations

import copy
from typing import Any

from pydantic import BaseModel

_MISSING: Any = object()


class TrackedTable(dict):
    """A database table whose touched records can be put back as they were (module docstring)."""

    def __init__(self, data: dict) -> None:
        super().__init__(data)
        self._undo: dict[str, Any] = {}  # touched since the last restore: key -> its shadow (or _MISSING)
        self._shadow: dict[Any, Any] = {}  # key -> a pristine copy, never handed to a tool
        self._reading = False  # a read tool runs: records are read where they are, not tracked
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
        original = dict.get(self, key, _MISSING)  # untouched since the last restore: pristine
        if original is not _MISSING and key not in self._shadow:
            # the loaded record becomes the shadow and the tools get a copy: a record object the database was
            # loaded with is never changed, so a pristine view (``pristine``) shares them instead of a second load
            self._shadow[key] = original
            dict.__setitem__(self, key, _deep_copy(original))
        self._undo[key] = _MISSING if original is _MISSING else self._shadow[key]

    def _put_back(self, key: Any, shadow: Any) -> None:
        if shadow is _MISSING:
            dict.pop(self, key, None)
        else:
            dict.__setitem__(self, key, _deep_copy(shadow))

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

    def pristine(self) -> dict[Any, Any]:
        """The table as loaded, read-only, between replays (every touched record put back): its keys with each
        record's shadow where it has one, else the record the table holds, untouched since it was loaded."""
        view = dict(self)  # dict's own copy: no record is touched
        view.update(self._shadow)
        return view

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
            if not touched:  # untouched before: back to the pristine record, and untouched again
                self._put_back(key, self._undo.pop(key))
            elif value is _MISSING:
                dict.pop(self, key, None)
            else:
                dict.__setitem__(self, key, value)

    def restore(self, changed: set[Any] | None = None) -> None:
        """Every touched record as it was; ``changed``: the touched records known to differ from their
        pristine JSON (the others are left where they stand), None: all are put back."""
        for key, shadow in self._undo.items():
            if shadow is _MISSING or changed is None or key in changed:
                self._put_back(key, shadow)
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
