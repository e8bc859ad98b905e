"""The one builder of ``trials`` and ``scores`` rows, for sweeps and rescoring alike.

A sweep trial and a rescored simulation differ in where their identity comes from (a trial key, or a
results file); from there on their rows are built here, so the two kinds of run cannot drift apart in
a column's meaning. Values that the schema cannot hold (a bad row kept by ``--skip-bad``) become null.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from gold_variants import catalog_sha256
from loophole_store._json_text import json_text
from loophole_store._schemas import TRIALS_SCHEMA

if TYPE_CHECKING:  # the store imports no scorer (nor tau2) at import time
    from pydantic import BaseModel

    from loophole_scoring import ScoredSimulation

_TRIAL_NAMES = tuple(TRIALS_SCHEMA.names)  # ``Schema.names`` builds its list anew at each call
_TRIAL_COLUMNS = frozenset(_TRIAL_NAMES)


def trial_row(**columns: object) -> dict:
    """A ``trials`` row: every column of the schema, unset ones null. A column the schema lacks is a bug."""
    if not _TRIAL_COLUMNS.issuperset(columns):
        raise KeyError(f"not columns of trials: {sorted(set(columns) - _TRIAL_COLUMNS)}")
    row = dict.fromkeys(_TRIAL_NAMES)  # the schema's order, then the values given
    row.update(columns)
    return row


def trajectory_columns(
    messages: Sequence[object],
    *,
    termination_reason: object,
    duration_s: object,
    agent_cost: object,
    user_cost: object,
    from_strict_json: bool = False,
) -> dict:
    """The columns a trajectory fills in, whichever kind of run recorded it: messages as JSON
    (``from_strict_json``: decoded from a results file's strict JSON, so no number is NaN or Infinity)."""
    return {
        "termination_reason": None if termination_reason is None else str(termination_reason),
        "duration_s": float_or_null(duration_s),
        "agent_cost": float_or_null(agent_cost),
        "user_cost": float_or_null(user_cost),
        "n_messages": len(messages),
        "messages_json": json_text(messages if isinstance(messages, list) else list(messages), finite=from_strict_json),
    }


def reward_rows(scored: ScoredSimulation, *, run_id: str, trajectory_id: str) -> tuple[dict, list[dict]]:
    """A scored trajectory's reward columns of its ``trials`` row, and its ``scores`` rows."""
    result = scored.result
    gold = result.single_gold
    trial = {
        "reward": gold.reward,
        "multi_gold_reward": result.multi_gold_reward,
        "multi_gold_upper": result.multi_gold_upper,
        "strict_reward": scored.strict.reward if scored.strict is not None else None,
        "strict_reason": scored.strict.reason if scored.strict is not None else None,
        "matched_gold_ids": result.matched_gold_ids,
        "status": gold.status,
        "reason": gold.reason if gold.reason or not scored.variants_note else scored.variants_note,
        "judge": scored.judge_name,
        "judge_cost": scored.judge_cost,
        "replay_mode": str(result.replay_mode),
        "replay_flags": sorted(result.replay_flags),
        # pydantic's JSON as bytes (``model_dump_json`` decodes them to a str): Arrow takes the UTF-8 as it is,
        # where a str the record's non-ASCII text made wide was decoded, pickled and encoded again (#47)
        "record_json": _record_json(scored.record) if scored.record is not None else None,
    }
    sha = catalog_sha256()
    scores = []
    for s in result.scores:
        variant = result.variants.get(s.gold_id)
        scores.append(
            {
                "run_id": run_id,
                "trajectory_id": trajectory_id,
                "task_id": scored.task_id,
                "gold_id": s.gold_id,
                "loophole_id": variant.loophole_id if variant is not None else None,
                "reading": variant.reading if variant is not None else None,
                "reward": s.reward,
                "reward_basis": ",".join(s.reward_basis),
                "db_match": s.db_match,
                "communicate": s.communicate,
                "nl_assertion": s.nl_assertion,
                "action": s.action,
                "env_assertion": s.env_assertion,
                "status": s.status,
                "reason": s.reason,
                "replay_normalised": s.replay_normalised,
                "verdict": None if s.verdict is None else str(s.verdict),
                "explanation_json": s.explanation_json,
                "catalog_sha256": sha,
            }
        )
    return trial, scores


def _record_json(record: BaseModel) -> bytes:
    """``record.model_dump_json().encode()``, without the str between."""
    return record.__pydantic_serializer__.to_json(record)


def failure_scores(
    *, run_id: str, trajectory_id: str, domain: str, task_version: str, task_id: str, status: str, reason: str
) -> list[dict]:
    """A trial the agent failed (it crashed): 0 under the gold and under every variant, since no reading
    credits a crash."""
    from gold_variants import variants_for

    golds: list[tuple[str, str | None, str | None]] = [("gold", None, None)]
    golds += [(v.gold_id, v.loophole_id, v.reading) for v in variants_for(domain, task_version, task_id)]
    sha = catalog_sha256()
    return [
        {"run_id": run_id, "trajectory_id": trajectory_id, "task_id": task_id, "gold_id": gold_id,
         "loophole_id": loophole_id, "reading": reading, "reward": 0.0, "verdict": "not_credited", "status": status, "reason": reason,
         "catalog_sha256": sha}
        for gold_id, loophole_id, reading in golds
    ]


def int_or_null(v: object) -> int | None:
    """An int64 column value; anything else is null."""
    if isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63:
        return v
    return None


def float_or_null(v: object) -> float | None:
    """A finite float column value; anything else is null."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    return None


class StringColumn:
    """A string column built in Arrow chunks, so that its values are not held twice (as Python strings
    and as Arrow) at the end: the messages, the largest column of a rescore."""

    def __init__(self, every: int = 256) -> None:
        self.chunks: list[pa.Array] = []
        self.pending: list[str] = []
        self.every = every

    def add(self, value: str) -> None:
        self.pending.append(value)
        if len(self.pending) >= self.every:
            self.chunks.append(pa.array(self.pending, pa.string()))
            self.pending = []

    def finish(self) -> pa.ChunkedArray:
        if self.pending or not self.chunks:
            self.chunks.append(pa.array(self.pending, pa.string()))
            self.pending = []
        return pa.chunked_array(self.chunks, pa.string())
