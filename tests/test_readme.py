"""The README is a front page: short, the two set-up commands, the data variable, the report early, and links
that resolve; the rest lives in docs/."""

from __future__ import annotations

import re

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text()


def test_the_readme_is_a_front_page():
    lines = README.splitlines()
    assert len(lines) <= 200
    setup = README.split("## Set up", 1)[1].split("\n## ", 1)[0]
    assert "harness sweep configs/offline-demo.yaml" in setup
    assert "python -m pytest -q -n 3 --dist loadfile tests" in setup
    assert "HARNESS_TAU_DATA" in setup
    assert "ruff check ." in setup and "lint-imports" in setup and "mypy" in setup  # what .ci/run runs
    first_report = next(i for i, line in enumerate(lines) if "harness report" in line)
    assert first_report < len(lines) / 2
    assert "two task versions" not in README and "three task versions" in README


def test_every_link_resolves_and_every_verb_is_in_the_reference():
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for doc in docs:
        for target in re.findall(r"\]\(([^)#\s]+)\)", doc.read_text()):
            if not target.startswith("http"):
                assert (doc.parent / target).exists(), f"{doc.name}: {target}"
    reference = (ROOT / "docs" / "cli.md").read_text()
    for verb in set(re.findall(r"`harness (?:-v )?([a-z]+)", README)):
        assert f"## `harness {verb}" in reference, verb
