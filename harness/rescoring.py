"""Rescoring: imported results files → scores → Parquet rows. No CLI and no printing here."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tau2.data_model.simulation import SimulationRun

from envs import load_task_set
from envs.replay import ReplayEngine
from gold_variants import variants_for
from harness import store
from harness.importers import ImportedRun, ImportedSimulation, expand_paths, import_results_file
from harness.provenance import catalog_sha256
from harness.scoring import Judge, LitellmJudge, score_trajectory

_ENGINES: dict[str, ReplayEngine] = {}  # one per domain per worker process


def engine_for(domain: str) -> ReplayEngine:
    if domain not in _ENGINES:
        _ENGINES[domain] = ReplayEngine(domain)
    return _ENGINES[domain]


@dataclass(frozen=True)
class JudgeSpec:
    """A picklable description of a judge, rebuilt in each worker."""

    model: str
    args: tuple[tuple[str, object], ...] = ()

    def build(self) -> Judge:
        return LitellmJudge(self.model, **dict(self.args))


@dataclass
class FileSummary:
    path: Path
    domain: str
    task_version: str
    version_note: str
    agent_model: str | None
    count: int = 0
    recorded_mean: float | None = None
    recomputed_mean: float | None = None
    n_recomputed: int = 0
    disagreement_task_ids: list[str] = field(default_factory=list)
    multi_gold_mean: float | None = None
    changed_verdicts: list[tuple[str, str, list[str]]] = field(default_factory=list)  # (task, trajectory, golds)
    null_reasons: dict[str, int] = field(default_factory=dict)
    normalised_trajectories: int = 0


def _trial_row(run: ImportedRun, index: int, item: ImportedSimulation) -> dict:
    raw = item.raw
    recorded = (raw.get("reward_info") or {}).get("reward") if isinstance(raw.get("reward_info"), dict) else None
    return {
        "run_id": run.run_id,
        "trajectory_id": f"{run.run_id}:{index:05d}:{item.simulation_id}",
        "simulation_id": item.simulation_id,
        "source_file": str(run.path),
        "source_sha256": run.sha256,
        "domain": run.domain,
        "task_version": run.task_version,
        "task_id": str(raw.get("task_id")) if raw.get("task_id") is not None else None,
        "trial": _int(raw.get("trial")),
        "seed": _int(raw.get("seed")),
        "agent_name": run.agent_model,
        "agent_model": run.agent_model,
        "agent_implementation": run.agent_implementation,
        "user_model": run.user_model,
        "termination_reason": _str(raw.get("termination_reason")),
        "recorded_reward": _float(recorded),
        "duration_s": _float(raw.get("duration")),
        "agent_cost": _float(raw.get("agent_cost")),
        "user_cost": _float(raw.get("user_cost")),
        "n_messages": len(raw.get("messages") or []),
        "messages_json": json.dumps(raw.get("messages") or [], ensure_ascii=False),
    }


def _int(v: object) -> int | None:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _float(v: object) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _str(v: object) -> str | None:
    return None if v is None else str(v)


def scored_rows(
    sim: SimulationRun, domain: str, task_version: str, trajectory_id: str, engine: ReplayEngine, judge: Judge | None
) -> tuple[dict, list[dict]]:
    """Score one simulation against its gold and variants: the trial's reward fields and its score rows."""
    task = load_task_set(domain, task_version).task(sim.task_id)
    result = score_trajectory(sim, task, engine, judge, variants_for(domain, task_version, sim.task_id))
    gold = result.single_gold
    trial = {
        "reward": gold.reward,
        "multi_gold_reward": result.multi_gold_reward,
        "matched_gold_ids": result.matched_gold_ids,
        "status": gold.status,
        "reason": gold.reason,
    }
    scores = [
        {
            "trajectory_id": trajectory_id,
            "task_id": sim.task_id,
            "gold_id": s.gold_id,
            "loophole_id": result.variants[s.gold_id].loophole_id if s.gold_id in result.variants else None,
            "reading": result.variants[s.gold_id].reading if s.gold_id in result.variants else None,
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
            "catalog_sha256": catalog_sha256(),
        }
        for s in result.scores
    ]
    return trial, scores


