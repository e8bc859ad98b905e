"""Help texts a new user reads: right about what each verb does, and value kinds as words, not Python types."""

from __future__ import annotations

import pytest

from tests.conftest import harness

VERBS = [["rescore"], ["analyze"], ["report"], ["leaderboard"], ["sweep"], ["explain"], ["view"],
         ["versions", "diff"], ["variants", "check"], ["audit", "policy"]]


def test_rescore_and_report_help_say_what_they_do():
    rescore = harness("rescore", "--help")
    assert rescore.returncode == 0
    text = " ".join(rescore.stdout.replace("│", " ").split())
    assert "single-gold (tau2's own evaluator) and multi-gold" in text
    report = harness("report", "--help")
    text = " ".join(report.stdout.replace("│", " ").split())
    assert "τ², τ³ and Verified" in text and "τ² vs τ³" not in text


@pytest.mark.parametrize("verb", VERBS, ids=lambda v: " ".join(v))
def test_help_prints_no_python_types(verb):
    proc = harness(*verb, "--help")
    assert proc.returncode == 0, proc.stderr
    for python_type in ("<bool>", "<list[", "<str>", "<int>", "<path>"):
        assert python_type not in proc.stdout, (python_type, proc.stdout)


def test_version_and_help_do_not_import_tau2():
    """tau2's models cost each process half a second to import (deepdiff, pandas): a command that reads no
    task (``--version``, ``--help``) never imports them, not even for the error classes the CLI catches."""
    told = "import atexit, sys\natexit.register(lambda: print('tau2 imported:', 'tau2' in sys.modules, file=sys.stderr))"
    for args in (["--version"], ["--help"]):
        proc = harness(*args, patch=told, fresh=True)  # what a new process imports
        assert proc.returncode == 0 and "tau2 imported: False" in proc.stderr, (args, proc.stderr[-2000:])
