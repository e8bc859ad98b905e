"""Rescoring: imported results files → scores → Parquet rows. No CLI and no printing here."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.data_model.tasks import Task

import loophole_store as store
from envs import load_task_set
from envs.replay import ReplayEngine
from gold_variants import variants_for
from harness.ingest import (
    CUSTOM,
    ImportedRun,
    ImportedSimulation,
    find_sources,
    import_results_file,
    pinned_gold_version,
    shown,
)
from loophole_scoring import Judge, JudgeError, JudgeVerdict, LitellmJudge, score_trajectory
from loophole_store import catalog_sha256

_ENGINES: dict[str, ReplayEngine] = {}  # one per domain per worker process
RECORDED = "recorded"  # --judge recorded: the verdicts in reward_info.nl_assertions
NO_VARIANTS_CUSTOM = "no variants: custom task"
_PINNED = {r.value for r in TerminationReason}


def engine_for(domain: str) -> ReplayEngine:
    if domain not in _ENGINES:
        _ENGINES[domain] = ReplayEngine(domain)
    return _ENGINES[domain]


@dataclass(frozen=True)
class JudgeSpec:
    """A picklable description of a judge, rebuilt in each worker (``model = "recorded"``: the file's own)."""

    model: str
    args: tuple[tuple[str, object], ...] = ()
    api_key_env: str | None = None

    def build(self) -> Judge | None:
        if self.model == RECORDED:
            return None  # built per trajectory from its recorded verdicts
        return LitellmJudge(self.model, api_key_env=self.api_key_env, **dict(self.args))


class RecordedJudge:
    """The verdicts a results file recorded (``reward_info.nl_assertions``), reused when their assertion
    texts equal the task's assertions."""

    name = RECORDED

    def __init__(self, recorded: object) -> None:
        self.recorded = recorded

    def judge(self, messages: Sequence, assertions: Sequence[str]) -> JudgeVerdict:
        checks = self.recorded if isinstance(self.recorded, list) else None
        if not checks or not all(isinstance(c, dict) for c in checks):
            raise JudgeError(
                "no recorded NL-assertion verdicts (reward_info.nl_assertions) to reuse"
            )
        texts = [c.get("nl_assertion") for c in checks]
        if sorted(map(str, texts)) != sorted(assertions):
            raise JudgeError(
                "recorded NL-assertion verdicts are for other assertion texts than the task's"
            )
        if not all(isinstance(c.get("met"), bool) for c in checks):
            raise JudgeError("a recorded NL-assertion verdict has no boolean 'met'")
        return JudgeVerdict(met=all(c["met"] for c in checks), checks=checks)


class _OncePerTrajectory:
    """A judge called at most once per trajectory and assertion list (the gold and its variants share the
    messages and the assertions), recording which judge answered and what it cost."""

    def __init__(self, judge: Judge) -> None:
        self.inner = judge
        self.name = judge.name
        self.cache: dict[tuple[str, ...], JudgeVerdict | JudgeError] = {}
        self.cost = 0.0

    def judge(self, messages: Sequence, assertions: Sequence[str]) -> JudgeVerdict:
        key = tuple(assertions)
        if key not in self.cache:
            try:
                verdict = self.inner.judge(messages, assertions)
                self.cost += verdict.cost
                self.cache[key] = verdict
            except JudgeError as exc:
                self.cache[key] = exc
        answer = self.cache[key]
        if isinstance(answer, JudgeError):
            raise answer
        return answer


@dataclass
class FileSummary:
    path: Path
    domain: str
    task_version: str
    version_note: str
    agent_model: str | None
    count: int = 0
    recorded_domain: str | None = None
    layout: str = "monolithic"
    recorded_mean: float | None = None
    recomputed_mean: float | None = None
    n_recomputed: int = 0
    disagreement_task_ids: list[str] = field(default_factory=list)
    multi_gold_mean: float | None = None
    changed_verdicts: list[tuple[str, str, list[str]]] = field(
        default_factory=list
    )  # (task, trajectory, golds)
    null_reasons: dict[str, int] = field(default_factory=dict)
    normalised_trajectories: int = 0
    judged: dict[str, int] = field(default_factory=dict)  # judge -> rows it graded
    judge_cost: float = 0.0
    custom_tasks_without_variants: int = 0
    flags: dict[str, int] = field(default_factory=dict)  # flag -> rows carrying it


def _trial_row(run: ImportedRun, index: int, item: ImportedSimulation) -> dict:
    raw = item.raw
    recorded = (
        (raw.get("reward_info") or {}).get("reward")
        if isinstance(raw.get("reward_info"), dict)
        else None
    )
    messages = raw.get("messages")
    messages = messages if isinstance(messages, list) else []
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
        "n_messages": len(messages),
        "messages_json": json.dumps(messages, ensure_ascii=False),
        "recorded_domain": run.recorded_domain,
        "policy_sha256": run.policy_sha256,
        "tasks_sha256": run.tasks_sha256,
        "judge": "none",
        "judge_cost": 0.0,
        "flags": list(item.flags),
    }


