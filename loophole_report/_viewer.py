"""``harness view``: a static site to read every trajectory behind a verdict, openable from disk.

``index.html`` lists the trials (filterable; the filters live in the URL hash, so the report can link
to a filtered list) and every uncertain credit, for a reader to judge; ``t/<sha>.html`` is one page per trajectory: the conversation, each gold's
verdict, why a gold fails (``loophole_scoring.WhyGoldFails``), a variant's preconditions and evidence
(``scores.explanation_json``) marked in the conversation, and links to the same task elsewhere. This
module prepares plain data; ``templates/index.html`` and ``templates/trial.html`` render it, escaped;
the pages fetch nothing.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from loophole_base import atomic_folder, check_replaceable, natural_key
from loophole_report._links import index_link
from loophole_report._templates import render
from loophole_report._trials import (
    doubt,
    explanation,
    read_scores,
    reading_key,
    trial_frame,
    trial_record,
    verdict,
)

if TYPE_CHECKING:  # the facade loads it lazily, on the first build
    from conversation_reading import Explanation
    from loophole_scoring import WhyGoldFails


VIEWER_MADE_BY = "harness view"


@dataclass
class SiteStats:
    trials: int
    pages: int
    bytes: int
    seconds: float
    largest_page_bytes: int


def check_site_out(run_dir: Path, out: Path, label: str = "--out") -> None:
    """Before any work: ``out`` may be new, empty, or a site this verb built before, never the run
    or a folder holding anything else (raises ``HarnessInputError``)."""
    check_replaceable(Path(out), VIEWER_MADE_BY, label, inputs=[Path(run_dir)])


def build_site(run_dir: Path, out: Path, label: str = "--out") -> SiteStats:
    """Write the site to ``out`` (built in a temporary folder beside it, then swapped in whole); an
    existing ``out`` is replaced only if it is a site the viewer built (``loophole_base._atomic.check_replaceable``)."""
    import loophole_store as store
    from loophole_scoring import WhyGoldFails

    started = time.perf_counter()
    run_dir, out = Path(run_dir), Path(out)
    trials = trial_frame(store.read_table(run_dir, "trials"))
    scores = read_scores(run_dir)
    # plain records: row access on DataFrames costs more than the pages themselves
    by_traj: dict[str, list[SimpleNamespace]] = {}
    for g in scores.to_dict("records"):
        by_traj.setdefault(g["trajectory_id"], []).append(SimpleNamespace(**g))
    records = [SimpleNamespace(**r) for r in trials.to_dict("records")]
    by_task: dict[tuple, list[SimpleNamespace]] = {}
    for r in records:
        by_task.setdefault((r.domain, r.task_id), []).append(r)
    why = WhyGoldFails()
    contract = _contract_notes(trials)
    largest = 0
    with atomic_folder(out, made_by=VIEWER_MADE_BY, label=label, inputs=[run_dir]) as tmp:
        (tmp / "t").mkdir()
        for row in records:
            golds = by_traj.get(row.trajectory_id, [])
            context = _trial_page(row, golds, by_task[(row.domain, row.task_id)], why)
            context["meta"] += contract.get(row.trajectory_id, [])
            text = render("trial.html", run_name=run_dir.name, **context)
            (tmp / row.page).write_text(text, encoding="utf-8")
            largest = max(largest, len(text.encode()))
        index = render("index.html", run_name=run_dir.name, **_index_page(trials, records, by_traj))
        (tmp / "index.html").write_text(index, encoding="utf-8")
    size = sum(p.stat().st_size for p in out.rglob("*.html"))
    return SiteStats(len(trials), len(trials) + 1, size, time.perf_counter() - started, largest)


def _contract_notes(trials: Any) -> dict[str, list[tuple[str, str]]]:
    """Per trajectory, the reward contract's marks for its trial page: the strict reward, a broken gold
    (a gold write raises on replay), a task that doing nothing passes under the single gold."""
    from analysis import contract_marks

    if trials.empty:
        return {}
    marks = contract_marks(trials)
    strict = trials["strict_reward"] if "strict_reward" in trials else None
    reason = trials["strict_reason"] if "strict_reason" in trials else None
    notes: dict[str, list[tuple[str, str]]] = {}
    for i, m in zip(trials.index, marks.itertuples(index=False), strict=True):
        out: list[tuple[str, str]] = []
        value = strict[i] if strict is not None else None
        out.append(("strict reward", "unknown (run written before strict_reward)" if strict is None else _num(value)))
        if m.broken_gold:
            why = reason[i] if reason is not None and isinstance(reason[i], str) else "a gold write raises on replay"
            why = why.removeprefix("broken gold: ")
            out.append(("reward contract", f"BROKEN GOLD: {why}; tau2 compares against a state without that write"))
        if m.do_nothing_passes:
            out.append(("reward contract", "DO-NOTHING PASSABLE: a greeting and a goodbye pass this task under the single gold"))
        notes[m.trajectory_id] = out
    return notes


def _num(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    return f"{float(value):g}"


# --- index ---------------------------------------------------------------------------------------

_SELECTS = [
    ("agent", "agent", "agent_name"),
    ("domain", "domain", "domain"),
    ("version", "task version", "task_version"),
    ("task", "task", "task_id"),
    ("status", "status", "status"),
    ("strict", "strict", "strict"),
    ("single", "single gold", "single"),
    ("multi", "multi-gold", "multi"),
    ("upper", "counting uncertain", "upper"),
]


def _index_page(trials: Any, records: list[Any], by_traj: dict[str, list[Any]]) -> dict[str, Any]:
    selects = [{"key": key, "label": label, "values": sorted({str(v) for v in trials[column].dropna()}, key=natural_key)}
               for key, label, column in _SELECTS]
    rows, uncertain = [], []
    for r in records:
        matched = list(r.matched_gold_ids) if r.matched_gold_ids is not None else []
        doubtful = sorted(
            (g for g in by_traj.get(r.trajectory_id, []) if g.verdict == "uncertain"),
            key=lambda g: g.gold_id,
        )
        uncertain += [_uncertain(r, g) for g in doubtful]
        rows.append(
            {
                "agent": r.agent_name,
                "domain": r.domain,
                "version": r.task_version,
                "task": r.task_id,
                "status": r.status,
                "strict": r.strict,
                "single": r.single,
                "multi": r.multi,
                "upper": r.upper,
                "flip": int(r.flip),
                "loophole": int(r.loophole),
                "reading": reading_key(matched),
                "page": r.page,
                "trial": r.trial,
                "credited": ", ".join(
                    [g for g in matched if g != "gold"] + [f"{g.gold_id} (uncertain)" for g in doubtful]
                ),
                "messages": r.n_messages,
                "trajectory_id": r.trajectory_id,
            }
        )
    return {"selects": selects, "rows": rows, "uncertain": uncertain}


def _uncertain(r: Any, g: Any) -> dict[str, Any]:
    """One uncertain credit as the index lists it: which trial, which reading, and why it is in doubt."""
    exp = explanation(g.explanation_json)
    weak = [e for e in (exp.evidence if exp is not None else []) if not e.certain]
    return {
        "page": f"{r.page}#gold-{g.gold_id}",
        "agent": r.agent_name,
        "domain": r.domain,
        "version": r.task_version,
        "task": r.task_id,
        "trial": r.trial,
        "simulation": r.simulation_id,
        "gold_id": g.gold_id,
        "doubt": doubt(exp, g.reason),
        "weak": len(weak),
    }


# --- trial pages ---------------------------------------------------------------------------------


def _trial_page(
    row: Any, golds: list[Any], same_task: list[Any], why: WhyGoldFails
) -> dict[str, Any]:
    """The context of ``trial.html`` for one trajectory."""
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
        for ev in exp.evidence if exp is not None else []:
            evidence_at.setdefault(ev.message_index, []).append((gold_id, dataclasses.asdict(ev)))
    failures = why.explain(row, messages, golds)
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
        ("the file's task id", getattr(row, "file_task_id", None)),  # the file named another task (#36)
    ]
    flags = getattr(row, "flags", None)
    if flags is not None and len(flags):
        meta.append(("flags", ", ".join(map(str, flags))))
    rationales = _rationales(row.domain, row.task_version, str(row.task_id))
    record, record_problem = trial_record(row, messages)
    return {
        "record": record,
        "record_problem": record_problem,
        "task_link": "../"
        + index_link(domain=row.domain, version=row.task_version, task=str(row.task_id)),
        "task_id": row.task_id,
        "loophole": bool(row.loophole),
        "agent": row.agent_name,
        "domain": row.domain,
        "version": row.task_version,
        "trial": row.trial,
        "single": row.single,
        "multi": row.multi,
        "upper": row.upper,
        "flip": bool(row.flip),
        "meta": [(k, v) for k, v in meta if v is not None and v == v],
        "golds": [_gold(g, explanations.get(g.gold_id), failures, rationales) for g in golds],
        "messages": [_message(i, m, evidence_at.get(i, [])) for i, m in enumerate(messages)],
        "others": [
            {
                "page": o.page,
                "agent": o.agent_name,
                "version": o.task_version,
                "trial": o.trial,
                "single": o.single,
                "multi": o.multi,
                "upper": o.upper,
            }
            for o in same_task
            if o.trajectory_id != row.trajectory_id
        ],
    }


def _gold(g: Any, exp: Explanation | None, failures: dict, rationales: dict[str, str]) -> dict[str, Any]:
    w = failures.get(g.gold_id)
    pre = [dataclasses.asdict(p) for p in exp.preconditions] if exp is not None else []
    evidence = [dataclasses.asdict(e) for e in exp.evidence] if exp is not None else []
    claims = [dataclasses.asdict(c) for c in exp.false_claims] if exp is not None else []
    rationale = rationales.get(g.gold_id)
    shown_why = w is not None and bool(w.note or w.records or w.communicate or w.nl)
    uncertain = g.verdict == "uncertain"
    return {
        "gold_id": g.gold_id,
        "reading": g.reading,
        "verdict": "uncertain" if uncertain else verdict(g.reward),
        "doubt": doubt(exp, g.reason) if uncertain else None,
        "database": {True: "matches", False: "differs"}.get(g.db_match),
        "action": _num(g.action),
        "communicate": _num(g.communicate),
        "nl_assertion": _num(g.nl_assertion),
        "status": g.status,
        "reason": g.reason,
        "rationale": rationale,
        "why": w,
        "preconditions": [
            {"held": bool(p.get("held")), "name": p.get("name"), "detail": p.get("detail")}
            for p in pre
        ],
        "evidence": [
            {k: e.get(k) for k in ("message_index", "role", "tool_call", "excerpt", "what")}
            | {"weak": e.get("certain") is False}
            for e in evidence
        ],
        "false_claims": [  # claims of fact the database contradicts (conversation_reading._claims), beside the evidence
            {k: c.get(k) for k in ("message_index", "excerpt", "what", "truth", "acted_on")}
            for c in claims
        ],
        "has_detail": bool(rationale is not None or shown_why or pre or evidence or uncertain or claims),
    }


@functools.cache
def _rationales(domain: str, version: str, task_id: str) -> dict[str, str]:
    """Each variant's rationale (from the catalog's readings), shown above its verdict."""
    from envs import TauDataError, UnknownTaskError
    from gold_variants import variants_for

    try:
        return {v.gold_id: v.rationale for v in variants_for(domain, version, task_id)}
    except (TauDataError, UnknownTaskError, KeyError):
        return {}


def _message(i: int, m: dict, marks: list[tuple[str, dict]]) -> dict[str, Any]:
    role = str(m.get("role") or "unknown")
    who = {"assistant": "agent", "tool": "tool result"}.get(role, role)
    content = m.get("content")
    tool_output = spans = None
    if content not in (None, ""):
        text = (
            content
            if isinstance(content, str)
            else json.dumps(content, ensure_ascii=False, default=str)
        )
        if role == "tool":
            tool_output = _pretty(text)
        else:
            spans = marked_spans(text, [ev.get("excerpt") for _, ev in marks], [_place(ev) for _, ev in marks])
    calls = [
        {
            "name": call.get("name"),
            "id": call.get("id"),
            "args": json.dumps(call.get("arguments"), indent=1, ensure_ascii=False, default=str),
        }
        for call in m.get("tool_calls") or []
        if isinstance(call, dict)
    ]
    return {
        "index": i,
        "cls": role if role in ("user", "assistant", "tool", "system") else "system",
        "label": f"{who} · #{i}" + (f" · {m.get('id')}" if role == "tool" and m.get("id") else ""),
        "badges": [(g, ev.get("what"), ev.get("certain") is False) for g, ev in marks],
        "tool_output": tool_output,
        "spans": spans,
        "calls": calls,
    }


def _pretty(text: str) -> str:
    """A tool output, indented when it is JSON."""
    try:
        return json.dumps(json.loads(text), indent=1, ensure_ascii=False)
    except (json.JSONDecodeError, TypeError):
        return text


def _place(ev: dict) -> tuple[int, int] | None:
    """Where an evidence item lies in its message's original text (start, end), where the scorer said."""
    start, end = ev.get("start"), ev.get("end")
    return (start, end) if isinstance(start, int) and isinstance(end, int) else None


def marked_spans(
    text: str, excerpts: Iterable[object], places: Iterable[tuple[int, int] | None] = ()
) -> list[tuple[str, bool]]:
    """``text`` cut into (piece, marked) spans: each evidence item's place in the original text (the scorer
    matched normalised text and kept where it came from), else the first occurrence of its excerpt, is
    marked (``macros.html`` ``marked`` wraps those in ``<mark>``)."""
    found = []
    for ex, place in itertools.zip_longest(excerpts, places):
        if place is not None and 0 <= place[0] < place[1] <= len(text):
            found.append(place)
        elif isinstance(ex, str) and ex and ex in text:
            start = text.index(ex)
            found.append((start, start + len(ex)))
    found.sort()
    out, pos = [], 0
    for start, end in found:
        if start < pos:
            continue
        out += [(text[pos:start], False), (text[start:end], True)]
        pos = end
    out.append((text[pos:], False))
    return [(piece, is_marked) for piece, is_marked in out if piece]
