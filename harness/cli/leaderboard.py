"""``harness leaderboard PATHS… --out DIR``: rescore many public runs under multi-gold and rank them."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.execution import check_workers


def register(app: typer.Typer) -> None:
    app.command("leaderboard")(leaderboard)


def leaderboard(
    paths: list[str] = typer.Argument(..., help="Results files, folders (searched recursively) or globs."),
    out: Path = typer.Option(..., "--out", help="Output directory (Parquet store, leaderboard.parquet/.md)."),
    manifest: Path | None = typer.Option(None, "--manifest", help="YAML: file -> display name, organisation, notes."),
    include_flagged: bool = typer.Option(False, "--include-flagged", help="Rank runs whose recorded rewards disagree."),
    workers: int = typer.Option(1, "--workers", min=1, callback=check_workers, help="Ray workers for rescoring (1: in-process)."),
    domain: str | None = typer.Option(
        None, "--domain", help="airline or retail: the environment of a custom domain name."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Stop at the first unreadable file (default: skip it, list it, rank the rest)."
    ),
) -> None:
    """Single- and multi-gold pass^k per run, ranks under each, the upper bound counting uncertain credits
    (the band single ≤ multi ≤ upper), flags and partial-run separation. An unreadable file is skipped and
    listed with its reason under the table; the command fails only when nothing can be ranked (or --strict)."""
    from analysis import load_manifest
    from harness.cli._console import output_console
    from loophole_store import check_out_dir, remove_created

    console = output_console(200)
    spec = load_manifest(manifest) if manifest else None
    created = check_out_dir(out)
    try:
        _build(console, paths, out, spec, include_flagged, workers, domain, strict)
    except BaseException:
        remove_created(created)
        raise


def _build(console, paths, out, spec, include_flagged, workers, domain, strict) -> None:
    import pyarrow as pa
    from rich.table import Column, Table

    import loophole_store as store
    from analysis import leaderboard as build
    from analysis import to_markdown
    from envs import CUSTOM, load_task_set
    from harness.rescoring import import_sources
    from loophole_base import HarnessInputError, atomic_write_table

    skipped: list[str] = []
    runs, notes = import_sources(paths, None, False, domain, skipped=None if strict else skipped)
    for note in notes:
        console.print(f"note: {note}", soft_wrap=True, markup=False)
    runs = _rescore_readable(runs, out, workers, strict, skipped)
    if not runs:
        raise HarnessInputError(f"no run to rank: all {len(skipped)} files skipped; first: {skipped[0]}"
                                if skipped else "no results file to rank")
    trials = store.read_table(out, "trials")
    pinned = trials[trials.task_version != CUSTOM][["domain", "task_version"]].drop_duplicates()
    counts = {(d, v): len(load_task_set(d, v).tasks) for d, v in pinned.itertuples(index=False)}
    for r in runs:  # a custom run's task group has its own embedded tasks
        if r.task_version == CUSTOM:
            counts[(r.domain, f"custom:{(r.tasks_sha256 or 'unknown')[:12]}")] = len(r.tasks)
    board = build(trials, counts, spec, include_flagged)
    if board.empty:
        raise HarnessInputError(f"--out: {out}: no trajectories to rank")
    atomic_write_table(pa.Table.from_pandas(board.astype({"rank_single": "Int64", "rank_multi": "Int64",
                                                                "rank_change": "Int64"}), preserve_index=False),
                             out / "leaderboard.parquet")
    md = to_markdown(board, skipped)
    tmp = out / ".leaderboard.md.tmp"
    tmp.write_text(md, encoding="utf-8")
    tmp.replace(out / "leaderboard.md")
    for (domain, version), g in board.groupby(["domain", "task_group"]):
        t = Table("rank multi", "rank single", "Δ", "name", "traj.", "tasks",
                  Column("pass^1: single ≤ multi ≤ upper", no_wrap=True), "gain (pts, 95% CI)", "loophole", "non-loophole", "failures explained", "judge", "status",
                  "source (sha256)",
                  title=f"{domain} {version}")
        for r in g.itertuples(index=False):
            status = ", ".join(s for s, on in (
                ("FLAGGED", r.flagged), ("partial", r.partial), (f"unscored: {r.unscored}", r.scored == 0),
                (f"partly unscored: {r.unscored}", 0 < r.scored < r.trajectories),
                ("unranked", not r.ranked)) if on)
            ci = "" if r.gain_ci_low != r.gain_ci_low else f" [{r.gain_ci_low:.1f}, {r.gain_ci_high:.1f}]"
            gain = "n/a" if r.gain_points != r.gain_points else f"{r.gain_points:+.1f}{ci}"
            t.add_row(_v(r.rank_multi), _v(r.rank_single), _v(r.rank_change), str(r.name), str(r.trajectories),
                      str(r.tasks), r.band, gain,
                      _p(r.loophole_single), _p(r.non_loophole_single), _p(r.explained_failures), r.judge, status or "ok",
                      f"{Path(r.source_file).name} ({r.source_sha256[:12]})")
        console.print(t)
        for r in g[g.flagged].itertuples(index=False):
            console.print(
                f"flagged: {r.name} ({Path(r.source_file).name}): {r.disagreements} recorded rewards disagree with "
                f"tau2's evaluator; recorded pass^1 {r.recorded_pass1:.3f}, recomputed {r.single_pass1:.3f}"
                + ("" if r.ranked else "; kept out of the ranking (--include-flagged to rank it)"), soft_wrap=True)
        for r in g[g.scored == 0].itertuples(index=False):
            console.print(f"unscored: {r.name} ({Path(r.source_file).name}): no trajectory has a reward: "
                          f"{r.unscored}; not ranked", soft_wrap=True, markup=False, highlight=False)
    for line in skipped:
        console.print(f"skipped: {line}", soft_wrap=True, markup=False, highlight=False)
    console.print(f"wrote {out}/leaderboard.parquet and leaderboard.md", soft_wrap=True)


def _rescore_readable(runs, out, workers, strict, skipped):
    """Rescore the runs; one that turns out unreadable part way (a truncated file) is left out, its reason
    kept in ``skipped``, and the rest rescored (nothing is written before every run is scored)."""
    from harness.rescoring import UnreadableRun, rescore_runs

    while runs:
        try:
            rescore_runs(runs, out, workers=workers)
            return runs
        except UnreadableRun as exc:
            if strict:
                raise
            skipped.append(str(exc))
            runs = [r for r in runs if r.path != exc.path]
    return runs


def _v(x: object) -> str:
    import pandas as pd

    return "-" if pd.isna(x) else str(x)


def _p(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f}%"
