"""``envs._db.load_db`` (msgspec's decode, then tau2's model) gives the database tau2's own ``DB.load`` gives, for
both domains: equal models, the same JSON, and the same Python types throughout their dumps (an int read as a float,
or a float as an int, would compare equal and still change what the tools write). The environments the replay
builds hold it, and a file msgspec refuses is read by tau2's loader."""

from __future__ import annotations

import math
import mmap
from pathlib import Path
from typing import Any

import msgspec
import pytest
from pydantic import BaseModel, ValidationError
from tau2.environment.db import DB

from envs import _db, environment_constructor


def _typed(value: Any) -> Any:
    """``value`` with each leaf's type beside it, for an equality that tells 1 from 1.0 and True from 1."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [type(value).__name__, [_typed(v) for v in value]]
    return (type(value).__name__, value)


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_the_database_equals_tau2s_own_load_type_for_type(domain: str) -> None:
    model, path = _db._db_of(domain)
    theirs = model.load(str(path))
    ours = _db.load_db(domain)
    assert type(ours) is type(theirs)
    assert ours == theirs
    assert ours.model_dump_json() == theirs.model_dump_json()
    assert _typed(ours.model_dump()) == _typed(theirs.model_dump())


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_the_environment_holds_that_database_and_one_given_is_kept(domain: str) -> None:
    model, path = _db._db_of(domain)
    env = environment_constructor(domain)()
    assert _typed(env.tools.db.model_dump()) == _typed(model.load(str(path)).model_dump())
    given = model.load(str(path))
    assert environment_constructor(domain)(db=given).tools.db is given


class _Tiny(DB):
    amount: float


def test_a_file_msgspec_refuses_is_read_by_tau2s_loader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "db.json"
    path.write_text('{"amount": NaN}')
    with pytest.raises(msgspec.DecodeError):
        msgspec.json.decode(path.read_bytes())
    monkeypatch.setattr(_db, "_db_of", lambda domain: (_Tiny, path))
    loaded = _db.load_db("airline")
    assert isinstance(loaded, _Tiny) and math.isnan(loaded.amount)


def _same_tree(ours: Any, theirs: Any, where: str = "db") -> None:
    """Node for node: the same classes, fields set, keys in the same order and equal leaves."""
    assert type(ours) is type(theirs), where
    if isinstance(ours, BaseModel):
        assert ours.__pydantic_fields_set__ == theirs.__pydantic_fields_set__, where
        assert list(ours.__dict__) == list(theirs.__dict__), where
        for key, value in ours.__dict__.items():
            _same_tree(value, theirs.__dict__[key], f"{where}.{key}")
    elif isinstance(ours, dict):
        assert list(ours) == list(theirs), where
        for key, value in ours.items():
            _same_tree(value, theirs[key], f"{where}/{key}")
    elif isinstance(ours, list | tuple):
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _same_tree(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs, where


def test_airlines_dates_read_by_their_status_are_the_models_tau2s_union_picks() -> None:
    """The flights' dates validated by their status (``_flights_dated_by_status``) are, at every node, what tau2's
    smart union makes of them: the same status class, the same fields set, in the same order."""
    model, path = _db._db_of("airline")
    assert _db._dates_by_status(model) is not None  # the fast path is taken for the pinned model
    ours, theirs = _db.load_db("airline"), model.load(str(path))
    statuses = {type(d).__name__ for f in ours.flights.values() for d in f.dates.values()}
    assert len(statuses) >= 4  # the pinned data holds most of the union's members
    _same_tree(ours, theirs)


def test_a_date_no_status_names_raises_tau2s_own_error() -> None:
    model, path = _db._db_of("airline")
    data = msgspec.json.decode(path.read_bytes())
    flight = next(iter(data["flights"].values()))
    flight["dates"][next(iter(flight["dates"]))]["status"] = "teleported"
    with pytest.raises(ValidationError) as ours:
        _db._flights_dated_by_status(model, data)
    with pytest.raises(ValidationError) as theirs:
        model.model_validate(data)
    assert str(ours.value) == str(theirs.value)


class _Plain(DB):
    flights: dict[str, int]


def test_a_model_without_that_union_is_validated_whole() -> None:
    assert _db._dates_by_status(_Plain) is None
    assert _db._flights_dated_by_status(_Plain, {"flights": {"a": 1}}) == _Plain(flights={"a": 1})


def test_the_file_is_decoded_from_a_mapping_released_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """``load_db`` decodes the file's mapping (no copy of its bytes), and closes it: msgspec keeps nothing of it."""
    maps: list[mmap.mmap] = []
    real = mmap.mmap

    def mapped(*args: Any, **kwargs: Any) -> mmap.mmap:
        maps.append(real(*args, **kwargs))
        return maps[-1]

    monkeypatch.setattr(_db.mmap, "mmap", mapped)
    model, path = _db._db_of("retail")
    assert _db.load_db("retail") == model.load(str(path))
    assert len(maps) == 1 and maps[0].closed


@pytest.mark.parametrize("text", ["", "{"])
def test_an_empty_or_cut_file_raises_tau2s_own_error(tmp_path: Path, text: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that cannot be mapped (empty) is read, and one msgspec refuses goes to tau2's loader: its own error."""
    path = tmp_path / "db.json"
    path.write_text(text)
    monkeypatch.setattr(_db, "_db_of", lambda domain: (_Tiny, path))
    with pytest.raises(ValueError) as ours:
        _db.load_db("airline")
    with pytest.raises(ValueError) as theirs:
        _Tiny.load(str(path))
    assert type(ours.value) is type(theirs.value) and str(ours.value) == str(theirs.value)
