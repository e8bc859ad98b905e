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


def _library_modules() -> dict[str, list[Path]]:
    """The library's packages (import-linter's root packages: one list for both checks) and their modules."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    roots = config["tool"]["importlinter"]["root_packages"]
    return {root: sorted((ROOT / root).rglob("*.py")) for root in roots}


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_no_module_over_400_lines_without_a_reason_at_its_top():
    """A long module says why at its top (``# Over 400 lines: ...``); the rest stay small."""
    too_long = [
        f"{path.relative_to(ROOT)} ({_lines(path)} lines)"
        for modules in _library_modules().values()
        for path in modules
        if _lines(path) > 400 and "# Over 400 lines:" not in "\n".join(path.read_text().splitlines()[:5])
    ]
    assert not too_long, too_long


def test_the_application_is_at_most_40_percent_of_the_library():
    """``harness/`` is the application and the CLI; the stages below it hold the rest of the code."""
    sizes = {root: sum(_lines(p) for p in modules) for root, modules in _library_modules().items()}
    assert len(sizes) >= 7 and all(sizes.values()), sizes  # the measure sees every stage
    share = sizes["harness"] / sum(sizes.values())
    assert share <= 0.40, f"harness/ is {share:.0%} of the library: {sizes}"
