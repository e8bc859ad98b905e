"""What a rescore imports that it does not use: ``analysis`` (the broken-gold verdict) only where a file's evaluator
marked a task's gold replay incomplete; every other rescore paid its import, ~5 ms of a cold process (#47)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT.parent / "shared" / "real-runs" / "whissle_retail_tau3_5sims.json"

_RESCORE = """
import json, sys
from pathlib import Path
from harness.rescoring import import_sources, rescore_runs
runs, _ = import_sources([sys.argv[1]], None, False)
summaries = rescore_runs(runs, Path(sys.argv[2]), workers=1)
print(json.dumps({"rows": sum(s.count for s in summaries), "gold_replays": [s.gold_replays for s in summaries],
                  "analysis": sorted(m for m in sys.modules if m == "analysis" or m.startswith("analysis."))}))
"""


def test_a_rescore_without_an_incomplete_gold_replay_never_imports_analysis(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", _RESCORE, str(RUN), str(tmp_path / "run")], capture_output=True,
                          text=True, cwd=ROOT, env=env, check=True, timeout=300)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["rows"] == 5 and out["gold_replays"] == [[]]  # scored, and no task's gold replay marked
    assert out["analysis"] == []