def _int(v: object) -> int | None:
    """An int64 column value; anything else (a bad row kept by --skip-bad) is null."""
    ok = isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63
    return v if ok else None  # type: ignore[return-value]


def _float(v: object) -> float | None:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
        return float(v)
    return None


def _str(v: object) -> str | None:
    return None if v is None else str(v)


def _variants(domain: str, task_version: str, task: Task) -> tuple[list, str | None]:
    """Gold variants apply where the task's gold is a pinned version's gold."""
    if task_version != CUSTOM:
        return list(variants_for(domain, task_version, task.id)), None
    pinned = pinned_gold_version(domain, task)
    if pinned is None:
        return [], NO_VARIANTS_CUSTOM
    return list(variants_for(domain, pinned, task.id)), None


def scored_rows(
    sim: SimulationRun,
    domain: str,
    task_version: str,
    trajectory_id: str,
    engine: ReplayEngine,
    judge: Judge | None,
    task: Task | None = None,
) -> tuple[dict, list[dict]]:
    """Score one simulation against its gold and variants: the trial's reward fields and its score rows.

    ``task`` is the task to score against (a custom run's embedded task); by default the pinned one.
    The judge is asked at most once per trajectory, and only where the reward depends on it.
    """
    task = task or load_task_set(domain, task_version).task(sim.task_id)
    variants, variants_note = _variants(domain, task_version, task)
    once = _OncePerTrajectory(judge) if judge is not None else None
    result = score_trajectory(sim, task, engine, once, variants)
    gold = result.single_gold
    trial = {
        "reward": gold.reward,
        "multi_gold_reward": result.multi_gold_reward,
        "matched_gold_ids": result.matched_gold_ids,
        "status": gold.status,
        "reason": gold.reason if gold.reason or not variants_note else variants_note,
        "judge": once.name if once is not None and once.cache else "none",
        "judge_cost": once.cost if once is not None else 0.0,
    }
    scores = [
        {
            "trajectory_id": trajectory_id,
            "task_id": sim.task_id,
            "gold_id": s.gold_id,
            "loophole_id": result.variants[s.gold_id].loophole_id
            if s.gold_id in result.variants
            else None,
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
            "explanation_json": s.explanation_json,
            "catalog_sha256": catalog_sha256(),
        }
        for s in result.scores
    ]
    return trial, scores


def _recorded_verdicts(raw: dict) -> object:
    info = raw.get("reward_info")
    return info.get("nl_assertions") if isinstance(info, dict) else None


def score_items(
    domain: str,
    task_version: str,
    items: Sequence[tuple],
    judge: JudgeSpec | None,
    tasks: dict[str, Task] | None = None,
) -> list[tuple[str, dict, list[dict]]]:
    """Score (trajectory_id, raw simulation[, its validated SimulationRun]) items; in-process or on Ray.

    ``tasks``: a custom run's embedded tasks by id (pinned runs: None, the pinned tasks).
    """
    from harness._quiet import set_log_level
    from harness.ingest import COMPLETED

    set_log_level(False)
    engine = engine_for(domain)
    built = judge.build() if judge else None
    out = []
    for trajectory_id, raw, *validated in items:
        recorded_reason = raw.get("termination_reason")
        if validated:  # validated at import, in this process
            sim = validated[0]
        else:
            payload = (
                raw if recorded_reason in _PINNED else {**raw, "termination_reason": "agent_error"}
            )
            sim = SimulationRun.model_validate(payload)
        per_trajectory = (
            RecordedJudge(_recorded_verdicts(raw)) if judge and judge.model == RECORDED else built
        )
        task = tasks[sim.task_id] if tasks is not None else None
        trial, scores = scored_rows(
            sim, domain, task_version, trajectory_id, engine, per_trajectory, task
        )
        if recorded_reason not in COMPLETED and recorded_reason not in _PINNED:
            # a tau2 1.0 reason the pinned model lacks: 0 by tau2 1.0's rule, named as recorded
            why = f"terminated prematurely: {recorded_reason}"
            trial["reason"] = why
            for s in scores:
                s["reason"] = why
        out.append((trajectory_id, trial, scores))
    return out


