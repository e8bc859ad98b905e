"""The report's figures (matplotlib), each a PNG embedded in the page with its caption and the data it draws.

Colours, markers and their words come from ``loophole_report._style`` (one palette keyed by name for every
report). Legends stand outside the axes (they never cover a bar) and list a stack top first, as it is drawn.
Each figure block carries ``data``: what the figure draws, read back from the matplotlib objects (the legend's
labels, its place, the axis range), which the page holds beside the PNG as JSON for tests and readers.
"""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analysis import bootstrap_ci, task_clusters
from loophole_base import natural_key
from loophole_report._style import STYLE, colour, hatch

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CI_LABEL = "95% CI, bootstrap clustered by task"
WIDTH_IN = 12  # inches at 100 dpi: 1200 px, the width a figure is drawn at on a 1280 px page
COMPACT_IN = 6.4  # a figure of one agent: half the page, shown at its own size (the block's ``compact``)


def width(categories: int) -> float:
    """A figure's width: the page's, or half of it for one category (a single agent gets no full-width chart
    of one bar)."""
    return COMPACT_IN if categories <= 1 else WIDTH_IN


def _box(artist: Any, fig: Figure) -> list[float]:
    """An artist's extent in figure pixels (x0, y0, x1, y1), as drawn."""
    b = artist.get_window_extent(fig.canvas.get_renderer())  # type: ignore[attr-defined]  # Agg's canvas has it
    return [round(float(v), 1) for v in (b.x0, b.y0, b.x1, b.y1)]


def figure_block(fig: Figure, caption: str, name: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    """The figure as a report block: a base64 PNG, its caption and its data (``report.html`` shows the first
    two and holds the third as JSON). The data records each axes' legend as drawn: its labels in order, its
    box and the axes' box."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    data = dict(data or {})
    legends = [leg for leg in [*fig.legends, *(ax.get_legend() for ax in fig.axes)] if leg is not None]
    data["legends"] = [{"labels": [t.get_text() for t in leg.get_texts()], "box": _box(leg, fig)} for leg in legends]
    data["axes_boxes"] = [_box(ax, fig) for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
    data["width_px"] = int(round(fig.get_figwidth() * 100))
    plt.close(fig)
    return {"kind": "figure", "name": name, "caption": caption, "png": base64.b64encode(buf.getvalue()).decode(),
            "data": data, "compact": data["width_px"] < WIDTH_IN * 100}


def success(values: pd.Series) -> np.ndarray:
    return (values.to_numpy(dtype=float) >= 1 - 1e-6).astype(float)


def cluster_ci(
    df: pd.DataFrame, column: str, reps: int = 2000, seed: int = 42
) -> tuple[float, float] | None:
    """95% interval of the success rate, bootstrap clustered by task (``analysis._stats``): trials of one
    task are not independent. None with fewer than two tasks."""
    clusters = task_clusters(df)
    if len(np.unique(clusters)) < 2:
        return None
    return bootstrap_ci(success(df[column]), clusters, reps, seed)


def success_figure(scored: pd.DataFrame) -> dict[str, Any]:
    import matplotlib.pyplot as plt

    agents = sorted(scored.agent_name.unique())
    fig, ax = plt.subplots(figsize=(width(len(agents)), 4.2 if len(agents) > 1 else 3.2), layout="constrained")
    x = np.arange(len(agents))
    bars = (("reward", STYLE["single"]), ("multi_gold_reward", STYLE["multi"]))
    for offset, (col, style) in zip((-0.2, 0.2), bars, strict=True):
        means: list[float] = []
        errs: list[list[float]] = [[], []]
        for a in agents:
            g = scored[scored.agent_name == a]
            m = float(success(g[col]).mean())
            ci = cluster_ci(g, col)
            means.append(m)
            errs[0].append(m - ci[0] if ci else 0)
            errs[1].append(ci[1] - m if ci else 0)
        ax.bar(x + offset, means, 0.4, yerr=errs, capsize=3, label=style.label, color=style.colour)
    ax.set_xticks(x, agents, rotation=20 if len(agents) > 6 else 0, ha="right" if len(agents) > 6 else "center")
    paint_agents(ax.get_xticklabels())
    ax.set_ylim(0, 1.05)  # room for a whisker at 1
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel(f"success rate ({CI_LABEL})", fontsize=9)
    fig.legend(loc="outside upper center", ncol=2, fontsize=9, frameon=False)
    single, multi = STYLE["single"], STYLE["multi"]
    return figure_block(
        fig,
        f"Each agent's success rate under the {single.label} (left bar, {single.colour_name}) and under "
        f"{multi.label} (right bar, {multi.colour_name}); the whiskers are the {CI_LABEL}, and a taller right bar "
        "means readings credit trials the single gold fails. The whole band, strict to upper, is drawn next.",
        "success",
    )


def paint_agents(labels: list[Any]) -> dict[str, str]:
    """Each agent's name in its own colour (the palette's), the same in every report; returns the colours as
    drawn, by name (the figure's data)."""
    from matplotlib.colors import to_hex

    for label in labels:
        label.set_color(colour(label.get_text()))
    return {label.get_text(): to_hex(label.get_color()) for label in labels}


def heatmap_figure(lt: pd.DataFrame) -> dict[str, Any]:
    import matplotlib.pyplot as plt

    rows = sorted(
        {(d, v, t) for d, v, t in zip(lt.domain, lt.task_version, lt.task_id, strict=True)},
        key=lambda k: (k[0], k[1], natural_key(k[2])),
    )
    agents = sorted(lt.agent.unique())
    grid = np.full((len(rows), len(agents)), np.nan)
    where = {k: i for i, k in enumerate(rows)}
    for r in lt.itertuples(index=False):
        grid[where[(r.domain, r.task_version, r.task_id)], agents.index(r.agent)] = r.single_rate
    fig, ax = plt.subplots(figsize=(width(len(agents)), 0.4 * len(rows) + 1.5), layout="constrained")
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(agents)), agents, rotation=20, ha="right")
    paint_agents(ax.get_xticklabels())
    ax.set_yticks(range(len(rows)), [f"{d} {v} task {t}" for d, v, t in rows])
    for (i, j), v in np.ndenumerate(grid):
        if v == v:
            ax.text(
                j, i, f"{v:.2f}", ha="center", va="center", color="white" if v < 0.5 else "black"
            )
    fig.colorbar(im, ax=ax, label="single-gold success")
    return figure_block(
        fig,
        "Single-gold success on each loophole task (rows, in task order) for each agent (columns): "
        "dark cells are tasks an agent fails under the single gold, whatever reading it took.",
        "heatmap",
    )


