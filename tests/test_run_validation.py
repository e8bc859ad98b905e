"""``validate_run`` (messages keyed by role) gives what tau2's ``SimulationRun.model_validate`` gives: the same
models, fields, fields set and defaults on real runs, and tau2's own error on bad ones."""

from __future__ import annotations

import copy
import glob
import json

import pytest
from pydantic import BaseModel, ValidationError
from tau2.data_model.simulation import SimulationRun

from loophole_ingest._run_validation import _keyed_by_role, validate_run
from tests.conftest import SHARED


def _shape(value: object) -> object:
    """Everything a model holds, nested: its class, fields set, values (a defaulted timestamp, the clock's,
    left out), extra and private parts."""
    if isinstance(value, BaseModel):
        fields = {k: _shape(v) for k, v in value.__dict__.items()
                  if k != "timestamp" or "timestamp" in value.model_fields_set}
        return (type(value).__name__, sorted(value.model_fields_set), fields, value.__pydantic_extra__,
                value.__pydantic_private__)
    if isinstance(value, list):
        return [_shape(v) for v in value]
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    return type(value).__name__, repr(value)


def _outcome(validate, payload: object) -> object:  # noqa: ANN001 - a validating callable
    try:
        return _shape(validate(payload))
    except ValidationError as exc:
        return "error", str(exc)


def _shared_simulations() -> list[dict]:
    sims: list[dict] = []
    for pattern in ("real-runs/*.json", "dev-corpus/runs/*.json", "dev-corpus/other-families/runs/*.json"):
        for name in sorted(glob.glob(str(SHARED / pattern))):
            with open(name, "rb") as fh:
                sims += (json.load(fh).get("simulations") or [])[:25]
    return sims


def test_the_role_keyed_validator_is_built_not_tau2s_reused():
    keyed = _keyed_by_role()
    assert keyed is not None
    assert "Prebuilt" not in repr(keyed)[:200]  # pydantic-core would otherwise reuse tau2's union whole
    assert SimulationRun.__pydantic_complete__ is True  # restored after the build


def test_real_simulations_validate_to_the_same_models_without_tau2s_validator(monkeypatch):
    sims = _shared_simulations()
    assert len(sims) > 100
    expected = [_outcome(SimulationRun.model_validate, s) for s in sims]

    def unused(*_: object, **__: object) -> object:
        raise AssertionError("tau2's validator ran on a valid simulation")

    monkeypatch.setattr(SimulationRun, "model_validate", unused)
    assert [_outcome(validate_run, s) for s in sims] == expected


def _tool_result(call_id: str) -> dict:
    return {"id": call_id, "role": "tool", "content": "ok", "requestor": "assistant"}


BAD_MESSAGES = [
    {"content": "no role"},
    {"role": "robot", "content": "an unknown role"},
    {"role": 3, "content": "a role that is no string"},
    {"role": ["assistant"], "content": "a role that is a list"},
    "not an object",
    None,
    {"role": "assistant", "content": 5},  # a content of the wrong type
    {"role": "assistant", "content": "x", "tool_calls": [{"id": "c", "name": 1, "arguments": {}}]},
    {"role": "tool", "content": "a tool result without its id"},
    {"role": "tool", "tool_messages": [_tool_result("a"), _tool_result("b")]},  # tau2's MultiToolMessage
    {"role": "tool", "tool_messages": [{"role": "tool"}]},
    {"role": "tool", "id": "t", "content": "both shapes", "tool_messages": [_tool_result("a")]},
    {"role": "system", "content": "a system prompt", "extra_field": 1},
    {"role": "user", "content": None, "tool_calls": None},
    {"role": "assistant", "content": "lax types", "turn_idx": "3", "cost": "0.5"},
]


@pytest.mark.parametrize("message", BAD_MESSAGES, ids=range(len(BAD_MESSAGES)))
def test_odd_messages_give_tau2s_result_or_tau2s_error(message):
    sim = copy.deepcopy(_shared_simulations()[0])
    sim["messages"] = [*sim["messages"][:3], message, *sim["messages"][3:]]
    assert _outcome(validate_run, sim) == _outcome(SimulationRun.model_validate, sim)


def test_a_bad_simulation_is_tau2s_error():
    sim = copy.deepcopy(_shared_simulations()[0])
    sim["duration"] = "long"
    del sim["task_id"]
    sim["messages"][1] = {"role": "robot"}
    assert _outcome(validate_run, sim)[0] == "error"
    assert _outcome(validate_run, sim) == _outcome(SimulationRun.model_validate, sim)
