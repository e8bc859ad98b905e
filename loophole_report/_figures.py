"""The report's figures (matplotlib), each a PNG embedded in the page with its caption."""

from __future__ import annotations

import base64
import io
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from analysis import bootstrap_ci, task_clusters, upper_reward
from loophole_base import natural_key

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CI_LABEL = "95% CI, bootstrap clustered by task"
WIDTH_IN = 12  # inches at 100 dpi: 1200 px, the width a figure is drawn at on a 1280 px page


def _figure(fig: Figure, caption: str) -> dict[str, str]:
    """The figure as a report block: a base64 PNG and its caption (``report.html`` shows both)."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
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
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 4.2), layout="constrained")
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
    ax.set_xticks(x, agents, rotation=20 if len(agents) > 6 else 0, ha="right" if len(agents) > 6 else "center")
    ax.set_ylim(0, 1.3)  # headroom for the legend, inside the axes, above the bars
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel(f"success rate ({CI_LABEL})", fontsize=9)
    ax.legend(loc="upper center", ncol=2, fontsize=9, frameon=True)
    return _figure(
        fig,
        "Each agent's success rate under the single gold (left bar) and under multi-gold (right bar); "
        f"the whiskers are the {CI_LABEL}, and a taller right bar means readings credit trials "
        "the single gold fails. The band, up to the upper bound, is drawn in the next figure.",
    )


def band_figure(scored: pd.DataFrame) -> dict[str, str]:
    """Each agent's band as a range: single gold → multi-gold → upper (counting uncertain credits)."""
    import matplotlib.pyplot as plt

    agents = sorted(scored.agent_name.unique())
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 0.55 * len(agents) + 1.4), layout="constrained")
    for y, a in enumerate(agents):
        g = scored[scored.agent_name == a]
        single, multi = float(success(g.reward).mean()), float(success(g.multi_gold_reward).mean())
        upper = float(success(upper_reward(g)).mean())
        ax.plot([single, upper], [y, y], color="#888", lw=6, solid_capstyle="butt", zorder=1)
        ax.plot([single, multi], [y, y], color="#1f77b4", lw=6, solid_capstyle="butt", zorder=2)
        ax.scatter([single], [y], marker="o", color="#d62728", s=50, zorder=3, label="single gold" if y == 0 else None)
        ax.scatter([multi], [y], marker="s", color="#1f77b4", s=50, zorder=3, label="multi-gold" if y == 0 else None)
        ax.scatter([upper], [y], marker="^", color="black", s=60, zorder=3,
                   label="upper: counting uncertain credits" if y == 0 else None)
        ax.annotate(f"{100 * single:.1f} → {100 * multi:.1f} → {100 * upper:.1f}%", (upper, y), fontsize=9,
                    xytext=(8, -3), textcoords="offset points")
    ax.set_yticks(range(len(agents)), agents)
    ax.set_ylim(-0.7, len(agents) - 0.3 + 0.6)
    ax.invert_yaxis()
    ax.set_xlim(0, 1.15)
    ax.set_xlabel("success rate")
    ax.legend(loc="lower right", ncol=3, fontsize=9, frameon=True)
    return _figure(
        fig,
        "The band per agent as a range: from single-gold success (circle) to multi-gold success (square, "
        "blue: what readings credit) to the upper bound (triangle, grey: credits scored uncertain too).",
    )


def heatmap_figure(lt: pd.DataFrame) -> dict[str, str]:
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
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 0.4 * len(rows) + 1.5), layout="constrained")
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
    fig, ax = plt.subplots(figsize=(WIDTH_IN, 4), layout="constrained")
    bottom = np.zeros(len(counts))
    for reading in counts.columns:
        ax.bar(counts.index, counts[reading], bottom=bottom, label=reading)
        bottom += counts[reading].to_numpy()
    ax.set_ylabel("trials on loophole tasks")
    ax.legend(fontsize=8, loc="upper right", frameon=True)
    plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
    return _figure(
        fig,
        "How each agent's trials on loophole tasks split by the golds they match: 'gold' is the "
        "single gold, a variant id is a reading, 'none' matched no gold.",
    )


def variance_figure(single: pd.DataFrame, multi: pd.DataFrame) -> dict[str, str]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.6), layout="constrained")
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

    fig, ax = plt.subplots(figsize=(WIDTH_IN, 5), layout="constrained")
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
