"""The explanation every variant verdict carries (#46 item 6): the preconditions held or failed, the evidence
with its messages, the evidence problem, the doubts and the false claims. One versioned model crosses every
boundary: ``gold_variants.explain`` builds it, scoring stores it (``scores.explanation_json``, ``to_json``), and
the invariant check, ``harness explain``, the viewer and ``credit_quality`` read it back with
``read_explanation``, under the same field names; none parses the JSON by hand.

``EXPLANATION_SCHEMA_VERSION`` names the shape. Version 1 (no ``schema_version`` key) stored the evidence
problem as ``problem`` and every doubt, the undecided preconditions' included, joined into one string; version 2
stores the model as it is (``doubts``: the evidence's own doubts, a list; an undecided precondition says so in
its ``decided``), with the evidence kind required. A stored explanation of another version is refused in one
line naming it.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conversation_reading._claims import FalseClaim
from conversation_reading._evidence import EvidenceItem, PreconditionResult

EXPLANATION_SCHEMA_VERSION: Literal[2] = 2


class Explanation(BaseModel):
    """What held for one variant's verdict, and where (a refusal's evidence, claims, conduct)."""

    model_config = ConfigDict(extra="forbid")
    schema_version: Literal[2] = EXPLANATION_SCHEMA_VERSION
    gold_id: str
    preconditions: list[PreconditionResult] = Field(default_factory=list)
    evidence: list[EvidenceItem] = Field(default_factory=list)
    evidence_required: str | None = None  # the evidence kind, where the reading needs one
    problem: str | None = None  # why the evidence does not hold
    doubts: list[str] = Field(default_factory=list)  # why the evidence is weaker than the rule asks
    false_claims: list[FalseClaim] = Field(default_factory=list)  # what the database contradicts

    @property
    def holds(self) -> bool:
        return all(p.held for p in self.preconditions) and not self.problem

    @property
    def uncertain(self) -> bool:
        """Held, but on weaker evidence than the rule asks, or on a precondition the messages cannot decide."""
        return self.holds and bool(self.doubt())

    def doubt(self) -> str | None:
        """Every doubt in one line: the evidence's, then each undecided precondition."""
        found = [*self.doubts]
        found += [f"precondition {p.name} undecided: {p.detail}" for p in self.preconditions if not p.decided]
        return "; ".join(found) or None

    def failure(self) -> str | None:
        failed = [f"precondition {p.name} failed: {p.detail}" for p in self.preconditions if not p.held]
        if self.problem:
            failed.insert(0, self.problem)
        return "; ".join(failed) or None

    def to_json(self) -> str:
        return self.model_dump_json()


class ExplanationVersionError(ValueError):
    """A stored explanation of a schema version this code does not read."""


def read_explanation(text: str) -> Explanation:
    """A stored explanation (``scores.explanation_json``). Raises ``ExplanationVersionError`` naming the version
    where it is another than ``EXPLANATION_SCHEMA_VERSION`` (1 where the key is absent: the shape before it),
    ``ValueError`` where it is no explanation."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    version = data.get("schema_version", 1)
    if version != EXPLANATION_SCHEMA_VERSION:
        raise ExplanationVersionError(
            f"explanation schema version {version!r}; this harness reads version {EXPLANATION_SCHEMA_VERSION}"
        )
    return Explanation.model_validate(data)  # a pydantic ValidationError is a ValueError


__all__ = ["EXPLANATION_SCHEMA_VERSION", "Explanation", "ExplanationVersionError", "read_explanation"]
