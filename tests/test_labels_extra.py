"""The project's extra labels (#36 item 5) are data: every class has a positive and a negative case, each row
names a known edit, and the edited copies are built from the shared runs into a temporary folder."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

from tests.conftest import ROOT, SHARED

EXTRA = ROOT / "benchmarks" / "labels_extra.csv"


def test_every_class_has_a_positive_and_a_negative_case_built_from_shared_runs(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from label_cases import EDITS, build

    rows = list(csv.DictReader(EXTRA.open()))
    expected: dict[str, set[str]] = {}
    for r in rows:
        assert r["edit"] in EDITS, r
        for cls in r["class"].split("+"):
            expected.setdefault(cls, set()).add(r["expected"])
    assert set(expected) == {
        "identity", "text", "question", "grounding", "claims", "cancel_offer", "reasoning", "budget",
        "grounding_request", "policy_claims", "after_decision", "task_report", "after_write",
        "conduct_compensation", "conduct_transfer", "conduct_details",  # #40 classes 1-7 (5 and item 1 by kind)
        "strict_informational", "strict_withdrawal", "strict_other_words", "strict_agreed_transfer",
        "strict_writes",  # #40 classes 8-12
        "strict_conduct_yes", "strict_conduct_compensation", "strict_conduct_certificate",
        "strict_conduct_cancellation", "strict_conduct_transfer", "strict_details",  # item 4's conduct
    }
    assert all(r["variant"] == "strict" for r in rows if r["class"].startswith("strict_"))
    assert all(v == {"credit", "no_credit"} for v in expected.values()), expected
    built = build(rows, SHARED, tmp_path / "cases")
    assert set(built) == {r["file"] for r in rows}
    for r in rows:
        data = json.loads(Path(built[r["file"]]).read_text())
        assert [s["id"] for s in data["simulations"]] == [r["simulation_id"]]
        assert "info" in data and "tasks" in data
