"""_upstream's early return (a simulation that records none of tau2 main's fields: None without building
the record) agrees with building it, on every simulation of the shared runs and the dev corpus and on
records that hold each field."""

from __future__ import annotations

import glob
import json

import pytest

from loophole_ingest import _upstream
from loophole_ingest._simulations import _check_fields
from tests.conftest import SHARED

_FILES = [f for p in ("real-runs/*.json", "dev-corpus/runs/*.json", "dev-corpus/other-families/runs/*.json")
          for f in sorted(glob.glob(str(SHARED / p)))]

_MADE = [  # each of tau2 main's fields alone, and none
    {}, {"reward_info": None}, {"reward_info": {"reward": 1.0}}, {"reward_info": {"info": {"env": "x"}}},
    {"reward_info": {"evaluation_mode": "replay"}}, {"reward_info": {"state_source": "live"}},
    {"reward_info": {"replayed_actions": []}}, {"reward_info": {"warnings": ["lenient"]}},
    {"reward_info": {"warnings": []}}, {"reward_info": {"info": {"gold_replay_incomplete": True}}},
    {"reward_info": {"info": {"gold_replay_incomplete": False}}}, {"reward_info": {"info": {"db_evaluated": False}}},
    {"reward_info": {"info": {"failed_mutating_actions": [{"tool_name": "x"}]}}},
    {"reward_info": {"info": {"failed_mutating_actions": []}}}, {"quality_info": {"score": 0.5}},
    {"delivery_info": {"score": None}},
]


def _both(raw: dict, monkeypatch: pytest.MonkeyPatch) -> tuple[object, object]:
    fields, error = _check_fields(raw)
    assert error is None, error
    axes = {a: getattr(fields, f"{a}_info") for a in ("quality", "nativeness", "delivery")}
    fast = _upstream.upstream_fields(fields.reward_info, axes, raw.get("reward_info"))
    with monkeypatch.context() as m:
        m.setattr(_upstream, "_records_nothing", lambda *_: False)
        slow = _upstream.upstream_fields(fields.reward_info, axes, raw.get("reward_info"))
    return fast, slow


@pytest.mark.parametrize("raw", _MADE, ids=range(len(_MADE)))
def test_the_gate_agrees_on_each_field(raw, monkeypatch):
    fast, slow = _both(raw, monkeypatch)
    assert fast == slow


def test_the_gate_agrees_on_real_simulations(monkeypatch):
    seen = returned = 0
    for name in _FILES:
        with open(name, "rb") as fh:
            for raw in json.load(fh).get("simulations") or []:
                fast, slow = _both(raw, monkeypatch)
                assert fast == slow, (name, raw.get("id"))
                seen += 1
                returned += fast is None
    assert seen > 500 and returned > 0