def import_sources(
    paths: list[str], task_version: str | None, skip_bad: bool, domain: str | None = None
) -> tuple[list[ImportedRun], list[str]]:
    """Find and read every file's metadata (and check it parses) before anything is scored or written;
    also the notes on paths that were skipped."""
    found = find_sources(paths)
    runs: dict[str, ImportedRun] = {}
    for path in found.sources:
        run = import_results_file(path, task_version, skip_bad, domain)
        if run.sha256 in runs:  # the same run twice (a copy): its rows would collide
            found.notes.append(
                f"{shown(path)}: skipped (same content as {shown(runs[run.sha256].path)})"
            )
            continue
        runs[run.sha256] = run
    return list(runs.values()), found.notes


def import_all(
    paths: list[str], task_version: str | None, skip_bad: bool, domain: str | None = None
) -> list[ImportedRun]:
    return import_sources(paths, task_version, skip_bad, domain)[0]


Chunk = tuple[str, str, list[tuple], "JudgeSpec | None", "dict[str, Task] | None"]


def _chunks(
    runs: Iterable[ImportedRun],
    trial_rows: dict[str, dict],
    messages: _Column,
    judge: JudgeSpec | None,
    chunk_size: int,
) -> Iterator[Chunk]:
    """Stream each run's simulations into trial rows and chunks to score; a run's simulations are read
    one at a time, so only the chunks in flight hold raw simulations."""
    for run in runs:
        tasks = run.tasks if run.task_version == CUSTOM else None
        pending: list[tuple] = []
        for index, item in enumerate(run.iter_simulations()):
            row = _trial_row(run, index, item)
            messages.add(row.pop("messages_json"))
            trial_rows[row["trajectory_id"]] = row
            if item.sim is None:
                row.update(
                    reward=None, multi_gold_reward=None, status=item.status, reason=item.error
                )
                continue
            pending.append((row["trajectory_id"], item.raw, item.sim))
            if len(pending) >= chunk_size:
                yield (run.domain, run.task_version, pending, judge, _needed(tasks, pending))
                pending = []
        if pending:
            yield (run.domain, run.task_version, pending, judge, _needed(tasks, pending))


class _Column:
    """A string column built in Arrow chunks, so that its values are not held twice (as Python strings
    and as Arrow) at the end."""

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


def _needed(tasks: dict[str, Task] | None, items: list[tuple]) -> dict[str, Task] | None:
    if tasks is None:
        return None
    return {str(item[1].get("task_id")): tasks[str(item[1].get("task_id"))] for item in items}


def _ray_windowed(chunks: Iterator[Chunk], workers: int) -> Iterator[list]:
    """Score chunks on Ray with at most ``2 × workers`` in flight, so memory stays bounded."""
    import ray

    from harness.execution import init_ray

    init_ray(None, workers)
    remote = ray.remote(num_cpus=1)(score_items)
    pending: list = []
    for chunk in chunks:
        pending.append(remote.remote(*chunk))
        while len(pending) >= 2 * workers:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        yield ray.get(done[0])


