"""``trials.record_json`` is carried as pydantic's UTF-8 bytes from the scorer to Arrow (no str between, #47): on
real conversations the bytes are ``model_dump_json()``'s text, and the column Arrow builds from them is the one it
built from that text."""

from __future__ import annotations

import pytest

import loophole_store as store
from envs import ReplayMode, engine_for
from harness.rescoring import import_sources
from loophole_scoring import score_simulation
from tests.conftest import SHARED

RUN = SHARED / "real-runs" / "whissle_airline_tau3_1trial.json"


@pytest.fixture(scope="module")
def scored() -> list:
    if not RUN.exists():
        pytest.skip("the shared real runs are absent")
    (run,), _ = import_sources([str(RUN)], None, False)
    engine = engine_for(run.domain)
    sims = [item.sim for item in run.simulations if item.sim is not None][:12]
    return [score_simulation(sim, run.domain, run.task_version, engine, None, None, ReplayMode.LENIENT) for sim in sims]


def test_record_bytes_are_model_dump_json_text(scored: list) -> None:
    texts = [s.record.model_dump_json() for s in scored]
    assert any(not t.isascii() for t in texts)  # the case the str cost most on: wide text decoded and encoded again
    for s, text in zip(scored, texts, strict=True):
        trial, _ = store.reward_rows(s, run_id="r", trajectory_id="t")
        assert isinstance(trial["record_json"], bytes)
        assert trial["record_json"] == text.encode("utf-8")


def test_record_column_from_bytes_equals_the_column_from_text(scored: list) -> None:
    rows = []
    for k, s in enumerate(scored):
        trial, _ = store.reward_rows(s, run_id="r", trajectory_id=f"t{k:02d}")
        rows.append(store.trial_row(trajectory_id=f"t{k:02d}", **trial))
    as_text = [{**r, "record_json": r["record_json"].decode("utf-8")} for r in rows]
    built = store.to_table(rows, store.TRIALS_SCHEMA)
    assert built.equals(store.to_table(as_text, store.TRIALS_SCHEMA))
    assert built.column("record_json").to_pylist() == [s.record.model_dump_json() for s in scored]
