"""``harness view``: a static site to read every trajectory behind a verdict, openable from disk.

``index.html`` lists the trials (filterable; the filters live in the URL hash, so the report can link
to a filtered list); ``t/<sha>.html`` is one page per trajectory: the conversation, each gold's
verdict, why a gold fails (database records that differ, unmet communicate items, NL assertions),
a variant's preconditions and evidence (``scores.explanation_json``) marked in the conversation, and
links to the same task elsewhere. Everything is escaped; the pages fetch nothing.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote, urlencode

import pandas as pd
import pyarrow.parquet as pq

from analysis._tables import loophole_mask
from envs.atomic import atomic_folder

# --- links shared with the report ----------------------------------------------------------------

FILTERS = (
    "agent",
    "domain",
    "version",
    "task",
    "status",
    "single",
    "multi",
    "reading",
    "flips",
    "loophole",
)


def page_name(trajectory_id: str) -> str:
    """The trial page's path inside the site (a hash: trajectory ids hold slashes and colons)."""
    return f"t/{hashlib.sha256(trajectory_id.encode()).hexdigest()[:20]}.html"


def index_link(**filters: str | None) -> str:
    """``index.html#agent=...``: the index reads its filters from the hash."""
    unknown = set(filters) - set(FILTERS)
    if unknown:
        raise ValueError(f"unknown viewer filters: {sorted(unknown)}")
    query = urlencode({k: v for k, v in filters.items() if v not in (None, "")}, quote_via=quote)
    return "index.html" + (f"#{query}" if query else "")


def verdict(reward: float | None) -> str:
    if reward is None or reward != reward:
        return "unscored"
    return "pass" if reward >= 1 - 1e-6 else "fail"


def reading_key(matched: list[str]) -> str:
    """The golds a trial matched, as ``analysis.reading_choices`` names them (``none`` for no gold)."""
    return ",".join(matched) if matched else "none"


def task_order(task_id: object) -> tuple[int, str]:
    """Numeric task order (2 before 13); non-numeric ids after, alphabetically."""
    return (int(str(task_id)), "") if str(task_id).isdigit() else (1 << 30, str(task_id))


def read_scores(run_dir: Path) -> pd.DataFrame:
    """The scores table, with ``explanation_json`` kept when the file has it, even where this checkout's
    schema does not list it yet (the column is added by the scoring side)."""
    import loophole_store as store

    scores = store.read_table(run_dir, "scores")
    if "explanation_json" not in scores.columns:
        path = Path(run_dir) / "scores.parquet"
        names = pq.read_schema(path).names if path.exists() else []
        if "explanation_json" in names:
            raw = pq.read_table(
                path, columns=["trajectory_id", "gold_id", "explanation_json"]
            ).to_pandas()
            scores = scores.merge(raw, on=["trajectory_id", "gold_id"], how="left")
        else:
            scores["explanation_json"] = None
    return scores