def rescore_runs(
    runs: list[ImportedRun],
    out: Path,
    workers: int = 1,
    judge: JudgeSpec | None = None,
    on_progress: Callable[[int], None] | None = None,
    chunk_size: int = 64,
) -> list[FileSummary]:
    """Score every simulation of ``runs`` and upsert the rows into the store at ``out``.

    Everything is read, validated and scored before the first write: a bad simulation found while
    streaming stops the command with nothing written.
    """
    trial_rows: dict[str, dict] = {}
    messages = (
        _Column()
    )  # messages_json, row for row: the largest column, kept as Arrow, not Python str
    chunks = _chunks(runs, trial_rows, messages, judge, chunk_size)
    results = _ray_windowed(chunks, workers) if workers > 1 else (score_items(*c) for c in chunks)
    score_rows: list[dict] = []
    for scored in results:
        for trajectory_id, trial, scores in scored:
            trial_rows[trajectory_id].update(trial)
            trial_rows[trajectory_id]["_normalised"] = any(s["replay_normalised"] for s in scores)
            run_id = trial_rows[trajectory_id]["run_id"]
            score_rows += [{"run_id": run_id, **s} for s in scores]
        if on_progress:
            on_progress(len(scored))
    trials = store.to_table(list(trial_rows.values()), store.TRIALS_SCHEMA)
    trials = trials.set_column(
        trials.schema.get_field_index("messages_json"),
        store.TRIALS_SCHEMA.field("messages_json"),
        messages.finish(),
    )
    with store.run_lock(out):
        store.upsert_table(out, "trials", trials)
        store.upsert_rows(out, "scores", score_rows, replace_trajectories=trial_rows.keys())
        store.write_disagreements(out)
    return [_summarise(run, trial_rows) for run in runs]


def _summarise(run: ImportedRun, trial_rows: dict[str, dict]) -> FileSummary:
    rows = [r for r in trial_rows.values() if r["run_id"] == run.run_id]
    summary = FileSummary(
        run.path,
        run.domain,
        run.task_version,
        run.version_note,
        run.agent_model,
        len(rows),
        recorded_domain=run.recorded_domain,
        layout=run.layout,
    )
    recorded = [r["recorded_reward"] for r in rows if r["recorded_reward"] is not None]
    ours = [r["reward"] for r in rows if r.get("reward") is not None]
    summary.recorded_mean = sum(recorded) / len(recorded) if recorded else None
    summary.recomputed_mean = sum(ours) / len(ours) if ours else None
    summary.n_recomputed = len(ours)
    multi = [r["multi_gold_reward"] for r in rows if r.get("multi_gold_reward") is not None]
    summary.multi_gold_mean = sum(multi) / len(multi) if multi else None
    for r in rows:
        if (
            r.get("reward") is not None
            and r.get("multi_gold_reward") is not None
            and r["multi_gold_reward"] > r["reward"]
        ):
            credited = [g for g in r.get("matched_gold_ids") or [] if g != "gold"]
            summary.changed_verdicts.append((str(r["task_id"]), r["trajectory_id"], credited))
    summary.normalised_trajectories = sum(bool(r.get("_normalised")) for r in rows)
    for r in rows:
        if r.get("judge", "none") != "none":
            summary.judged[r["judge"]] = summary.judged.get(r["judge"], 0) + 1
        summary.judge_cost += r.get("judge_cost") or 0.0
        for flag in r.get("flags") or []:
            summary.flags[flag] = summary.flags.get(flag, 0) + 1
        if r.get("reason") == NO_VARIANTS_CUSTOM:
            summary.custom_tasks_without_variants += 1
        if r.get("reward") is None:
            key = r.get("status") or "error"
            summary.null_reasons[key] = summary.null_reasons.get(key, 0) + 1
        elif r["recorded_reward"] is not None and abs(r["recorded_reward"] - r["reward"]) > 1e-9:
            summary.disagreement_task_ids.append(str(r["task_id"]))
    return summary


def rescore_provenance(runs: list[ImportedRun], judge: JudgeSpec | None) -> dict:
    """``run.json`` of a rescore: the task data, catalog and judge, and the sources' sha256."""
    judge_info = {"model": judge.model, "args": dict(judge.args)} if judge else None
    return store.run_info(
        "rescore", {(r.domain, r.task_version) for r in runs}, judge_info,
        source_sha256=sorted({r.sha256 for r in runs}),
        custom_tasks_sha256=sorted({r.tasks_sha256 for r in runs if r.task_version == CUSTOM and r.tasks_sha256}),
    )
