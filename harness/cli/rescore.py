"""``harness rescore``: score finished ``tau2 run`` results files again, into Parquet."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.execution import check_workers


def register(app: typer.Typer) -> None:
    app.command("rescore")(rescore)


def rescore(
    paths: list[str] = typer.Argument(..., help="Results files, folders (searched recursively) or globs."),
    out: Path = typer.Option(..., "--out", help="Run directory for the Parquet store, e.g. runs/NAME."),
    task_version: str | None = typer.Option(
        None, "--task-version", help="tau2, tau3 or verified (default: detected from the embedded tasks)."
    ),
    domain: str | None = typer.Option(
        None, "--domain", help="airline or retail: the environment of a custom domain name."
    ),
    workers: int = typer.Option(1, "--workers", min=1, callback=check_workers, help="Ray workers (1: in-process)."),
    skip_bad: bool = typer.Option(False, "--skip-bad", help="Keep a bad simulation as an error row."),
    judge: str | None = typer.Option(
        None, "--judge", help="litellm model for NL assertions, or 'recorded' (the file's own verdicts)."
    ),
    judge_api_base: str | None = typer.Option(None, "--judge-api-base", help="api_base for --judge."),
    judge_api_key_env: str | None = typer.Option(
        None, "--judge-api-key-env", help="Environment variable holding the judge's API key."
    ),
    against_version: list[str] = typer.Option(
        [], "--against-version",
        help="Also score every run against this task version's golds (tau2, tau3, verified): rows marked.",
    ),
) -> None:
    """Score results files single-gold (tau2's own evaluator) and multi-gold (the gold variants, with the upper
    bound counting uncertain credits) into a run directory; print per-file agreement with the recorded rewards."""
    from harness.cli._console import output_console
    from loophole_store import check_out_dir, remove_created

    console = output_console(200)
    created = check_out_dir(out)
    try:
        _rescore(console, paths, out, task_version, domain, workers, skip_bad, judge, judge_api_base, judge_api_key_env,
                 against_version)
    except BaseException as exc:
        remove_created(created)
        from loophole_base import DiskFull

        if isinstance(exc, OSError) and DiskFull.matches(exc):
            kept = (f"the partly written run folder {out} was removed" if created is not None else
                    f"each table already in {out} stays whole (tables are replaced atomically)")
            raise DiskFull.of(exc, f"the run folder {out}", kept) from None
        raise


def _rescore(console, paths, out, task_version, domain, workers, skip_bad, judge, judge_api_base, judge_api_key_env,
             against_version=()) -> None:
    from rich.table import Table

    from harness.cli._console import progress_bar
    from harness.rescoring import import_sources, rescore_runs
    from loophole_base import cut
    from loophole_ingest import FLAGS
    from loophole_scoring import JudgeSpec

    runs, notes = import_sources(paths, task_version, skip_bad, domain)
    runs += _against(runs, against_version)
    notes += [n for r in runs if r.recorded_version is not None for n in r.notes]
    for note in notes:
        console.print(f"note: {cut(note, 1000)}", soft_wrap=True, markup=False)
    spec = None
    if judge:
        args = (("api_base", judge_api_base),) if judge_api_base else ()
        spec = JudgeSpec(judge, args, judge_api_key_env)
    counts = [r.n_simulations for r in runs]
    total = None if None in counts else sum(counts)  # type: ignore[arg-type]
    with progress_bar("rescoring", transient=True) as progress:
        bar = progress.add_task("rescore", total=total)
        summaries = rescore_runs(
            runs, out, workers=workers, judge=spec, on_progress=lambda n: progress.advance(bar, n)
        )
    from harness.rescoring import rescore_provenance
    from loophole_store import record_run

    for note in record_run(out, rescore_provenance(runs, spec)):  # another catalog or judge than last time: said, not silently merged
        console.print(f"note: {cut(note, 1000)}", soft_wrap=True, markup=False)
    for s in summaries:  # one line per file, not one divergence per simulation
        if s.custom_tool_simulations:
            tools = ", ".join(f"{cut(t)} ({n})" for t, n in sorted(s.custom_tools.items()))
            console.print(
                f"note: {_name(s.path)}: the agent called tools the {s.domain} domain does not have: {tools}, in "
                f"{s.custom_tool_simulations} of {s.count} simulations; the run used its own tool set, so tau2 "
                "cannot replay them (their rows are kept; each row's reason names the tools)",
                soft_wrap=True, markup=False,
            )
    table = Table(
        "file", "domain", "version", "agent", "count", "recorded mean", "single-gold mean",
        "multi-gold mean", "upper (with uncertain)", "disagreements",
    )
    for s in summaries:
        table.add_row(
            _name(s.path), cut(s.recorded_domain if s.recorded_domain != s.domain else s.domain),
            s.task_version, cut(s.agent_model), str(s.count),
            _fmt(s.recorded_mean), _fmt(s.recomputed_mean) + (f" (of {s.n_recomputed})" if s.n_recomputed != s.count else ""),
            _fmt(s.multi_gold_mean), _fmt(s.multi_gold_upper_mean), str(len(s.disagreement_task_ids)),
        )
    console.print(table)
    for s in summaries:
        line = f"{_name(s.path)}: {s.task_version} ({s.version_note}); {len(s.disagreement_task_ids)} disagreements"
        if s.disagreement_task_ids:
            line += f" on tasks {cut(' '.join(s.disagreement_task_ids), 1000)}"
        console.print(line, soft_wrap=True, markup=False)
        if s.recorded_domain and s.recorded_domain != s.domain:
            console.print(f"  custom domain {cut(repr(s.recorded_domain))} scored in the {s.domain} environment",
                          soft_wrap=True, markup=False)
        if s.custom_tasks_without_variants:
            console.print(f"  {s.custom_tasks_without_variants} trajectories: no variants (custom task: gold "
                          "differs from every pinned gold)", soft_wrap=True, markup=False)
        for status, n in sorted(s.null_reasons.items()):
            why = {
                "no_judge": "NL assertions that decide the reward and no --judge configured",
                "replay_divergence": "replayed tool outputs differ from the recorded ones",
                "judge_error": "the judge failed or had no usable verdict",
                "infra_error": "infrastructure_error: not the agent's failure; excluded from means",
                "error": "not scorable (bad simulation under --skip-bad, or no messages)",
            }.get(status, status)
            console.print(f"  {n} rewards null: {status} ({why})", soft_wrap=True, markup=False)
        for flag, n in sorted(s.flags.items()):
            console.print(f"  {n} trajectories flagged {flag} ({FLAGS.get(flag, flag)})", soft_wrap=True, markup=False)
        for name, n in sorted(s.judged.items()):
            cost = f", cost {s.judge_cost:.4f}" if name != "recorded" else ""
            console.print(f"  {n} trajectories graded by judge {name}{cost}", soft_wrap=True, markup=False)
        for task_id, trajectory_id, golds in s.changed_verdicts:
            console.print(
                f"  verdict changed by multi-gold: task {task_id} ({trajectory_id}) credited by {', '.join(golds)}",
                soft_wrap=True, markup=False,
            )
        if s.normalised_trajectories:
            console.print(
                f"  {s.normalised_trajectories} trajectories replayed equal only after normalising "
                "pydantic's versioned docs URL (errors.pydantic.dev/<version>/)", soft_wrap=True,
            )
    console.print(f"wrote {out}/trials.parquet, scores.parquet, disagreements.parquet", soft_wrap=True, markup=False)


def _against(runs, versions: list[str]) -> list:
    """Copies of the pinned runs scored against each ``--against-version`` other than their own."""
    from envs import CUSTOM, TASK_VERSIONS
    from loophole_base import HarnessInputError

    for version in versions:
        if version not in TASK_VERSIONS:
            raise HarnessInputError(f"--against-version: {version!r} is not one of {list(TASK_VERSIONS)}")
    return [run.against_version(v) for v in dict.fromkeys(versions) for run in runs
            if run.task_version not in (v, CUSTOM)]


def _name(path: Path) -> str:
    """A run's short name: the file, or ``<run>/results.json`` for a run folder."""
    from loophole_base import shown

    if path.is_dir() or path.name == "results.json":
        folder = path if path.is_dir() else path.parent
        return shown(f"{folder.name}/results.json")
    return shown(path.name)


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.4f}"
