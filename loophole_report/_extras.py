"""The report's sections on a run's optional tables (``audit_traces.parquet``, ``leaderboard.parquet``),
as blocks like those of ``loophole_report._sections``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from loophole_report import _figures as figures
from loophole_report._sections import Block, heading, pct, plain, table, text, undefined


def _read_extra(path: Path) -> pd.DataFrame:
    """A run's optional table (audit, leaderboard): a corrupt or truncated copy is one line naming it."""
    import pyarrow as pa

    try:
        return pd.read_parquet(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        from loophole_base import HarnessInputError

        detail = " ".join(str(exc).split())[:200]
        raise HarnessInputError(
            f"{str(path)!r}: not a readable table ({type(exc).__name__}: {detail})"
        ) from None


def audit(run_dir: Path) -> list[Block]:
    path = run_dir / "audit_traces.parquet"
    if not path.exists():
        return [undefined("Not run for this run directory (see harness audit traces).")]
    frame = _read_extra(path)
    if frame.empty:
        return [undefined("The audit found no failing trial.")]
    summary = frame.groupby(["agent", "attribution"]).size().rename("n").reset_index()
    return [
        table(
            ["Agent", "Attribution", "Failing trials"],
            [[r.agent, r.attribution, r.n] for r in summary.itertuples(index=False)],
        )
    ]


def _yes(v: object) -> str:
    return "yes" if v is True or v == 1 else ""


_BOARD: list[tuple[str, str, Callable[[Any], str]]] = [
    ("domain", "Domain", plain),
    ("task_version", "Task version", plain),
    ("rank_multi", "Rank, multi-gold", lambda v: "unranked" if pd.isna(v) else plain(v)),
    ("rank_single", "Rank, single gold", lambda v: "unranked" if pd.isna(v) else plain(v)),
    ("rank_change", "Rank change", lambda v: "" if pd.isna(v) else f"{int(v):+d}"),
    ("name", "Run", plain),
    ("trajectories", "Trajectories", plain),
    ("tasks", "Tasks", plain),
    ("single_pass1", "pass^1, single gold", pct),
    ("multi_pass1", "pass^1, multi-gold", pct),
    ("upper_pass1", "pass^1, counting uncertain credits", pct),
    ("band", "Band: single ≤ multi ≤ upper", plain),
    ("gain_points", "Gain (points)", lambda v: "n/a" if pd.isna(v) else f"{v:+.1f}"),
    ("flagged", "Flagged: why", plain),
    ("partial", "Partial (fewer tasks)", _yes),
]


def _flag_reason(r: Any) -> str:
    """Why a run is flagged: its file's task ids contradict its own evidence, or its recorded rewards disagree
    with tau2's evaluator ("" where not flagged)."""
    if not _yes(getattr(r, "flagged", False)):
        return ""
    n = getattr(r, "disagreements", None)
    recorded, ours = getattr(r, "recorded_pass1", None), getattr(r, "single_pass1", None)
    cause = getattr(r, "flag_cause", None)  # task ids the file got wrong, then rewards that disagree (#36)
    if isinstance(cause, str) and cause:
        why = cause
    else:
        why = f"{plain(n)} recorded rewards disagree with tau2's evaluator" if n is not None else (
            "recorded rewards disagree with tau2's evaluator")
    if recorded is not None and ours is not None and not pd.isna(recorded) and not pd.isna(ours):
        why += f" (recorded pass^1 {pct(recorded)}, ours {pct(ours)})"
    ranked = getattr(r, "ranked", None)
    if ranked is not None:
        why += "; ranked (--include-flagged)" if _yes(bool(ranked)) else "; not ranked"
    return why


def leaderboard(run_dir: Path) -> list[Block]:
    path = run_dir / "leaderboard.parquet"
    if not path.exists():
        return [undefined("No leaderboard for this run (see harness leaderboard).")]
    board = _read_extra(path)
    blocks = []
    shown = board[board.single_pass1.notna()]
    if len(shown):
        blocks.append(figures.leaderboard_figure(shown))
    if "flagged" in board.columns:  # a flag always says why, never a bare "yes"
        board = board.assign(flagged=[_flag_reason(r) for r in board.itertuples(index=False)])
    cols = [(c, h, f) for c, h, f in _BOARD if c in board.columns]
    blocks.append(
        table(
            [h for _, h, _ in cols],
            [[f(getattr(r, c)) for c, _, f in cols] for r in board.itertuples(index=False)],
        )
    )
    return blocks + _ranks(run_dir)


def _ranks(run_dir: Path) -> list[Block]:
    """The ranks with their uncertainty (``ranks.parquet``, ``rank_agreement.parquet``), under the board."""
    from loophole_report._rank_figure import rank_blocks

    blocks = [heading("Ranks and their uncertainty")]
    paths = [run_dir / "ranks.parquet", run_dir / "rank_agreement.parquet"]
    if not all(p.exists() for p in paths):
        return [*blocks, text("This leaderboard was written before its ranks' uncertainty was computed: run harness "
                              "leaderboard again for it.")]
    ranks, agreement = (_read_extra(p) for p in paths)
    if ranks.empty:
        return [*blocks, text("No run is ranked: nothing to compare.")]
    return blocks + rank_blocks(ranks, agreement)
