"""Stage 2 of the paper's audit (reactive trace verification) over a run's failing trials.

For every scored trial with single-gold reward 0 it records: the reading it took (a variant that credits
it), the catalog clause the task's gold touches, the paper's three criteria as far as they can be read off
mechanically, and the exclusion reasons that apply. The attribution follows Appendix A.3/A.5:

- ``loophole:<id>`` when a variant of that clause credits the trial (criterion c), the clause is a catalog
  loophole (b), the agent's messages engage the clause (a), and no exclusion applies;
- ``excluded: ...`` for a simulator deviation (``###OUT-OF-SCOPE###``, or the user ending the call right after
  the agent asked a question) or a recorded procedural error;
- ``agent error`` otherwise.

Criterion (a) is a heuristic: the agent's messages or tool calls use at least two of the clause's content
words (e.g. "basic", "economy", "modified"), or the tool the clause governs.
"""

from __future__ import annotations

import json
import re

import pandas as pd

from gold_variants import load_catalog, variants_for
from policy_model import BOOK_TOOL, CANCEL_TOOL, COMPENSATION_TOOL, FLIGHT_CHANGE_TOOL

_STOP = {"the", "and", "can", "be", "of", "to", "a", "is", "if", "or", "in", "for", "with", "are", "without",
         "being", "their", "any", "after", "that", "this", "will", "not", "all", "other", "user", "agent"}
# the tools each clause governs, by what they do in the policy's terms (the policy model's)
_CLAUSE_TOOLS = {"L3/L4": {COMPENSATION_TOOL}, "L5": {COMPENSATION_TOOL}, "L6": {FLIGHT_CHANGE_TOOL},
                 "L16": {CANCEL_TOOL, BOOK_TOOL}}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]{4,}", text.lower()) if w not in _STOP}


def _clause_words(loophole_id: str) -> set[str]:
    catalog = load_catalog()
    words: set[str] = set()
    for part in loophole_id.split("/"):
        for quote in catalog.get(part).clause:
            words |= _words(quote)
    return words


def _engages(messages: list[dict], loophole_id: str) -> bool:
    said = _words(" ".join(str(m.get("content") or "") for m in messages if m.get("role") == "assistant"))
    called = {tc.get("name") for m in messages for tc in (m.get("tool_calls") or [])}
    return len(said & _clause_words(loophole_id)) >= 2 or bool(called & _CLAUSE_TOOLS.get(loophole_id, set()))


def _exclusion(row: pd.Series, messages: list[dict]) -> str | None:
    if row.get("procedural_error") is True:
        return "procedural error unrelated to the clause"
    users = [str(m.get("content") or "") for m in messages if m.get("role") == "user"]
    if any("###OUT-OF-SCOPE###" in u for u in users):
        return "simulator deviation (###OUT-OF-SCOPE###)"
    # an early user stop: the user ended the call right after the agent asked it something
    for i, m in enumerate(messages):
        if m.get("role") == "user" and "###STOP###" in str(m.get("content") or ""):
            before = [p for p in messages[:i] if p.get("role") == "assistant" and p.get("content")]
            if before and str(before[-1]["content"]).rstrip().endswith("?"):
                return "simulator deviation (the user stopped while the agent was asking)"
    return None


def audit_traces(trials: pd.DataFrame) -> pd.DataFrame:
    rows = []
    failing = trials[(trials.reward == 0.0)]
    for _, row in failing.iterrows():
        every = variants_for(row.domain, row.task_version, row.task_id)
        variants = [v for v in every if load_catalog().report(v.loophole_id) is None]  # loophole readings
        clauses = sorted({v.loophole_id for v in variants})
        matched = [g for g in (list(row.matched_gold_ids) if row.matched_gold_ids is not None else []) if g != "gold"]
        reported = [v.loophole_id for v in every if v not in variants and v.gold_id in matched]
        took = [v for v in variants if v.gold_id in matched]
        messages = json.loads(row.messages_json or "[]")
        excluded = _exclusion(row, messages)
        clause = took[0].loophole_id if took else (clauses[0] if clauses else None)
        relied = clause is not None and _engages(messages, clause)
        ambiguous = clause is not None and all(load_catalog().get(p).kind == "loophole" for p in clause.split("/"))
        credited = bool(took)
        if reported and not credited:  # credited by a task report's alternative: the gold itself is contested
            attribution = f"task report:{reported[0]}"
        elif excluded and not credited:
            attribution = f"excluded: {excluded}"
        elif credited and ambiguous and relied:
            attribution = f"loophole:{clause}"
        elif credited and ambiguous:
            attribution = f"loophole:{clause} (reliance not shown in messages)"
        else:
            attribution = "agent error"
        rows.append({
            "trajectory_id": row.trajectory_id, "agent": row.agent_name, "domain": row.domain,
            "task_version": row.task_version, "task_id": row.task_id, "trial": row.trial,
            "reading_taken": ",".join(v.gold_id for v in took) or None,
            "clause": clause, "relied_on_clause": relied, "clause_ambiguous": ambiguous,
            "variant_credits": credited, "exclusion": excluded, "attribution": attribution,
        })
    return pd.DataFrame(rows, columns=["trajectory_id", "agent", "domain", "task_version", "task_id", "trial",
                                       "reading_taken", "clause", "relied_on_clause", "clause_ambiguous",
                                       "variant_credits", "exclusion", "attribution"])
