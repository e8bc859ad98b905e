"""Rescoring: imported results files → scores → Parquet rows. No CLI and no printing here.

Named ``rescoring``, not ``rescore``: a submodule ``harness.rescore`` would rebind the facade's
``harness.rescore`` function to the module once imported.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import loophole_store as store
from envs import CUSTOM, ReplayMode, TauDataError
from harness._rescore_chunks import UnreadableRun, rescore_chunks, score_items
from loophole_base import HarnessInputError, natural_key, shown
from loophole_ingest import ImportedRun, find_sources, import_results_file
from loophole_scoring import NO_VARIANTS_CUSTOM, JudgeSpec

__all__ = ["FileSummary", "UnreadableRun", "identity_notes", "import_all", "import_sources", "rescore_provenance", "rescore_runs",
           "score_items"]


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
    replay_flags: dict[str, int] = field(default_factory=dict)  # envs.ReplayFlag -> rows carrying it
    # per task the file's evaluator marked gold_replay_incomplete (tau2 main, #499): what it recorded, beside
    # the harness's own broken-gold verdict for the task
    gold_replays: list[str] = field(default_factory=list)


def import_sources(
    paths: list[str], task_version: str | None, skip_bad: bool, domain: str | None = None,
    skipped: list[str] | None = None,
) -> tuple[list[ImportedRun], list[str]]:
    """Find and read every file's metadata (and check it parses) before anything is scored or written;
    also the notes on paths that were skipped. ``skipped``: unreadable files are left out and their
    one-line errors appended there (the leaderboard), instead of stopping the command.

    Each simulation's task identity is decided as it is scored (no extra pass over a large file): its
    note comes from ``identity_notes`` after ``rescore_runs``."""
    found = find_sources(paths)
    runs: dict[str, ImportedRun] = {}
    for path in found.sources:
        try:
            run = import_results_file(path, task_version, skip_bad, domain, verify_identity=False)
        except (HarnessInputError, TauDataError) as exc:  # unreadable, or its version's data is absent here
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


def identity_notes(runs: list[ImportedRun]) -> list[str]:
    """One line per file whose simulations' task ids disagree with their evidence (after scoring); a
    copy scored against another version shares its file's decisions, so a file is named once."""
    from loophole_ingest import identity_note

    seen: set[int] = set()
    lines = []
    for run in runs:
        if run.identity is None or id(run.identity) in seen:
            continue
        seen.add(id(run.identity))
        if (line := identity_note(run)) is not None:
            lines.append(line)
    return lines


def import_all(
    paths: list[str], task_version: str | None, skip_bad: bool, domain: str | None = None
) -> list[ImportedRun]:
    return import_sources(paths, task_version, skip_bad, domain)[0]


def rescore_readable(
    runs: list[ImportedRun], out: Path, workers: int, skipped: list[str] | None, replay: ReplayMode,
    judge: JudgeSpec | None = None, on_progress: Callable[[int], None] | None = None,
) -> tuple[list[ImportedRun], list[FileSummary]]:
    """``rescore_runs``; with ``skipped`` (a list), a run that turns out unreadable part way (a truncated
    file) is left out, its one-line reason appended there, and the rest rescored (nothing is written before
    every run is scored); without, the first unreadable run stops the call. Returns the runs rescored and
    their summaries."""
    while runs:
        try:
            return runs, rescore_runs(runs, out, workers=workers, judge=judge, on_progress=on_progress, replay=replay)
        except UnreadableRun as exc:
            if skipped is None:
                raise
            skipped.append(str(exc))
            runs = [r for r in runs if r.path != exc.path]
    return runs, []


def rescore_runs(
    runs: list[ImportedRun],
    out: Path,
    workers: int = 1,
    judge: JudgeSpec | None = None,
    on_progress: Callable[[int], None] | None = None,
    chunk_size: int = 64,
    replay: ReplayMode = ReplayMode.LENIENT,
) -> list[FileSummary]:
    """Score every simulation of ``runs`` and upsert the rows into the store at ``out``.

    Everything is read, validated and scored before the first write: a bad simulation found while
    streaming stops the command with nothing written. Rows are staged in Parquet chunk by chunk, so no
    step holds every trajectory. A monolithic file's simulations are read by their byte spans
    (``score_spans``: by the workers where ``workers`` > 1, else here), each decoded by the strict decoder's
    fast path (orjson) where the stream's decoder (json, a Python hook per object) cost ~0.06 ms more a
    trajectory; where that reading meets anything unexpected, the runs are read again the ordinary way, which
    names the bad input as it always did.
    """
    from loophole_ingest import SpanError

    ordered = sorted(runs, key=lambda r: r.run_id)  # key order: a new run's tables are copied in whole
    try:
        light = _rescore(ordered, out, workers, judge, on_progress, chunk_size, True, replay)
    except SpanError:
        light = _rescore(ordered, out, workers, judge, on_progress, chunk_size, False, replay)
    return [_summarise(run, light) for run in runs]


