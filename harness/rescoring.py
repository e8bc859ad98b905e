"""Rescoring: imported results files → scores → Parquet rows. No CLI and no printing here.

Named ``rescoring``, not ``rescore``: a submodule ``harness.rescore`` would rebind the facade's
``harness.rescore`` function to the module once imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.data_model.tasks import Task

import loophole_store as store
from envs import CUSTOM, engine_for
from loophole_base import HarnessInputError, shown
from loophole_ingest import (
    ImportedRun,
    ImportedSimulation,
    find_sources,
    foreign_tools,
    import_results_file,
)
from loophole_scoring import (
    NO_VARIANTS_CUSTOM,
    RECORDED,
    JudgeSpec,
    RecordedJudge,
    recorded_verdicts,
    score_simulation,
)

_PINNED = {r.value for r in TerminationReason}


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
    multi_gold_upper_mean: float | None = None  # counting uncertain credits
    changed_verdicts: list[tuple[str, str, list[str]]] = field(
        default_factory=list
    )  # (task, trajectory, golds)
    null_reasons: dict[str, int] = field(default_factory=dict)
    normalised_trajectories: int = 0
    judged: dict[str, int] = field(default_factory=dict)  # judge -> rows it graded
    judge_cost: float = 0.0
    custom_tasks_without_variants: int = 0
    flags: dict[str, int] = field(default_factory=dict)  # flag -> rows carrying it
    custom_tools: dict[str, int] = field(default_factory=dict)  # a tool the domain lacks -> simulations
    custom_tool_simulations: int = 0  # simulations that call one (the run's own tool set)


def _trial_row(run: ImportedRun, index: int, item: ImportedSimulation) -> dict:
    raw = item.raw
    info = raw.get("reward_info")
    recorded = info.get("reward") if isinstance(info, dict) and run.recorded_version is None else None
    messages = raw.get("messages")
    return store.trial_row(
        run_id=run.run_id,
        trajectory_id=f"{run.run_id}:{index:05d}:{item.simulation_id}",
        simulation_id=item.simulation_id,
        source_file=str(run.path),
        source_sha256=run.sha256,
        domain=run.domain,
        task_version=run.task_version,
        task_id=str(raw.get("task_id")) if raw.get("task_id") is not None else None,
        trial=store.int_or_null(raw.get("trial")),
        seed=store.int_or_null(raw.get("seed")),
        agent_name=run.agent_model,
        agent_model=run.agent_model,
        agent_implementation=run.agent_implementation,
        user_model=run.user_model,
        recorded_reward=store.float_or_null(recorded),
        recorded_domain=run.recorded_domain,
        policy_sha256=run.policy_sha256,
        tasks_sha256=run.tasks_sha256,
        judge="none",
        judge_cost=0.0,
        flags=list(item.flags) + ([store.AGAINST_VERSION_FLAG] if run.recorded_version is not None else []),
        file_task_id=str(raw["_file_task_id"]) if raw.get("_file_task_id") is not None else None,
        **store.trajectory_columns(
            messages if isinstance(messages, list) else [],
            termination_reason=raw.get("termination_reason"),
            duration_s=raw.get("duration"),
            agent_cost=raw.get("agent_cost"),
            user_cost=raw.get("user_cost"),
        ),
    )


def score_items(
    run_id: str,
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
    from loophole_ingest import COMPLETED

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
            RecordedJudge(recorded_verdicts(raw)) if judge and judge.model == RECORDED else built
        )
        task = tasks[sim.task_id] if tasks is not None else None
        scored = score_simulation(sim, domain, task_version, engine, per_trajectory, task)
        trial, scores = store.reward_rows(scored, run_id=run_id, trajectory_id=trajectory_id)
        if recorded_reason not in COMPLETED and recorded_reason not in _PINNED:
            # a tau2 1.0 reason the pinned model lacks: 0 by tau2 1.0's rule, named as recorded
            why = f"terminated prematurely: {recorded_reason}"
            trial["reason"] = why
            for s in scores:
                s["reason"] = why
        out.append((trajectory_id, trial, scores))
    return out


def import_sources(
    paths: list[str], task_version: str | None, skip_bad: bool, domain: str | None = None,
    skipped: list[str] | None = None,
) -> tuple[list[ImportedRun], list[str]]:
    """Find and read every file's metadata (and check it parses) before anything is scored or written;
    also the notes on paths that were skipped. ``skipped``: unreadable files are left out and their
    one-line errors appended there (the leaderboard), instead of stopping the command."""
    found = find_sources(paths)
    runs: dict[str, ImportedRun] = {}
    for path in found.sources:
        try:
            run = import_results_file(path, task_version, skip_bad, domain)
        except HarnessInputError as exc:
            if skipped is None:
                raise
            skipped.append(str(exc))
            continue
        if run.sha256 in runs:  # the same run twice (a copy): its rows would collide
            found.notes.append(
                f"{shown(path)}: skipped (same content as {shown(runs[run.sha256].path)})"
            )
            continue
        runs[run.sha256] = run
        found.notes += run.notes
    return list(runs.values()), found.notes


def import_all(
    paths: list[str], task_version: str | None, skip_bad: bool, domain: str | None = None
) -> list[ImportedRun]:
    return import_sources(paths, task_version, skip_bad, domain)[0]


Chunk = tuple[str, str, str, list[tuple], "JudgeSpec | None", "dict[str, Task] | None"]


def _chunks(
    runs: Iterable[ImportedRun],
    trial_rows: dict[str, dict],
    messages: store.StringColumn,
    judge: JudgeSpec | None,
    chunk_size: int,
) -> Iterator[Chunk]:
    """Stream each run's simulations into trial rows and chunks to score; a run's simulations are read
    one at a time, so only the chunks in flight hold raw simulations."""
    for run in runs:
        tasks = run.tasks if run.task_version == CUSTOM else None
        pending: list[tuple] = []
        for index, item in enumerate(_simulations_of(run)):
            row = _trial_row(run, index, item)
            messages.add(row.pop("messages_json"))
            trial_rows[row["trajectory_id"]] = row
            if item.sim is None:
                row.update(
                    reward=None, multi_gold_reward=None, multi_gold_upper=None, status=item.status, reason=item.error
                )
                continue
            row["_foreign_tools"] = foreign_tools(run.domain, item.raw.get("messages"))
            pending.append((row["trajectory_id"], item.raw, item.sim))
            if len(pending) >= chunk_size:
                yield (run.run_id, run.domain, run.task_version, pending, judge, _needed(tasks, pending))
                pending = []
        if pending:
            yield (run.run_id, run.domain, run.task_version, pending, judge, _needed(tasks, pending))


class UnreadableRun(HarnessInputError):
    """A run whose simulations fail to read part way (a truncated file): the message is the file's own
    one-line error; ``path`` says which run, so the leaderboard can leave it out and rank the others."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


