"""``envs._db.load_db`` (msgspec's decode, then tau2's model) gives the database tau2's own ``DB.load`` gives, for
both domains: equal models, the same JSON, and the same Python types throughout their dumps (an int read as a float,
or a float as an int, would compare equal and still change what the tools write). The environments the replay
builds hold it, and a file msgspec refuses is read by tau2's loader."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import msgspec
import pytest
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