def _rescore(
    runs: list[ImportedRun], out: Path, workers: int, judge: JudgeSpec | None,
    on_progress: Callable[[int], None] | None, chunk_size: int, spans: bool, replay: ReplayMode,
) -> dict[str, dict]:
    """The rows staged, then upserted into ``out``; the trials rows without their messages and records (what
    the summaries read: the two largest columns, ~28 kB a trajectory of the benchmark's file, held to the end)."""
    light: dict[str, dict] = {}
    # closing: an interrupt that lands here, between two chunks, still stops the worker processes (the
    # generators' own ``finally``) before the CLI prints its line and exits
    chunks = rescore_chunks(runs, workers, judge, chunk_size, spans, replay)
    with store.malloc_pool(), store.StagedTables() as staged, contextlib.closing(chunks):
        for rows, score_rows, n_scored in chunks:
            staged.add(rows, score_rows)
            for row in rows:
                row.pop("messages_json", None)
                row.pop("record_json", None)
                light[row["trajectory_id"]] = row
            if on_progress:
                on_progress(n_scored)
        with store.run_lock(out):
            staged.commit(out)
            store.write_disagreements(out)
    return light


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
        for flag in r.get("replay_flags") or []:
            summary.replay_flags[flag] = summary.replay_flags.get(flag, 0) + 1
        if r.get("reason") == NO_VARIANTS_CUSTOM:
            summary.custom_tasks_without_variants += 1
        if r.get("reward") is None:
            key = r.get("status") or "error"
            summary.null_reasons[key] = summary.null_reasons.get(key, 0) + 1
        elif r["recorded_reward"] is not None and abs(r["recorded_reward"] - r["reward"]) > 1e-9:
            summary.disagreement_task_ids.append(str(r["task_id"]))
    summary.gold_replays = _gold_replays(run, rows)
    summary.disagreement_task_ids.sort(key=natural_key)  # task order, 2 before 13, as every table
    summary.changed_verdicts.sort(key=lambda v: (natural_key(v[0]), v[1]))
    return summary


def rescore_provenance(
    runs: list[ImportedRun], judge: JudgeSpec | None, kind: str = "rescore",
    replay: ReplayMode = ReplayMode.LENIENT,
) -> dict:
    """``run.json`` of a rescore (or a leaderboard, ``kind``): the task data, catalog and judge, the replay
    mode, and the sources' sha256."""
    from envs import version_named_by
    from loophole_ingest import RunUpstream

    judge_info = {"model": judge.model, "args": dict(judge.args)} if judge else None
    # tau2 main's run-level fields, kept where a source recorded them (run.json stays as it was elsewhere)
    upstream = [
        RunUpstream(source_sha256=r.sha256, task_set_name=r.task_set_name,
                    task_set_version=version_named_by(r.task_set_name, r.domain)).model_dump(mode="json")
        for r in sorted(runs, key=lambda r: r.sha256) if r.task_set_name is not None
    ]
    return store.run_info(
        kind, {(r.domain, r.task_version) for r in runs}, judge_info, replay=str(replay),
        source_sha256=sorted({r.sha256 for r in runs}),
        custom_tasks_sha256=sorted({r.tasks_sha256 for r in runs if r.task_version == CUSTOM and r.tasks_sha256}),
        **({"upstream": upstream} if upstream else {}),
    )


def _gold_replays(run: ImportedRun, rows: list[dict]) -> list[str]:
    """One line per task whose gold replay the file's evaluator marked incomplete: the gold writes it could not
    apply and what it made of the DB check, then the harness's own broken-gold verdict for that task."""
    from loophole_ingest import GOLD_REPLAY_INCOMPLETE_FLAG, UpstreamFields

    lines: dict[str, str] = {}
    for r in rows:
        task_id = str(r["task_id"])
        if GOLD_REPLAY_INCOMPLETE_FLAG not in (r.get("flags") or []) or task_id in lines or not r.get("upstream_json"):
            continue
        # imported only for such a task: ``analysis`` cost a cold rescore ~5 ms of CPU (#47)
        from analysis import broken_gold_verdict

        up = UpstreamFields.model_validate_json(r["upstream_json"])
        failed = ", ".join(f"{a.action_id} {a.tool_name} ({a.error_type}: {a.error})"
                           for a in up.failed_mutating_actions) or "no action named"
        db = "db_check null, not a pass" if up.db_check_recorded is False else "db_check kept"
        task = run.tasks.get(task_id)
        ours = broken_gold_verdict(run.domain, run.task_version, task) if task is not None else "task not available"
        lines[task_id] = (f"task {task_id}: the file's evaluator marks its gold replay incomplete ({db}; failed: "
                          f"{failed}); the harness: {ours}")
    return [lines[t] for t in sorted(lines, key=natural_key)]
