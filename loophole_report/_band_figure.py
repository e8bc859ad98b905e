"""The band figure: strict ≤ single ≤ multi ≤ upper per agent, each point with its 95% interval.

Each agent's row holds the four points one under another (``PointStyle.offset``, in the band's order), so no
marker hides another where two rates are equal; a light bar spans the band. The x-axis covers the points and
their intervals only. The caption and the legend are written from ``loophole_report._style.BAND_STYLE``, the
table the markers are drawn from.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from analysis import band_points
from loophole_report._figures import CI_LABEL, figure_block, paint_agents, width
from loophole_report._style import BAND_RANGE_COLOUR, BAND_RANGE_NAME, BAND_STYLE, point_key

STEP = 0.05  # the axis ends on a multiple of this


def x_range(points: pd.DataFrame) -> tuple[float, float]:
    """The axis range: the lowest and highest of the rates and their intervals, padded and rounded out to
    ``STEP``, within [0, 1] (a hair beyond, so a marker at 0 or 1 is drawn whole)."""
    values = pd.concat([points.rate, points.ci_low, points.ci_high]).dropna()
    if values.empty:
        return 0.0, 1.0
    low = max(0.0, math.floor((float(values.min()) - 0.02) / STEP) * STEP)
    high = min(1.0, math.ceil((float(values.max()) + 0.02) / STEP) * STEP)
    if high - low < 4 * STEP:  # a narrow band still gets an axis a reader can read
        middle = (low + high) / 2
        low, high = max(0.0, middle - 2 * STEP), min(1.0, middle + 2 * STEP)
    return round(low - 0.015, 3), round(high + 0.015, 3)


def _rates(g: pd.DataFrame) -> str:
    return " ≤ ".join("n/a" if r != r else f"{100 * r:.1f}" for r in g.rate) + "%"


def band_figure(trials: pd.DataFrame) -> dict[str, Any]:
    """The band per agent from ``analysis.band_points`` (the trials' scored rows)."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    points = band_points(trials)
    agents = list(dict.fromkeys(points.agent))
    fig, ax = plt.subplots(figsize=(width(len(agents)), 0.95 * len(agents) + (1.6 if len(agents) > 1 else 2.2)),
                           layout="constrained")
    drawn: list[dict[str, Any]] = []
    for y, agent in enumerate(agents):
        g = points[points.agent == agent].set_index("point")
        known = g.rate.dropna()
        if len(known):
            ax.barh(y, float(known.max() - known.min()), left=float(known.min()), height=0.8,
                    color=BAND_RANGE_COLOUR, zorder=0)
        for order, style in enumerate(BAND_STYLE):
            r = g.loc[style.name]
            if r.rate != r.rate:
                continue  # strict unknown (a run written before strict_reward): no point, the caption says so
            err = [[r.rate - r.ci_low], [r.ci_high - r.rate]] if r.ci_low == r.ci_low else None
            ax.errorbar([r.rate], [y + style.offset], xerr=err, fmt=style.marker, color=style.colour,
                        mfc=style.colour if style.filled else "white", mec=style.colour, mew=1.5, ms=8,
                        capsize=3, elinewidth=1.2, zorder=2 + order, clip_on=False)
            drawn.append({"agent": agent, "point": style.name, "rate": float(r.rate),
                          "ci_low": None if r.ci_low != r.ci_low else float(r.ci_low),
                          "ci_high": None if r.ci_high != r.ci_high else float(r.ci_high),
                          "y": y + style.offset, "marker": style.marker, "colour": style.colour,
                          "filled": style.filled, "trials": int(r.trials), "tasks": int(r.tasks)})
    low, high = x_range(points)
    ax.set_xlim(low, high)
    ax.set_ylim(len(agents) - 0.5, -0.5)  # the first agent on top; within a row, strict on top
    ax.set_yticks(range(len(agents)), agents)
    agent_colours = paint_agents(ax.get_yticklabels())
    right = ax.twinx()  # the four rates per agent, as a column of text beside the axes
    right.set_ylim(ax.get_ylim())
    right.set_yticks(range(len(agents)), [_rates(points[points.agent == a]) for a in agents], fontsize=9)
    right.tick_params(length=0)
    ax.set_xlabel(f"success rate ({CI_LABEL})")
    ax.grid(axis="x", color="#eeeeee", zorder=-1)
    handles: list[Any] = [plt.Line2D([], [], ls="", marker=s.marker, color=s.colour, mfc=s.colour if s.filled else "white",
                          mew=1.5, ms=8, label=s.label) for s in BAND_STYLE]
    handles.append(Patch(color=BAND_RANGE_COLOUR, label="the band"))
    # one row on a full-width figure; two columns on a single agent's narrow one (it must not be cut)
    ncol = len(handles) if len(agents) > 1 else 2
    fig.legend(handles=handles, loc="outside upper center", ncol=ncol, fontsize=9, frameon=False)
    strict_unknown = bool(points[points.point == "strict"].rate.isna().all()) and len(points) > 0
    caption = (
        f"The band per agent, top to bottom in each row: {point_key()}, each with its {CI_LABEL} as whiskers; "
        f"the {BAND_RANGE_NAME} bar spans the band, and the column on the right gives the four rates in percent "
        "(strict ≤ single ≤ multi ≤ upper). The axis covers only the range the points and their intervals take."
    )
    if strict_unknown:
        caption += " This run was written before strict_reward: strict is unknown and not drawn."
    return figure_block(fig, caption, "band", {"points": drawn, "xlim": [low, high], "agents": agents,
                                         "strict_known": not strict_unknown, "agent_colours": agent_colours})
