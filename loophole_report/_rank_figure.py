"""Ranks and their uncertainty in the report: a slope chart from each run's single-gold rank to its multi-gold
rank, one panel per rank group, with the orders that resampling does not settle drawn as such, and the table of
ranks (``ranks.parquet`` and ``rank_agreement.parquet``, written by ``harness leaderboard``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis import ORDER_HOLDS, group_title, holds_text, tau_text
from loophole_report._figures import WIDTH_IN, figure_block
from loophole_report._sections import Block, pct, plain, table, text
from loophole_report._style import STYLE, UNCERTAIN_COLOUR, UNCERTAIN_NAME, colour

GROUP = ["domain", "task_version", "task_group", "rank_group", "task_set"]
SIDES = (("single", 0.0, -1), ("multi", 1.0, 1))  # the order, its column's x, and which way its labels go
NAME_CHARS = 40


def _members(ranks: pd.DataFrame, a: Any) -> pd.DataFrame:
    return ranks[(ranks[GROUP] == [getattr(a, c) for c in GROUP]).all(axis=1)]


def _unsettled(g: pd.DataFrame, side: str) -> list[tuple[Any, Any, float]]:
    """The adjacent pairs of one order (above, below, share) whose order holds in fewer than ``ORDER_HOLDS``."""
    order = g.sort_values(f"{side}_position")
    pairs = zip(order.itertuples(index=False), list(order.itertuples(index=False))[1:], strict=False)
    return [(up, down, float(getattr(up, f"{side}_order_holds"))) for up, down in pairs
            if float(getattr(up, f"{side}_order_holds")) < ORDER_HOLDS]


def _short(name: object) -> str:
    s = str(name)
    return s if len(s) <= NAME_CHARS else s[: NAME_CHARS - 1] + "…"


def rank_figure(ranks: pd.DataFrame, agreement: pd.DataFrame) -> dict[str, Any] | None:
    """The slope chart of every rank group with two or more runs (None where there is none)."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex
    from matplotlib.transforms import offset_copy

    groups = list(agreement[agreement.runs >= 2].itertuples(index=False))
    if not groups:
        return None
    heights = [int(a.runs) + 1.6 for a in groups]
    fig, axes = plt.subplots(len(groups), 1, figsize=(WIDTH_IN, 0.36 * sum(heights) + 0.5), squeeze=False,
                             height_ratios=heights, layout="constrained")
    panels = []
    for ax, a in zip(axes[:, 0], groups, strict=True):
        g = _members(ranks, a)
        unsettled = {side: _unsettled(g, side) for side, _, _ in SIDES}
        shaky = {r.name for pairs in unsettled.values() for up, down, _ in pairs for r in (up, down)}
        runs = []
        for r in g.itertuples(index=False):
            line = ax.plot([0, 1], [r.single_position, r.multi_position], color=colour(str(r.name)), lw=2,
                           ls="--" if r.name in shaky else "-", zorder=2)[0]
            for side, x, sign in SIDES:
                y, rank, rate = getattr(r, f"{side}_position"), getattr(r, f"rank_{side}"), getattr(r, f"{side}_pass1")
                ax.plot([x], [y], marker=STYLE[side].marker, ms=8, color=colour(str(r.name)), zorder=3)
                words = [_short(r.name), pct(rate), f"#{rank}"]
                ax.annotate("  ".join(words if sign < 0 else words[::-1]), (x, y), xytext=(34 * sign, 0),
                            textcoords="offset points", ha="right" if sign < 0 else "left", va="center", fontsize=8)
            runs.append({"name": str(r.name), "single_position": int(r.single_position),
                         "multi_position": int(r.multi_position), "linestyle": line.get_linestyle(),
                         "colour": to_hex(line.get_color())})
        brackets = []
        for side, x, sign in SIDES:
            beside = offset_copy(ax.transData, fig=fig, x=12 * sign, y=0, units="points")
            for up, down, share in unsettled[side]:
                y0, y1 = getattr(up, f"{side}_position"), getattr(down, f"{side}_position")
                # a little short of each end: two brackets in a row stay two
                mark = ax.plot([x, x], [y0 + 0.12, y1 - 0.12], transform=beside, color=UNCERTAIN_COLOUR, ls="--", lw=1.5)[0]
                ax.annotate(f"{100 * share:.0f}%", (x, (y0 + y1) / 2), xytext=(16 * sign, 0), textcoords="offset points",
                            ha="right" if sign < 0 else "left", va="center", fontsize=7, color=UNCERTAIN_COLOUR)
                brackets.append({"order": side, "above": str(up.name), "below": str(down.name), "holds": share,
                                 "linestyle": mark.get_linestyle(), "colour": to_hex(mark.get_color())})
        ax.set_xlim(-0.75, 1.75)
        ax.set_ylim(len(g) + 0.6, 0.4)  # the first place on top
        ax.set_xticks([0, 1], [f"{STYLE['single'].label} rank", f"{STYLE['multi'].label} rank"])
        ax.xaxis.tick_top()
        ax.tick_params(length=0)
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        tau = "" if a.kendall_tau != a.kendall_tau else f"; Kendall's τ {a.kendall_tau:.2f}"
        if tau and a.tau_ci_low == a.tau_ci_low:
            tau += f" [{a.tau_ci_low:.2f}, {a.tau_ci_high:.2f}]"
        title = ax.set_title(f"{group_title(a)}{tau}", fontsize=10, loc="left")
        panels.append({"title": title.get_text(), "runs": runs, "uncertain": brackets})
    single, multi = STYLE["single"], STYLE["multi"]
    reps = int(groups[0].resamples)
    caption = (
        f"Each ranked run's place under the {single.label} (left, {single.shape}s) and under {multi.label} (right, "
        f"{multi.shape}s), one panel per domain and task version, with its pass^1 and rank beside it: a line that "
        f"climbs is a run multi-gold ranks higher. A {UNCERTAIN_NAME} dashed bracket joins two neighbours whose order "
        f"holds in fewer than {ORDER_HOLDS:.0%} of {reps:,} resamples of the tasks (each task's trials kept "
        "together; the share beside it), and the lines of the runs it joins are dashed: these tasks do not settle "
        "their order. Kendall's τ between the two orders, with its 95% interval, is in each panel's title."
    )
    return figure_block(fig, caption, "ranks", {"panels": panels, "order_holds": ORDER_HOLDS})


