"""Stage 1 of the paper's audit (proactive clause analysis): clauses, a structural profile, and optional
LLM diagnostic tests (scope, boundary, composition, assumption) with validated structured answers."""

from __future__ import annotations

import ast
import inspect
import json
import re
from dataclasses import dataclass, field
from typing import Literal

import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from gold_variants import load_catalog

TESTS = ("scope", "boundary", "composition", "assumption")


@dataclass(frozen=True)
class Clause:
    clause_id: str
    section: str
    text: str


def split_clauses(policy: str) -> list[Clause]:
    """Numbered clauses: each bullet, and each sentence of a paragraph, under its section heading."""
    clauses: list[Clause] = []
    section = "preamble"
    for raw in policy.splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            section = line.lstrip("#").strip()
            continue
        line = re.sub(r"^[-*]\s+", "", line)
        for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z])", line):
            if len(sentence) > 3:
                clauses.append(Clause(f"C{len(clauses) + 1:03d}", section, sentence))
    return clauses


# --- the structural profile (the paper's Table 2), counted mechanically --------------------------

_IF = re.compile(r"\bif\b", re.IGNORECASE)
_ELIGIBILITY = re.compile(r"\b(only|eligib\w*|compensat\w*|can be cancelled|any of the following)\b", re.IGNORECASE)
_DISJUNCTION = re.compile(r"\bor\b|any of the following|/", re.IGNORECASE)
_DISCLAIMER = re.compile(r"the api does not check", re.IGNORECASE)


def _tool_module(domain: str):
    if domain == "airline":
        from tau2.domains.airline import tools
    else:
        from tau2.domains.retail import tools
    return tools


def _raise_checks(tree: ast.AST) -> int:
    """``raise`` statements guarded by an ``if`` inside the toolkit: its input validation checks."""
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            count += sum(isinstance(n, ast.Raise) for n in node.body)
    return count


def _terminal_statuses(tree: ast.AST) -> set[str]:
    """Status values that a toolkit check refuses to write past (``if x.status == 'cancelled': raise``)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and any(isinstance(n, ast.Raise) for n in node.body):
            for cmp in ast.walk(node.test):
                if isinstance(cmp, ast.Compare) and any(
                    isinstance(side, ast.Attribute) and side.attr == "status" for side in [cmp.left, *cmp.comparators]
                ):
                    for side in [cmp.left, *cmp.comparators]:
                        for const in ast.walk(side):
                            if isinstance(const, ast.Constant) and isinstance(const.value, str):
                                found.add(const.value)
            for call in ast.walk(node.test):  # isinstance(x, FlightDateStatusAvailable): a status as a type
                if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "isinstance":
                    for arg in call.args[1:]:
                        name = getattr(arg, "id", "")
                        if "Status" in name:
                            found.add(name)
    return found


def structural_profile(domain: str, policy: str) -> pd.DataFrame:
    clauses = split_clauses(policy)
    tree = ast.parse(inspect.getsource(_tool_module(domain)))
    statuses = _terminal_statuses(tree)
    rows = [
        ("conditional clauses", sum(bool(_IF.search(c.text)) for c in clauses),
         "policy clauses (bullets and sentences) that contain the word 'if'"),
        ("disjunctive eligibility rules",
         sum(bool(_IF.search(c.text) and _ELIGIBILITY.search(c.text) and _DISJUNCTION.search(c.text)) for c in clauses),
         "clauses with 'if', an eligibility word (only, eligible, compensate, can be cancelled, any of the following) "
         "and a disjunction ('or', '/', 'any of the following')"),
        ("'the API does not check' disclaimers", len(_DISCLAIMER.findall(policy)),
         "occurrences of 'The API does not check' in the policy"),
        ("tool-level validation checks", _raise_checks(tree),
         f"'raise' statements guarded by an 'if' in tau2's {domain} toolkit source"),
        ("terminal statuses blocking writes", len(statuses),
         "distinct status values (or status classes in isinstance) tested in an 'if' that raises in the toolkit: " + ", ".join(sorted(statuses))),
    ]
    return pd.DataFrame(rows, columns=["measure", "count", "how counted"]).assign(domain=domain)


PAPER_PROFILE = {  # the paper's Table 2, for comparison
    "airline": [24, 2, 2, 18, 1],
    "retail": [13, 0, 0, 32, 4],
}


# --- LLM diagnostic tests -----------------------------------------------------------------------


class Diagnosis(BaseModel):
    model_config = ConfigDict(extra="ignore")
    test: Literal["scope", "boundary", "composition", "assumption"]
    verdict: Literal["clear", "ambiguous", "silent"]
    rationale: str
    candidate_readings: list[str] = Field(default_factory=list)


class ClauseDiagnoses(BaseModel):
    model_config = ConfigDict(extra="ignore")
    diagnoses: list[Diagnosis]


_PROMPT = """You audit a customer-service policy for loopholes: places where a competent agent could defend more
than one course of action. For the clause below, run four tests and answer with JSON only:
{{"diagnoses": [{{"test": "scope|boundary|composition|assumption", "verdict": "clear|ambiguous|silent",
"rationale": "...", "candidate_readings": ["...", "..."]}}]}}
- scope: does the clause cover the scenarios it seems to, or is it silent on some?
- boundary: does it address edge cases (zero cost, a user who declines)?
- composition: when other clauses also apply, do they compose unambiguously?
- assumption: does it rely on an unstated assumption or an undefined concept?

Section: {section}
Clause: {text}
"""


@dataclass
class LLMAudit:
    candidates: pd.DataFrame
    failures: list[str] = field(default_factory=list)


def _catalog_match(domain: str, text: str) -> str | None:
    for entry in load_catalog().entries:
        if entry.domain == domain and any(q in text or text in q for q in entry.clause):
            return entry.id
    return None


def llm_audit(domain: str, clauses: list[Clause], model: str, llm_args: dict, attempts: int = 3) -> LLMAudit:
    """Ask the model about each clause; a malformed answer is retried, then reported (never fatal)."""
    import litellm

    rows, failures = [], []
    for clause in clauses:
        parsed = None
        last = ""
        for _ in range(attempts):
            try:
                response = litellm.completion(
                    model=model, messages=[{"role": "user", "content": _PROMPT.format(section=clause.section, text=clause.text)}],
                    **llm_args,
                )
                last = response.choices[0].message.content or ""
                parsed = ClauseDiagnoses.model_validate(json.loads(last))
                break
            except (json.JSONDecodeError, ValidationError) as exc:
                last = f"{type(exc).__name__}: {str(exc)[:120]}"
            except Exception as exc:  # noqa: BLE001 - provider errors: retried, then reported
                last = f"{type(exc).__name__}: {str(exc)[:120]}"
        if parsed is None:
            failures.append(f"{clause.clause_id}: no valid answer after {attempts} attempts ({last})")
            continue
        for d in parsed.diagnoses:
            if d.verdict != "clear":
                rows.append({"domain": domain, "clause_id": clause.clause_id, "section": clause.section,
                             "clause": clause.text, "test": d.test, "verdict": d.verdict, "rationale": d.rationale,
                             "candidate_readings": " | ".join(d.candidate_readings),
                             "catalog_entry": _catalog_match(domain, clause.text)})
    columns = ["domain", "clause_id", "section", "clause", "test", "verdict", "rationale", "candidate_readings",
               "catalog_entry"]
    return LLMAudit(pd.DataFrame(rows, columns=columns), failures)
