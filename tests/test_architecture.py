"""The shape of the tree: what a light import loads, module sizes, and the application's share."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["envs", "gold_variants", "loophole_scoring", "loophole_store", "analysis", "loophole_report", "harness"]
LONG_MODULE = "# Over 400 lines:"  # a module that is longer says why in its first lines


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


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py") if "__pycache__" not in p.parts)


def test_no_module_over_400_lines_without_a_reason():
    long = [p for p in _modules() if len(p.read_text(encoding="utf-8").splitlines()) > 400]
    unexplained = [
        str(p.relative_to(ROOT)) for p in long
        if not any(line.startswith(LONG_MODULE) for line in p.read_text(encoding="utf-8").splitlines()[:5])
    ]
    assert unexplained == []


def test_the_application_is_at_most_40_percent_of_the_library():
    lines = {pkg: sum(len(p.read_text(encoding="utf-8").splitlines()) for p in (ROOT / pkg).rglob("*.py"))
             for pkg in PACKAGES}
    share = lines["harness"] / sum(lines.values())
    assert share <= 0.40, f"harness/ is {share:.1%} of {sum(lines.values())} lines: {lines}"