_HEADERS = ["Domain and version", "Run", "Rank, multi-gold", "Rank, single gold", "Rank, strict",
            "Rank, loophole-free", "pass^1, multi-gold", "pass^1, single gold", "pass^1, strict",
            "Loophole-free pass^1, single gold", "Loophole-free pass^1, multi-gold",
            "Multi-gold order over the next: share of resamples", "Single-gold order over the next: share of resamples"]


def rank_blocks(ranks: pd.DataFrame, agreement: pd.DataFrame) -> list[Block]:
    """The figure, one table of every ranked run, and Kendall's τ of each group in words."""
    blocks: list[Block] = []
    figure = rank_figure(ranks, agreement)
    if figure is not None:
        blocks.append(figure)
    rows = []
    for a in agreement.itertuples(index=False):
        for r in _members(ranks, a).itertuples(index=False):
            rows.append([group_title(a), plain(r.name), *(_rank(getattr(r, f"rank_{s}"))
                                                          for s in ("multi", "single", "strict", "loophole_free")),
                         pct(r.multi_pass1), pct(r.single_pass1), pct(r.strict_pass1),
                         pct(r.loophole_free_single), pct(r.loophole_free_multi),
                         holds_text(r.multi_next, r.multi_order_holds), holds_text(r.single_next, r.single_order_holds)])
    blocks.append(table(_HEADERS, rows))
    blocks.append(text(
        "Loophole-free: the same trials without the tasks that have a policy loophole (the catalog's), as the "
        "method's paper asks benchmarks to report beside the full score. The share over the next run counts the "
        "resamples of the tasks (each task's trials kept together, every run of a group on the same tasks) in "
        "which the order holds, a tie counting half."
    ))
    blocks += [text(f"{group_title(a)}: {tau_text(a)}.") for a in agreement[agreement.runs >= 2].itertuples(index=False)]
    return blocks


def _rank(v: Any) -> str:
    return "n/a" if v is None or pd.isna(v) else plain(v)
