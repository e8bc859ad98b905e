"""``docs/cli.md`` is generated from the typer app (``python -m harness.cli.docs``) and never drifts from it."""

from __future__ import annotations

import re
import subprocess
import sys

from tests.conftest import ROOT, harness


def test_docs_cli_md_is_what_the_app_generates():
    proc = subprocess.run([sys.executable, "-m", "harness.cli.docs", "--check"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr + "\nregenerate it: python -m harness.cli.docs"


def test_the_reference_names_every_verb_and_option_of_the_help():
    """Expected from ``harness VERB --help`` itself, a separate process: every option it lists is in the file."""
    text = (ROOT / "docs" / "cli.md").read_text()
    for verb in (["rescore"], ["sweep"], ["report"], ["versions", "diff"], ["audit", "traces"]):
        assert f"## `harness {' '.join(verb)}`" in text
        helped = harness(*verb, "--help", timeout=300).stdout
        options = set(re.findall(r"^│\s+\*?\s*(--[\w-]+)", helped, re.MULTILINE)) - {"--help"}
        assert options and all(f"`{o}`" in text for o in options), (verb, options)
