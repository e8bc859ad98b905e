"""``harness rescore``: score finished ``tau2 run`` results files again, into Parquet."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command("rescore")(rescore)


def rescore(
    paths: list[str] = typer.Argument(..., help="Results files, directories of them, or globs."),
    out: Path = typer.Option(..., "--out", help="Run directory for the Parquet store, e.g. runs/NAME."),
    task_version: str | None = typer.Option(
        None, "--task-version", help="tau2 or tau3 (default: detected from the embedded tasks)."
    ),
    workers: int = typer.Option(1, "--workers", min=1, help="Ray workers (1: in-process)."),
    skip_bad: bool = typer.Option(False, "--skip-bad", help="Keep a bad simulation as an error row."),
    judge: str | None = typer.Option(None, "--judge", help="litellm model for NL_ASSERTION tasks."),
    judge_api_base: str | None = typer.Option(None, "--judge-api-base", help="api_base for --judge."),
) -> None:
    """Rescore results files single-gold with tau2's semantics; print per-file agreement."""
    from rich.table import Table

    from harness.cli._console import output_console, progress_bar
    from harness.rescoring import JudgeSpec, import_all, rescore_runs

    console = output_console(200)
    runs = import_all(paths, task_version, skip_bad)
    spec = None
    if judge:
        spec = JudgeSpec(judge, (("api_base", judge_api_base),) if judge_api_base else ())
    total = sum(len(r.simulations) for r in runs)
    with progress_bar("rescoring", transient=True) as progress:
        bar = progress.add_task("rescore", total=total)
        summaries = rescore_runs(
            runs, out, workers=workers, judge=spec, on_progress=lambda n: progress.advance(bar, n)
        )
    from harness.provenance import record_run, run_info

    judge_info = {"model": spec.model, "args": dict(spec.args)} if spec else None
    info = run_info("rescore", {(r.domain, r.task_version) for r in runs}, judge_info,
                    source_sha256=sorted({r.sha256 for r in runs}))
    for note in record_run(out, info):  # another catalog or judge than last time: said, not silently merged
        console.print(f"note: {note}", soft_wrap=True)
    table = Table(
        "file", "domain", "version", "agent", "count", "recorded mean", "single-gold mean",
        "multi-gold mean", "disagreements",
    )
    for s in summaries:
        table.add_row(
            s.path.name, s.domain, s.task_version, str(s.agent_model), str(s.count),
            _fmt(s.recorded_mean), _fmt(s.recomputed_mean) + (f" (of {s.n_recomputed})" if s.n_recomputed != s.count else ""),
            _fmt(s.multi_gold_mean), str(len(s.disagreement_task_ids)),
        )
    console.print(table)
    for s in summaries:
        line = f"{s.path.name}: {s.task_version} ({s.version_note}); {len(s.disagreement_task_ids)} disagreements"
        if s.disagreement_task_ids:
            line += f" on tasks {' '.join(s.disagreement_task_ids)}"
        console.print(line, soft_wrap=True)
        for status, n in sorted(s.null_reasons.items()):
            why = {
                "no_judge": "NL_ASSERTION in the reward basis and no --judge configured",
                "replay_divergence": "replayed tool outputs differ from the recorded ones",
                "judge_error": "the judge failed",
                "error": "bad simulation (--skip-bad)",
            }.get(status, status)
            console.print(f"  {n} rewards null: {status} ({why})", soft_wrap=True)
        for task_id, trajectory_id, golds in s.changed_verdicts:
            console.print(
                f"  verdict changed by multi-gold: task {task_id} ({trajectory_id}) credited by {', '.join(golds)}",
                soft_wrap=True,
            )
        if s.normalised_trajectories:
            console.print(
                f"  {s.normalised_trajectories} trajectories replayed equal only after normalising "
                "pydantic's versioned docs URL (errors.pydantic.dev/<version>/)", soft_wrap=True,
            )
    console.print(f"wrote {out}/trials.parquet, scores.parquet, disagreements.parquet", soft_wrap=True)


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4f}"