def stack_order(readings: list[str]) -> list[str]:
    """The order readings are stacked in, bottom first: the gold, the readings by name, then 'none'."""
    rest = sorted(r for r in readings if r not in ("gold", "none"))
    return [r for r in ("gold",) if r in readings] + rest + [r for r in ("none",) if r in readings]


def readings_figure(readings: pd.DataFrame) -> dict[str, Any]:
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    counts = readings.groupby(["agent", "reading"]).trials.sum().unstack(fill_value=0)
    fig, ax = plt.subplots(figsize=(width(len(counts)), 4), layout="constrained")
    bottom = np.zeros(len(counts))
    stack = stack_order([str(c) for c in counts.columns])
    colours = {}
    for reading in stack:
        bars = ax.bar(counts.index, counts[reading], bottom=bottom, label=reading, color=colour(reading),
                      hatch=hatch(reading), edgecolor="white", linewidth=0.5)
        colours[reading] = to_hex(bars.patches[0].get_facecolor())  # as drawn
        bottom += counts[reading].to_numpy()
    ax.set_ylabel("trials on loophole tasks")
    handles, labels = ax.get_legend_handles_labels()
    # top of the stack first, as a reader sees it; outside the axes, right of them: it covers no bar
    fig.legend(handles[::-1], labels[::-1], fontsize=8, loc="outside right upper", frameon=False)
    plt.setp(ax.get_xticklabels(), rotation=20 if len(counts) > 1 else 0, ha="right" if len(counts) > 1 else "center")
    agent_colours = paint_agents(ax.get_xticklabels())
    return figure_block(
        fig,
        "How each agent's trials on loophole tasks split by the golds they match: 'gold' is the "
        "single gold, a variant id is a reading, 'none' matched no gold; the legend lists the stack top first.",
        "readings",
        {"stack": stack, "colours": colours, "agent_colours": agent_colours},
    )


def variance_figure(single: pd.DataFrame, multi: pd.DataFrame, agents: int = 2) -> dict[str, Any]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width(agents), 3.6), layout="constrained")
    x = np.arange(len(single))
    for offset, frame, style in ((-0.2, single, STYLE["single"]), (0.2, multi, STYLE["multi"])):
        ax.bar(x + offset, frame.mean_variance.fillna(0), 0.4, label=style.label, color=style.colour)
    ax.set_xticks(
        x,
        [
            f"{'loophole' if g == 'loophole' else 'other'} tasks ({c} cells)"
            for g, c in zip(single.group, single.cells, strict=True)
        ],
    )
    ax.set_ylabel("mean variance per agent × task")
    fig.legend(loc="outside upper center", ncol=2, fontsize=9, frameon=False)
    return figure_block(
        fig,
        "Mean within-task variance of the trial outcomes, loophole against other tasks: a higher "
        "bar means repeated trials of the same task disagree more often.",
        "variance",
    )


def leaderboard_figure(shown: pd.DataFrame) -> dict[str, Any]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(WIDTH_IN, 5), layout="constrained")
    for (domain, version), g in shown.groupby(["domain", "task_version"]):
        ax.scatter(g.single_pass1, g.multi_pass1, label=f"{domain} {version}", color=colour(f"{domain} {version}"))
        if "upper_pass1" in g:  # boards written before the upper bound lack it
            up = g.upper_pass1.fillna(g.multi_pass1)
            ax.vlines(g.single_pass1, g.multi_pass1, up, color="black", lw=0.8)
            ax.scatter(g.single_pass1, up, marker="v", color="black", s=14)
        for r in g.itertuples():
            ax.annotate(
                str(r.name)[:24] + (" (flagged)" if r.flagged else ""),
                (r.single_pass1, r.multi_pass1),
                fontsize=7,
                xytext=(3, 3),
                textcoords="offset points",
            )
    ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
    ax.set_xlabel("single-gold pass^1")
    ax.set_ylabel("multi-gold pass^1")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    fig.legend(fontsize=8, loc="outside right upper", frameon=False)
    return figure_block(
        fig,
        "Each run's pass^1 under the single gold (x) against multi-gold (y): the "
        "further above the dashed diagonal, the more of its failures a reading explains; a black "
        "triangle above a point is its upper bound, counting the credits scored uncertain too.",
        "leaderboard",
    )
