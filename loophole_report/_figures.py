"""The report's figures (matplotlib), each a PNG embedded in the page with its caption."""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from analysis import bootstrap_ci, task_clusters, upper_reward
from loophole_report._links import task_order

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CI_LABEL = "95% CI, bootstrap clustered by task"


def _figure(fig: Figure, caption: str) -> dict[str, str]:
    """The figure as a report block: a base64 PNG and its caption (``report.html`` shows both)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return {"kind": "figure", "caption": caption, "png": base64.b64encode(buf.getvalue()).decode()}


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


def success_figure(scored: pd.DataFrame) -> dict[str, str]:
    import matplotlib.pyplot as plt

    agents = sorted(scored.agent_name.unique())
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(agents)), 3.4))
    x = np.arange(len(agents))
    for offset, (col, label) in zip(
        (-0.2, 0.2), (("reward", "single gold"), ("multi_gold_reward", "multi-gold")), strict=True
    ):
        means: list[float] = []
        errs: list[list[float]] = [[], []]
        for a in agents:
            g = scored[scored.agent_name == a]
            m = float(success(g[col]).mean())
            ci = cluster_ci(g, col)
            means.append(m)
            errs[0].append(m - ci[0] if ci else 0)
            errs[1].append(ci[1] - m if ci else 0)
        ax.bar(x + offset, means, 0.4, yerr=errs, capsize=3, label=label)
    uppers = [float(success(upper_reward(scored[scored.agent_name == a])).mean()) for a in agents]
    ax.scatter(x + 0.2, uppers, marker="v", color="black", s=36, zorder=3,
               label="upper: counting uncertain credits")
    ax.set_xticks(x, agents, rotation=20, ha="right")
    ax.set_ylim(0, 1.25)  # headroom for the legend above the bars
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel(f"success rate ({CI_LABEL})", fontsize=8)
    ax.legend(loc="upper left", ncol=3, fontsize=8)
    return _figure(
        fig,
        "Each agent's success rate under the single gold (left bar) and under multi-gold (right bar); "
        f"the whiskers are the {CI_LABEL}, and a taller right bar means readings credit trials "
        "the single gold fails. The black triangle over the right bar is the upper bound, counting "
        "the credits scored uncertain too: the band is single ≤ multi ≤ upper.",
    )


def heatmap_figure(lt: pd.DataFrame) -> dict[str, str]:
    import matplotlib.pyplot as plt

    rows = sorted(
        {(d, v, t) for d, v, t in zip(lt.domain, lt.task_version, lt.task_id, strict=True)},
        key=lambda k: (k[0], k[1], task_order(k[2])),
    )
    agents = sorted(lt.agent.unique())
    grid = np.full((len(rows), len(agents)), np.nan)
    where = {k: i for i, k in enumerate(rows)}
    for r in lt.itertuples(index=False):
        grid[where[(r.domain, r.task_version, r.task_id)], agents.index(r.agent)] = r.single_rate
    fig, ax = plt.subplots(figsize=(max(4, 1.4 * len(agents) + 2), 0.4 * len(rows) + 1.5))
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(agents)), agents, rotation=20, ha="right")
    ax.set_yticks(range(len(rows)), [f"{d} {v} task {t}" for d, v, t in rows])
    for (i, j), v in np.ndenumerate(grid):
        if v == v:
            ax.text(
                j, i, f"{v:.2f}", ha="center", va="center", color="white" if v < 0.5 else "black"
            )
    fig.colorbar(im, ax=ax, label="single-gold success")
    return _figure(
        fig,
        "Single-gold success on each loophole task (rows, in task order) for each agent (columns): "
        "dark cells are tasks an agent fails under the single gold, whatever reading it took.",
    )


def readings_figure(readings: pd.DataFrame) -> dict[str, str]:
    import matplotlib.pyplot as plt

    counts = readings.groupby(["agent", "reading"]).trials.sum().unstack(fill_value=0)
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(counts)), 3.4))
    bottom = np.zeros(len(counts))
    for reading in counts.columns:
        ax.bar(counts.index, counts[reading], bottom=bottom, label=reading)
        bottom += counts[reading].to_numpy()
    ax.set_ylabel("trials on loophole tasks")
    ax.legend(fontsize=7, bbox_to_anchor=(1.01, 1), loc="upper left")
    plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
    return _figure(
        fig,
        "How each agent's trials on loophole tasks split by the golds they match: 'gold' is the "
        "single gold, a variant id is a reading, 'none' matched no gold.",
    )


def variance_figure(single: pd.DataFrame, multi: pd.DataFrame) -> dict[str, str]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3))
    x = np.arange(len(single))
    ax.bar(x - 0.2, single.mean_variance.fillna(0), 0.4, label="single gold")
    ax.bar(x + 0.2, multi.mean_variance.fillna(0), 0.4, label="multi-gold")
    ax.set_xticks(
        x,
        [
            f"{'loophole' if g == 'loophole' else 'other'} tasks ({c} cells)"
            for g, c in zip(single.group, single.cells, strict=True)
        ],
    )
    ax.set_ylabel("mean variance per agent × task")
    ax.legend()
    return _figure(
        fig,
        "Mean within-task variance of the trial outcomes, loophole against other tasks: a higher "
        "bar means repeated trials of the same task disagree more often.",
    )


def leaderboard_figure(shown: pd.DataFrame) -> dict[str, str]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for (domain, version), g in shown.groupby(["domain", "task_version"]):
        ax.scatter(g.single_pass1, g.multi_pass1, label=f"{domain} {version}")
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
    ax.legend(fontsize=8)
    return _figure(
        fig,
        "Each run's pass^1 under the single gold (x) against multi-gold (y): the "
        "further above the dashed diagonal, the more of its failures a reading explains; a black "
        "triangle above a point is its upper bound, counting the credits scored uncertain too.",
    )