def _simulations_of(run: ImportedRun) -> Iterator[ImportedSimulation]:
    try:
        yield from run.iter_simulations()
    except UnreadableRun:
        raise
    except HarnessInputError as exc:
        err = UnreadableRun(str(exc), run.path)
        err.exit_code = exc.exit_code
        raise err from None


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
    messages = store.StringColumn()  # messages_json, row for row: kept as Arrow, not Python str
    chunks = _chunks(runs, trial_rows, messages, judge, chunk_size)
    results = _ray_windowed(chunks, workers) if workers > 1 else (score_items(*c) for c in chunks)
    score_rows: list[dict] = []
    for scored in results:
        for trajectory_id, trial, scores in scored:
            trial_rows[trajectory_id].update(trial)
            if (tools := trial_rows[trajectory_id].get("_foreign_tools")) and trial["status"] == "replay_divergence":
                trial_rows[trajectory_id]["reason"] = (
                    f"custom tools: the agent called {', '.join(tools)}, not {trial_rows[trajectory_id]['domain']} "
                    f"tools (the run used its own tool set, so tau2 cannot replay it); {trial['reason']}"
                )
            trial_rows[trajectory_id]["_normalised"] = any(s["replay_normalised"] for s in scores)
            score_rows += scores
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
    upper = [r["multi_gold_upper"] for r in rows if r.get("multi_gold_upper") is not None]
    summary.multi_gold_upper_mean = sum(upper) / len(upper) if upper else None
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
        for tool in r.get("_foreign_tools") or []:
            summary.custom_tools[tool] = summary.custom_tools.get(tool, 0) + 1
        summary.custom_tool_simulations += bool(r.get("_foreign_tools"))
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
