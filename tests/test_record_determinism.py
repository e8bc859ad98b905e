"""A conversation's record is the same under any hash seed (the guide: determinism). Which clauses the record
reads once hung on the iteration order of a set: GPT-4.1, τ² airline 13 (a transfer agreed in words after a
decline) read the generic refusal under one seed and not another. Built here in two interpreters with
different ``PYTHONHASHSEED``s, the records must be equal."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT, SHARED

OTHER = SHARED / "dev-corpus" / "other-families" / "runs"
FILE = OTHER / "standard__sierra-research__tau2-bench__59d0fb96__gpt-4.1_airline_default_gpt-4.1_1trials.json"
pytestmark = pytest.mark.skipif(not FILE.is_file(), reason="the dev corpus is not here")

SCRIPT = """
import sys
from pathlib import Path
from tau2.data_model.simulation import Results
from envs import engine_for
from loophole_scoring import score_simulation
results = Results.model_validate_json(Path(sys.argv[1]).read_text())
sim = next(s for s in results.simulations if s.id.startswith("b762699f"))
print(score_simulation(sim, "airline", "tau2", engine_for("airline"), None).record.model_dump_json())
"""


def test_the_record_does_not_hang_on_the_hash_seed():
    records = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", SCRIPT, str(FILE)], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=300, check=True)
        records.append(done.stdout.strip().splitlines()[-1])
    assert records[0] == records[1]