def score_items(
    domain: str, task_version: str, items: Sequence[tuple[str, dict]], judge: JudgeSpec | None
) -> list[tuple[str, dict, list[dict]]]:
    """Score (trajectory_id, raw simulation) pairs; runs in-process or as a Ray task."""
    from harness._quiet import set_log_level

    set_log_level(False)
    engine = engine_for(domain)
    built = judge.build() if judge else None
    out = []
    for trajectory_id, raw in items:
        sim = SimulationRun.model_validate(raw)
        trial, scores = scored_rows(sim, domain, task_version, trajectory_id, engine, built)
        out.append((trajectory_id, trial, scores))
    return out


def import_all(paths: list[str], task_version: str | None, skip_bad: bool) -> list[ImportedRun]:
    """Read and validate every file before anything is scored or written."""
    return [import_results_file(p, task_version, skip_bad) for p in expand_paths(paths)]


def rescore_runs(
    runs: list[ImportedRun],
    out: Path,
    workers: int = 1,
    judge: JudgeSpec | None = None,
    on_progress: Callable[[int], None] | None = None,
    chunk_size: int = 64,
) -> list[FileSummary]:
    """Score every simulation of ``runs`` and upsert the rows into the store at ``out``."""
    trial_rows: dict[str, dict] = {}
    groups: dict[tuple[str, str], list[tuple[str, dict]]] = {}
    for run in runs:
        for index, item in enumerate(run.simulations):
            row = _trial_row(run, index, item)
            trial_rows[row["trajectory_id"]] = row
            if item.sim is None:
                row.update(reward=None, multi_gold_reward=None, status="error", reason=item.error)
            else:
                groups.setdefault((run.domain, run.task_version), []).append((row["trajectory_id"], item.raw))
    chunks = [
        (domain, version, items[i : i + chunk_size], judge)
        for (domain, version), items in groups.items()
        for i in range(0, len(items), chunk_size)
    ]
    if workers > 1 and len(chunks) > 1:
        from harness.execution import ray_map

        results = ray_map(score_items, chunks, workers)
    else:
        results = (score_items(*chunk) for chunk in chunks)
    score_rows: list[dict] = []
    for scored in results:
        for trajectory_id, trial, scores in scored:
            trial_rows[trajectory_id].update(trial)
            trial_rows[trajectory_id]["_normalised"] = any(s["replay_normalised"] for s in scores)
            run_id = trial_rows[trajectory_id]["run_id"]
            score_rows += [{"run_id": run_id, **s} for s in scores]
        if on_progress:
            on_progress(len(scored))
    with store.run_lock(out):
        store.upsert_rows(out, "trials", trial_rows.values())
        store.upsert_rows(out, "scores", score_rows, replace_trajectories=trial_rows.keys())
        store.write_disagreements(out)
    return [_summarise(run, trial_rows) for run in runs]


def _summarise(run: ImportedRun, trial_rows: dict[str, dict]) -> FileSummary:
    rows = [r for r in trial_rows.values() if r["run_id"] == run.run_id]
    summary = FileSummary(run.path, run.domain, run.task_version, run.version_note, run.agent_model, len(rows))
    recorded = [r["recorded_reward"] for r in rows if r["recorded_reward"] is not None]
    ours = [r["reward"] for r in rows if r.get("reward") is not None]
    summary.recorded_mean = sum(recorded) / len(recorded) if recorded else None
    summary.recomputed_mean = sum(ours) / len(ours) if ours else None
    summary.n_recomputed = len(ours)
    multi = [r["multi_gold_reward"] for r in rows if r.get("multi_gold_reward") is not None]
    summary.multi_gold_mean = sum(multi) / len(multi) if multi else None
    for r in rows:
        if r.get("reward") is not None and r.get("multi_gold_reward") is not None and r["multi_gold_reward"] > r["reward"]:
            credited = [g for g in r.get("matched_gold_ids") or [] if g != "gold"]
            summary.changed_verdicts.append((str(r["task_id"]), r["trajectory_id"], credited))
    summary.normalised_trajectories = sum(bool(r.get("_normalised")) for r in rows)
    for r in rows:
        if r.get("reward") is None:
            key = r.get("status") or "error"
            summary.null_reasons[key] = summary.null_reasons.get(key, 0) + 1
        elif r["recorded_reward"] is not None and abs(r["recorded_reward"] - r["reward"]) > 1e-9:
            summary.disagreement_task_ids.append(str(r["task_id"]))
    return summary
