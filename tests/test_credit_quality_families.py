"""#46 item 5's acceptance on the families the dev corpus holds beside grok (../shared/dev-corpus/other-families):
``benchmarks/credit_quality.py``'s own figures, computed as it prints them. No credit disagrees with a judged
label, strict agrees with every judged strict label, and the uncertain share of the credits stays at most 10%
(the issue's goal: the reader's coverage, not leniency, brings it down)."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import ROOT, SHARED

OTHER = SHARED / "dev-corpus" / "other-families"


@pytest.fixture(scope="module")
def quality():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import credit_quality
    import quality_figures

    labels = credit_quality.read_labels(OTHER / "labels.csv")
    strict_labels = credit_quality.read_strict_labels(OTHER / "strict-labels.csv")
    import pandas as pd

    rows, unlabeled, strict, _ = credit_quality.verdicts(OTHER, pd.concat([labels, strict_labels], ignore_index=True))
    return rows, unlabeled, strict, quality_figures.figures


def test_other_families_meet_the_credit_quality_acceptance(quality):
    rows, unlabeled, strict, figures = quality
    judged = rows[rows["expected"] != "unclear"]
    wrong = judged[(judged["expected"] == "credit") != (judged["verdict"] == "credited")]
    assert wrong.empty, wrong[["simulation_id", "variant", "expected", "verdict"]].to_string()
    overall = figures(rows, unlabeled, strict, None)["overall"]
    assert overall.strict_judged >= 12 and overall.strict_agree == overall.strict_judged
    assert overall.credits >= 10 and overall.uncertain / overall.credits <= 0.10, overall
    per_family = figures(rows, unlabeled, strict, "family")
    assert len(per_family) >= 8  # a line per family the labels name