def explanation(text: object) -> dict | None:
    """The parsed explanation, or None when absent or not a JSON object (the page says nothing then)."""
    if not isinstance(text, str) or not text:
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def trial_frame(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials with the columns the index and the report filter on."""
    df = trials.copy()
    df["single"] = [verdict(r) for r in df.reward]
    df["multi"] = [verdict(r) for r in df.multi_gold_reward]
    df["flip"] = (df.single == "fail") & (df.multi == "pass")
    df["loophole"] = loophole_mask(df) if len(df) else pd.Series(dtype=bool)
    df["page"] = [page_name(t) for t in df.trajectory_id]
    keys = list(
        zip(
            df.agent_name.astype(str),
            df.domain.astype(str),
            df.task_version.astype(str),
            df.task_id.map(task_order),
            df.trial.fillna(-1),
            df.trajectory_id,
            strict=True,
        )
    )
    order = sorted(range(len(df)), key=keys.__getitem__)
    return df.iloc[order].reset_index(drop=True)


# --- the site ------------------------------------------------------------------------------------


@dataclass
class SiteStats:
    trials: int
    pages: int
    bytes: int
    seconds: float
    largest_page_bytes: int


def build_site(run_dir: Path, out: Path) -> SiteStats:
    """Write the site to ``out`` (built in a temporary folder beside it, then swapped in)."""
    import loophole_store as store

    started = time.perf_counter()
    run_dir, out = Path(run_dir), Path(out)
    trials = trial_frame(store.read_table(run_dir, "trials"))
    scores = read_scores(run_dir)
    # plain records: row access on DataFrames costs more than the pages themselves
    by_traj: dict[str, list[SimpleNamespace]] = {}
    for g in scores.to_dict("records"):
        by_traj.setdefault(g["trajectory_id"], []).append(SimpleNamespace(**g))
    records = [SimpleNamespace(**r) for r in trials.to_dict("records")]
    with atomic_folder(out) as tmp:  # swapped in whole; removed on an error (envs.atomic)
        (tmp / "t").mkdir()
        diffs = _DiffMaker()
        by_task: dict[tuple, list[SimpleNamespace]] = {}
        for r in records:
            by_task.setdefault((r.domain, r.task_id), []).append(r)
        largest = 0
        for row in records:
            golds = by_traj.get(row.trajectory_id, [])
            text = _trial_page(row, golds, by_task[(row.domain, row.task_id)], diffs, run_dir.name)
            (tmp / row.page).write_text(text, encoding="utf-8")
            largest = max(largest, len(text.encode()))
        (tmp / "index.html").write_text(
            _index_page(trials, records, run_dir.name), encoding="utf-8"
        )
    size = sum(p.stat().st_size for p in out.rglob("*.html"))
    return SiteStats(len(trials), len(trials) + 1, size, time.perf_counter() - started, largest)


# --- shared page parts ---------------------------------------------------------------------------

STYLE = """
body { font-family: system-ui, sans-serif; margin: 0 auto; max-width: 1200px; padding: 12px 16px; color: #222; }
a { color: #0645ad; } nav { margin-bottom: 8px; font-size: 14px; }
table.t { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
table.t td, table.t th { padding: 3px 8px; border-bottom: 1px solid #ddd; text-align: left; vertical-align: top; }
table.t th { background: #f3f3f3; position: sticky; top: 0; }
.pass { color: #11661d; font-weight: 600; } .fail { color: #a3141d; font-weight: 600; } .unscored { color: #777; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: end; background: #f7f7f7; padding: 8px;
  border-radius: 6px; font-size: 13px; position: sticky; top: 0; z-index: 2; }
.filters label { display: flex; flex-direction: column; } .filters label.check { flex-direction: row; gap: 4px; }
.msg { border-radius: 6px; padding: 6px 10px; margin: 6px 0; border-left: 4px solid #bbb; background: #fafafa; }
.msg .who { font-size: 12px; font-weight: 600; color: #555; margin-bottom: 2px; }
.msg.user { border-color: #3b73c4; background: #eef4fd; }
.msg.assistant { border-color: #2e8b57; background: #effaf3; }
.msg.tool { border-color: #999; background: #f4f4f4; margin-left: 32px; font-size: 12px; }
.msg.system { border-color: #aa7700; background: #fdf8ea; }
.msg.evidence { outline: 2px solid #e0a800; }
.badge { display: inline-block; background: #ffe08a; border-radius: 4px; padding: 0 6px; font-size: 12px; margin: 2px 4px 2px 0; }
.call { border: 1px dashed #8a8a8a; border-radius: 4px; padding: 4px 6px; margin: 4px 0; background: #fff; }
.call b { font-family: ui-monospace, monospace; }
pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0; font-size: 12px; }
.content { white-space: pre-wrap; word-break: break-word; }
mark { background: #ffe08a; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: 2px 12px; font-size: 14px; }
dl.meta dt { color: #555; } dl.meta dd { margin: 0; }
section.gold { border-top: 1px solid #ddd; padding-top: 4px; }
"""


def _doc(title: str, body: str, script: str = "") -> str:
    return (
        f'<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # the pages fetch nothing: no scripts, images or styles from elsewhere
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<style>{STYLE}</style></head><body>{body}"
        + (f"<script>{script}</script>" if script else "")
        + "</body></html>"
    )


def _e(value: object) -> str:
    return html.escape(
        "" if value is None or (isinstance(value, float) and value != value) else str(value)
    )


def _num(value: object) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    return f"{float(str(value)):g}"


def _verdict_cell(v: str) -> str:
    return f'<span class="{v}">{v}</span>'


# --- index ---------------------------------------------------------------------------------------

_SELECTS = [
    ("agent", "agent", "agent_name"),
    ("domain", "domain", "domain"),
    ("version", "task version", "task_version"),
    ("task", "task", "task_id"),
    ("status", "status", "status"),
    ("single", "single gold", "single"),
    ("multi", "multi-gold", "multi"),
]

INDEX_JS = """
const SELECTS = ["agent", "domain", "version", "task", "status", "single", "multi"];
const rows = [...document.querySelectorAll("#trials tbody tr")];
function setSelect(name, value) {
  const el = document.getElementById("f-" + name);
  if (value && ![...el.options].some(o => o.value === value)) {
    el.add(new Option(value + " (no trials)", value));  // a link may name a value this run lacks
  }
  el.value = value || "";
}
function readHash() {
  const q = new URLSearchParams(location.hash.slice(1));
  for (const name of SELECTS) setSelect(name, q.get(name));
  document.getElementById("f-flips").checked = q.get("flips") === "1";
  document.getElementById("f-loophole").checked = q.get("loophole") === "1";
  const reading = q.get("reading") || "";
  document.getElementById("f-reading").textContent = reading ? "golds matched: " + reading : "";
  document.getElementById("f-reading").dataset.value = reading;
  apply();
}
function apply() {
  const want = {};
  for (const name of SELECTS) want[name] = document.getElementById("f-" + name).value;
  const flips = document.getElementById("f-flips").checked;
  const loophole = document.getElementById("f-loophole").checked;
  const reading = document.getElementById("f-reading").dataset.value;
  let shown = 0;
  for (const tr of rows) {
    const ok = SELECTS.every(n => !want[n] || tr.dataset[n] === want[n])
      && (!flips || tr.dataset.flip === "1") && (!loophole || tr.dataset.loophole === "1")
      && (!reading || tr.dataset.reading === reading);
    tr.hidden = !ok;
    shown += ok ? 1 : 0;
  }
  document.getElementById("shown").textContent = String(shown);
}
function writeHash() {
  const q = new URLSearchParams();
  for (const name of SELECTS) {
    const v = document.getElementById("f-" + name).value;
    if (v) q.set(name, v);
  }
  if (document.getElementById("f-flips").checked) q.set("flips", "1");
  if (document.getElementById("f-loophole").checked) q.set("loophole", "1");
  const reading = document.getElementById("f-reading").dataset.value;
  if (reading) q.set("reading", reading);
  history.replaceState(null, "", "#" + q.toString());
  apply();
}
for (const el of document.querySelectorAll(".filters select, .filters input")) el.addEventListener("change", writeHash);
document.getElementById("f-clear").addEventListener("click", () => { history.replaceState(null, "", "#"); readHash(); });
window.addEventListener("hashchange", readHash);
readHash();
"""


def _index_page(trials: pd.DataFrame, records: list[Any], run_name: str) -> str:
    controls = []
    for key, label, column in _SELECTS:
        values = sorted(
            {str(v) for v in trials[column].dropna()}, key=task_order if key == "task" else str
        )
        options = '<option value="">all</option>' + "".join(
            f'<option value="{_e(v)}">{_e(v)}</option>' for v in values
        )
        controls.append(f'<label>{label}<select id="f-{key}">{options}</select></label>')
    controls.append(
        '<label class="check"><input type="checkbox" id="f-flips">flips only (single fails, multi passes)</label>'
    )
    controls.append(
        '<label class="check"><input type="checkbox" id="f-loophole">loophole tasks only</label>'
    )
    controls.append(
        '<span id="f-reading" data-value=""></span><button id="f-clear" type="button">clear</button>'
    )
    rows = []
    for r in records:
        matched = list(r.matched_gold_ids) if r.matched_gold_ids is not None else []
        credit = [g for g in matched if g != "gold"]
        rows.append(
            f'<tr data-agent="{_e(r.agent_name)}" data-domain="{_e(r.domain)}" data-version="{_e(r.task_version)}" '
            f'data-task="{_e(r.task_id)}" data-status="{_e(r.status)}" data-single="{r.single}" '
            f'data-multi="{r.multi}" data-flip="{int(r.flip)}" data-loophole="{int(r.loophole)}" '
            f'data-reading="{_e(reading_key(matched))}">'
            f'<td><a href="{r.page}">{_e(r.agent_name)}</a></td><td>{_e(r.domain)}</td><td>{_e(r.task_version)}</td>'
            f"<td>{_e(r.task_id)}{' ⚑' if r.loophole else ''}</td><td>{_e(r.trial)}</td><td>{_e(r.status)}</td>"
            f"<td>{_verdict_cell(r.single)}</td><td>{_verdict_cell(r.multi)}</td><td>{_e(', '.join(credit))}</td>"
            f"<td>{_e(r.n_messages)}</td></tr>"
        )
    body = (
        f'<h1>Trials: {_e(run_name)}</h1><p><span id="shown">{len(trials)}</span> of {len(trials)} trials shown. '
        "⚑ marks a loophole task. Open a trial for its conversation and verdicts.</p>"
        f'<div class="filters">{"".join(controls)}</div>'
        '<table class="t" id="trials"><thead><tr><th>agent</th><th>domain</th><th>task version</th><th>task</th>'
        "<th>trial</th><th>status</th><th>single gold</th><th>multi-gold</th><th>credited by</th><th>messages</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )
    return _doc(f"Trials: {run_name}", body, INDEX_JS)


# --- trial pages ---------------------------------------------------------------------------------


class _DiffMaker:
    """Why a gold fails, recomputed on the replay engine: the records whose final state differs from the
    gold's, and the communicate checks. One engine per domain; gold replays are cached by the engine."""

    def __init__(self) -> None:
        self._engines: dict[str, Any] = {}

    def _engine(self, domain: str) -> Any:
        from envs.replay import ReplayEngine

        if domain not in self._engines:
            self._engines[domain] = ReplayEngine(domain)
        return self._engines[domain]

    def explain(self, row: Any, messages: list[dict], golds: list[Any]) -> dict[str, dict]:
        """Per failing gold: {"records": [(record, [(field, trajectory, gold)])], "communicate": [...],
        "nl": [...], "note": str}."""
        from pydantic import ValidationError
        from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

        from envs import TauDataError, UnknownTaskError, load_task_set
        from envs.replay import TrajectoryStructureError, tool_call_pairs
        from gold_variants import variants_for

        failing = [g for g in golds if verdict(g.reward) == "fail"]
        if not failing:
            return {}
        out: dict[str, dict] = {
            g: {"records": [], "communicate": [], "nl": [], "note": ""}
            for g in (f.gold_id for f in failing)
        }
        try:
            task = load_task_set(row.domain, row.task_version).task(row.task_id)
            parsed = _tau2_messages(messages)
            criteria = task.evaluation_criteria
            variants = {
                v.gold_id: v for v in variants_for(row.domain, row.task_version, row.task_id)
            }
            need_db = any(_is_false(g.db_match) for g in failing)
            state = None
            if need_db:
                engine = self._engine(row.domain)
                replay = engine.replay_trajectory(tool_call_pairs(parsed))
                state = None if replay.mismatches else replay.state
        except (
            TauDataError,
            UnknownTaskError,
            TrajectoryStructureError,
            ValidationError,
            KeyError,
            TypeError,
        ) as exc:
            for g in out.values():
                g["note"] = f"could not recompute the differences: {type(exc).__name__}: {exc}"[
                    :300
                ]
            return out
        for g in failing:
            entry = out[g.gold_id]
            if _is_false(g.db_match):
                variant = variants.get(g.gold_id)
                actions = (
                    (criteria.actions or [])
                    if g.gold_id == "gold"
                    else (variant.actions if variant else None)
                )
                if state is None:
                    entry["note"] = (
                        "the replay diverged from the recorded tool outputs: no database comparison"
                    )
                elif actions is None:
                    entry["note"] = (
                        "this reading checks a condition on the records rather than a gold database"
                    )
                else:
                    entry["records"] = _record_diffs(
                        engine, state, engine.gold_outcome(actions).state
                    )
            if (
                g.communicate is not None
                and g.communicate == g.communicate
                and g.communicate < 1
                and criteria
            ):
                checks = CommunicateEvaluator.evaluate_communicate_info(
                    parsed, criteria.communicate_info or []
                )
                entry["communicate"] = [c.info for c in checks if not c.met]
            basis = str(g.reward_basis or "")
            if (
                "NL_ASSERTION" in basis
                and criteria
                and criteria.nl_assertions
                and not (g.nl_assertion == 1)
            ):
                state_word = (
                    "not judged (no judge)"
                    if g.nl_assertion is None or g.nl_assertion != g.nl_assertion
                    else "judged not met"
                )
                entry["nl"] = [(a, state_word) for a in criteria.nl_assertions]
        return out


def _is_false(value: object) -> bool:
    return value is not None and value == value and not bool(value)


def _tau2_messages(messages: list[dict]) -> list[Any]:
    from tau2.data_model.message import AssistantMessage, SystemMessage, ToolMessage, UserMessage

    kinds = {
        "assistant": AssistantMessage,
        "user": UserMessage,
        "tool": ToolMessage,
        "system": SystemMessage,
    }
    return [kinds[m["role"]].model_validate(m) for m in messages]


def _record_diffs(
    engine: Any, mine: dict, gold: dict
) -> list[tuple[str, list[tuple[str, str, str]]]]:
    """Records whose final JSON differs, with the top-level fields that differ (trajectory, gold)."""
    out = []
    for key in sorted(mine.keys() | gold.keys()):
        left = mine[key] if key in mine else engine.pristine(key)
        right = gold[key] if key in gold else engine.pristine(key)
        if left == right:
            continue
        a = json.loads(left) if left is not None else None
        b = json.loads(right) if right is not None else None
        fields: list[tuple[str, str, str]] = []
        _field_diffs("", a, b, fields)
        out.append((f"{key[0]}/{key[1]}", fields))
    return out


_ABSENT = "(absent)"


def _field_diffs(path: str, a: Any, b: Any, out: list[tuple[str, str, str]]) -> None:
    """The leaves where two JSON values differ, as dotted paths (dicts are walked, lists compared whole)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for name in sorted(a.keys() | b.keys()):
            _field_diffs(
                f"{path}.{name}" if path else str(name),
                a.get(name, _ABSENT),
                b.get(name, _ABSENT),
                out,
            )
    elif a != b:
        out.append(
            (
                path or "(record)",
                _short(_ABSENT if a is None else a),
                _short(_ABSENT if b is None else b),
            )
        )


def _short(value: Any, limit: int = 400) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit] + " …"


def _trial_page(
    row: Any, golds: list[Any], same_task: list[Any], diffs: _DiffMaker, run_name: str
) -> str:
    try:
        messages = json.loads(row.messages_json or "[]")
    except json.JSONDecodeError:
        messages = []
    if not isinstance(messages, list):
        messages = []
    messages = [m for m in messages if isinstance(m, dict)]
    golds = sorted(golds, key=lambda g: (g.gold_id != "gold", g.gold_id))
    explanations = {g.gold_id: explanation(g.explanation_json) for g in golds}
    evidence_at: dict[int, list[tuple[str, dict]]] = {}
    for gold_id, exp in explanations.items():
        for ev in (exp or {}).get("evidence") or []:
            if isinstance(ev, dict) and isinstance(ev.get("message_index"), int):
                evidence_at.setdefault(ev["message_index"], []).append((gold_id, ev))
    why = diffs.explain(row, messages, golds)

    task_link = "../" + index_link(
        domain=row.domain, version=row.task_version, task=str(row.task_id)
    )
    matched = list(row.matched_gold_ids) if row.matched_gold_ids is not None else []
    meta = [
        ("agent", row.agent_name),
        ("agent model", row.agent_model),
        ("user", row.user_model),
        ("domain", row.domain),
        ("task version", row.task_version),
        ("task", row.task_id),
        ("trial", row.trial),
        ("status", row.status),
        ("termination", row.termination_reason),
        ("reason", row.reason),
        ("golds matched", ", ".join(matched) or "none"),
        ("source file", row.source_file),
        ("trajectory id", row.trajectory_id),
    ]
    flags = getattr(row, "flags", None)
    if flags is not None and len(flags):
        meta.append(("flags", ", ".join(map(str, flags))))
    meta_html = "".join(
        f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in meta if v is not None and v == v
    )
    head = (
        f'<nav><a href="../index.html">all trials</a> · <a href="{_e(task_link)}">this task in every trial</a></nav>'
        f"<h1>Task {_e(row.task_id)}{' (loophole task)' if row.loophole else ''} · {_e(row.agent_name)} · "
        f"{_e(row.domain)} {_e(row.task_version)} · trial {_e(row.trial)}</h1>"
        f"<p>Single gold: {_verdict_cell(row.single)} · multi-gold: {_verdict_cell(row.multi)}"
        f"{' · <b>flip</b>: a reading credits what the single gold fails' if row.flip else ''}</p>"
        f'<dl class="meta">{meta_html}</dl>'
    )
    return _doc(
        f"Task {row.task_id} · {row.agent_name} · {run_name}",
        head
        + _golds_html(
            golds, explanations, why, _rationales(row.domain, row.task_version, str(row.task_id))
        )
        + _conversation_html(messages, evidence_at)
        + _elsewhere_html(row, same_task),
    )


def _golds_html(
    golds: list[Any],
    explanations: dict[str, dict | None],
    why: dict[str, dict],
    rationales: dict[str, str],
) -> str:
    if not golds:
        return "<h2>Verdicts</h2><p>No score rows for this trajectory.</p>"
    rows = []
    for g in golds:
        rows.append(
            f'<tr><td><a href="#gold-{_e(g.gold_id)}">{_e(g.gold_id)}</a></td><td>{_e(g.reading)}</td>'
            f"<td>{_verdict_cell(verdict(g.reward))}</td><td>{_e({True: 'matches', False: 'differs'}.get(g.db_match))}"
            f"</td><td>{_num(g.action)}</td><td>{_num(g.communicate)}</td><td>{_num(g.nl_assertion)}</td>"
            f"<td>{_e(g.status)}</td><td>{_e(g.reason)}</td></tr>"
        )
    parts = [
        "<h2>Verdicts</h2>",
        '<table class="t"><thead><tr><th>gold</th><th>reading</th><th>verdict</th><th>database</th><th>actions</th>'
        "<th>communicate</th><th>NL assertions</th><th>status</th><th>reason</th></tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>",
    ]
    for g in golds:
        detail = []
        w = why.get(g.gold_id)
        if w:
            if w["note"]:
                detail.append(f"<p>{_e(w['note'])}</p>")
            for record, fields in w["records"]:
                cells = "".join(
                    f"<tr><td>{_e(f)}</td><td><pre>{_e(a)}</pre></td><td><pre>{_e(b)}</pre></td></tr>"
                    for f, a, b in fields
                )
                detail.append(
                    f'<p>Record <code>{_e(record)}</code> differs:</p><table class="t"><thead><tr>'
                    f"<th>field</th><th>this trajectory</th><th>this gold</th></tr></thead>"
                    f"<tbody>{cells}</tbody></table>"
                )
            if w["communicate"]:
                items = "".join(f"<li>{_e(i)}</li>" for i in w["communicate"])
                detail.append(f"<p>Communicate items the agent never said:</p><ul>{items}</ul>")
            if w["nl"]:
                items = "".join(f"<li>{_e(a)} <i>({_e(s)})</i></li>" for a, s in w["nl"])
                detail.append(f"<p>NL assertions:</p><ul>{items}</ul>")
        exp = explanations.get(g.gold_id)
        if exp:
            pre = [p for p in exp.get("preconditions") or [] if isinstance(p, dict)]
            if pre:
                items = "".join(
                    f"<li>{'✓' if p.get('held') else '✗'} <b>{_e(p.get('name'))}</b>: {_e(p.get('detail'))}</li>"
                    for p in pre
                )
                detail.append(f'<p>Preconditions of this reading:</p><ul class="pre">{items}</ul>')
            evidence = [e for e in exp.get("evidence") or [] if isinstance(e, dict)]
            if evidence:
                items = "".join(
                    f'<li><a href="#m{_e(e.get("message_index"))}">message {_e(e.get("message_index"))}</a> '
                    f"({_e(e.get('role'))}{', ' + _e(e.get('tool_call')) if e.get('tool_call') else ''}): "
                    f'<q class="excerpt">{_e(e.get("excerpt"))}</q> {_e(e.get("what"))}</li>'
                    for e in evidence
                )
                detail.append(
                    f'<p>Evidence in the conversation:</p><ul class="evidence">{items}</ul>'
                )
        if g.gold_id in rationales:
            detail.insert(0, f"<p>The reading: {_e(rationales[g.gold_id])}</p>")
        if not detail:
            detail.append("<p>Nothing more to show for this gold.</p>")
        parts.append(
            f'<section class="gold" id="gold-{_e(g.gold_id)}"><h3>{_e(g.gold_id)}: '
            f"{_verdict_cell(verdict(g.reward))}</h3>{''.join(detail)}</section>"
        )
    return "".join(parts)


@functools.cache
def _rationales(domain: str, version: str, task_id: str) -> dict[str, str]:
    """Each variant's rationale (from the catalog's readings), shown above its verdict."""
    from envs import TauDataError, UnknownTaskError
    from gold_variants import variants_for

    try:
        return {v.gold_id: v.rationale for v in variants_for(domain, version, task_id)}
    except (TauDataError, UnknownTaskError, KeyError):
        return {}


def _conversation_html(messages: list[dict], evidence_at: dict[int, list[tuple[str, dict]]]) -> str:
    if not messages:
        return "<h2>Conversation</h2><p>No messages recorded.</p>"
    out = ["<h2>Conversation</h2>"]
    for i, m in enumerate(messages):
        role = str(m.get("role") or "unknown")
        cls = role if role in ("user", "assistant", "tool", "system") else "system"
        marks = evidence_at.get(i, [])
        badges = "".join(
            f'<span class="badge">evidence for {_e(g)}: {_e(ev.get("what"))}</span>'
            for g, ev in marks
        )
        who = {"assistant": "agent", "tool": "tool result"}.get(role, role)
        body = []
        content = m.get("content")
        if content not in (None, ""):
            text = (
                content
                if isinstance(content, str)
                else json.dumps(content, ensure_ascii=False, default=str)
            )
            if role == "tool":
                body.append(_tool_output(text))
            else:
                body.append(
                    f'<div class="content">{_marked(text, [ev.get("excerpt") for _, ev in marks])}</div>'
                )
        for call in m.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            args = json.dumps(call.get("arguments"), indent=1, ensure_ascii=False, default=str)
            body.append(
                f'<div class="call">tool call <b>{_e(call.get("name"))}</b> '
                f"<small>{_e(call.get('id'))}</small><pre>{_e(args)}</pre></div>"
            )
        label = f"{who} · #{i}" + (
            f" · {_e(m.get('id'))}" if role == "tool" and m.get("id") else ""
        )
        out.append(
            f'<div class="msg {cls}{" evidence" if marks else ""}" id="m{i}"><div class="who">{_e(label)}'
            f"</div>{badges}{''.join(body)}</div>"
        )
    return "".join(out)


def _tool_output(text: str) -> str:
    try:
        shown = json.dumps(json.loads(text), indent=1, ensure_ascii=False)
    except (json.JSONDecodeError, TypeError):
        shown = text
    if len(shown) <= 600:
        return f"<pre>{_e(shown)}</pre>"
    return f"<details><summary>{_e(shown[:160])} … ({len(shown)} characters)</summary><pre>{_e(shown)}</pre></details>"


def _marked(text: str, excerpts: Iterable[object]) -> str:
    """Escaped text with the first occurrence of each evidence excerpt wrapped in <mark>."""
    spans = []
    for ex in excerpts:
        if isinstance(ex, str) and ex and ex in text:
            start = text.index(ex)
            spans.append((start, start + len(ex)))
    spans.sort()
    out, pos = [], 0
    for start, end in spans:
        if start < pos:
            continue
        out += [html.escape(text[pos:start]), f"<mark>{html.escape(text[start:end])}</mark>"]
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _elsewhere_html(row: Any, same_task: list[Any]) -> str:
    others = [o for o in same_task if o.trajectory_id != row.trajectory_id]
    if not others:
        return "<h2>The same task elsewhere</h2><p>No other trial of this task in the run.</p>"
    items = []
    for o in others:
        items.append(
            f'<tr><td><a href="../{o.page}">{_e(o.agent_name)}</a></td><td>{_e(o.task_version)}</td>'
            f"<td>{_e(o.trial)}</td><td>{_verdict_cell(o.single)}</td><td>{_verdict_cell(o.multi)}</td></tr>"
        )
    return (
        f"<h2>The same task elsewhere</h2><p>Task {_e(row.task_id)} ({_e(row.domain)}) in {len(others)} other "
        'trials, every agent and task version:</p><table class="t"><thead><tr><th>agent</th><th>task version</th>'
        f"<th>trial</th><th>single gold</th><th>multi-gold</th></tr></thead><tbody>{''.join(items)}</tbody></table>"
    )


def serve(site: Path, port: int) -> None:
    """Serve the site on 127.0.0.1 until interrupted."""
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    with ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(
            f"serving {site} on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)",
            flush=True,
        )
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
