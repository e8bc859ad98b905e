"""What the program's own patterns need, read from ``_gate_needs.py`` (written by ``_gate_tabulate``), is what reading
each pattern afresh gives: the table is the one its writer writes now (no drift), every pattern the package holds is
in it, and each tabulated gate answers as the gate built from the pattern's parse on every message and sentence of
the real runs."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conversation_reading import _gate, _gate_needs
from tests.conftest import ROOT, lowered_texts

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json", "whissle_retail_tau3_5sims.json"]


def _afresh(pattern: re.Pattern[str], monkeypatch: pytest.MonkeyPatch) -> _gate.Needs:
    """``pattern``'s needs read from its parse, the table set aside."""
    with monkeypatch.context() as m:
        m.setattr(_gate, "NEEDS", {})
        return _gate._needs.__wrapped__(pattern)


def test_the_table_is_what_its_writer_writes_now_in_a_fresh_process() -> None:
    done = subprocess.run([sys.executable, "-m", "conversation_reading._gate_tabulate", "--check"],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]


def test_needs_reads_every_tabulated_pattern_from_the_table() -> None:
    assert len(_gate_needs.NEEDS) > 150
    for (source, flags), (requirements, check) in _gate_needs.NEEDS.items():
        found = _gate._needs.__wrapped__(re.compile(source, flags))
        assert list(found) == requirements
        if check is not None:
            assert found.check is check


def test_each_tabulated_gate_answers_as_the_gate_read_afresh_on_real_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    patterns = [re.compile(source, flags) for source, flags in _gate_needs.NEEDS]
    tabulated = [_gate._needs.__wrapped__(p) for p in patterns]
    afresh = [_afresh(p, monkeypatch) for p in patterns]
    for a, b in zip(tabulated, afresh, strict=True):
        assert list(a) == list(b) and [type(r) for r in a] == [type(r) for r in b]
    texts = held = 0
    for lowered in lowered_texts(*RUNS):
        texts += 1
        for p, a, b in zip(patterns, tabulated, afresh, strict=True):
            answer = a.check(lowered)
            assert answer == b.check(lowered), (p.pattern[:80], lowered[:200])
            held += answer
    assert texts > 5000 and held > 20000  # every text against every pattern; many gates hold somewhere
