"""The figures of a group of labeled verdicts (a model family, a set) for ``credit_quality.py``: precision and
recall of the credits, the uncertain share, strict's agreement; and the family of an agent model."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

EDITED = "(edited cases)"  # the family line of the extra labels' cases, built from runs of several families
# The agent model's family (first match wins): a rule that holds on one family and not on another is fitted to
# phrasing. A model none names is its own family.
FAMILIES = (
    (r"grok", "grok"),
    (r"^ft:gpt-4\.1", "GPT-4.1 fine-tune"),
    (r"gpt-4o", "GPT-4o"),
    (r"gpt-4\.1", "GPT-4.1"),
    (r"gpt-5\.4", "GPT-5.4"),
    (r"gpt-oss", "gpt-oss"),
    (r"claude-opus", "Claude Opus"),
    (r"claude-sonnet", "Claude Sonnet"),
    (r"(?:^|/)o3\b", "o3"),
    (r"qwen", "Qwen"),
    (r"deepseek", "DeepSeek"),
)


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, expected: str, credited: bool) -> None:
        if credited and expected == "credit":
            self.tp += 1
        elif credited:
            self.fp += 1
        elif expected == "credit":
            self.fn += 1

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def family_of(agent_model: object) -> str:
    """The agent's model family: the first name of ``FAMILIES`` whose pattern the model matches, else the model
    without its provider and date."""
    model = str(agent_model or "?")
    for pattern, name in FAMILIES:
        if re.search(pattern, model, re.IGNORECASE):
            return name
    return re.sub(r"-\d{4}-\d{2}-\d{2}$", "", model.rsplit("/", 1)[-1])


@dataclass
class Figures:
    """One group's figures (a family, a set): credits' confusion counts, the credits (certain or not, labeled or
    not) and how many are uncertain, strict's agreement."""

    certain: Counts = field(default_factory=Counts)
    upper: Counts = field(default_factory=Counts)
    judged: int = 0
    credits: int = 0
    uncertain: int = 0
    strict_agree: int = 0
    strict_judged: int = 0

    def line(self, name: str) -> str:
        c = self.certain
        share = f"{self.uncertain}/{self.credits}" + (f" {self.uncertain / self.credits:.0%}" if self.credits else "")
        return (f"{name:<22}{self.judged:>4}{c.tp:>4}{c.fp:>4}{c.fn:>4}{c.precision:>11.3f}{c.recall:>8.3f}"
                f"{share:>16}{f'{self.strict_agree}/{self.strict_judged}':>9}")


HEADER = (f"{'family':<22}{'n':>4}{'tp':>4}{'fp':>4}{'fn':>4}{'precision':>11}{'recall':>8}{'uncertain':>16}"
          f"{'strict':>9}")


def figures(rows: pd.DataFrame, unlabeled: pd.DataFrame, strict: pd.DataFrame, by: str | None) -> dict[str, Figures]:
    """Figures per value of column ``by`` (None: one group, "overall"). Uncertain verdicts count as no credit
    (``upper``: as credits); the uncertain share is over every credit, labeled or not (the edited cases are
    built to test a class, some to be uncertain: they are their own family, ``EDITED``, and left out of the
    overall share)."""
    out: dict[str, Figures] = {}

    def of(r: Any) -> Figures:
        return out.setdefault("overall" if by is None else str(getattr(r, by)), Figures())

    def own(r: Any) -> bool:
        return by is not None or r.family != EDITED

    for r in pd.concat([rows, unlabeled]).itertuples():
        f = of(r)
        f.credits += own(r) and r.verdict in ("credited", "uncertain")
        f.uncertain += own(r) and r.verdict == "uncertain"
    for r in rows[rows["expected"] != "unclear"].itertuples():
        f = of(r)
        f.judged += 1
        f.certain.add(r.expected, r.verdict == "credited")
        f.upper.add(r.expected, r.verdict in ("credited", "uncertain"))
    for r in strict[strict["expected"] != "unclear"].itertuples():
        f = of(r)
        f.strict_judged += 1
        f.strict_agree += (r.expected == "credit") == (r.verdict == "credited")
    return dict(sorted(out.items()))
