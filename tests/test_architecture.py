"""The shape of the tree: what a light import loads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _loaded_by(statement: str) -> set[str]:
    code = f"import json, sys; {statement}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return {m.split(".")[0] for m in json.loads(out.stdout.strip().splitlines()[-1])}


@pytest.mark.parametrize("statement", ["import loophole_store", "from loophole_store import read_tables, open_run"])
def test_the_store_loads_no_gymnasium_tau2_ray_or_application(statement):
    loaded = _loaded_by(statement)
    assert not loaded & {"gymnasium", "tau2", "ray", "litellm", "harness"}, sorted(loaded & {
        "gymnasium", "tau2", "ray", "litellm", "harness"})


def test_importing_the_harness_does_not_load_gymnasium():
    assert "gymnasium" not in _loaded_by("import harness, harness.cli.main")
    assert "gymnasium" in _loaded_by("import harness.gym")  # the measure can see gymnasium load
