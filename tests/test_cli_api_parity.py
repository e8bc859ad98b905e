"""The CLI and the Python API are one pipeline: each verb's options are the API function's parameters, with
the same names, defaults and checks (#33). A new option on one side only, or a changed default, fails here."""

from __future__ import annotations

import inspect

import pytest
import typer

import harness
from harness.cli._app import app
from loophole_base import HarnessInputError
from tests.conftest import harness as run_cli
from tests.conftest import real_run

VERBS = ["rescore", "leaderboard", "analyze", "report", "view", "sweep", "explain"]
# Parameters one side has for a reason of its own, named here so that nothing else can differ:
CLI_ONLY = {
    "view": {"serve", "port"},  # serving a site blocks until Ctrl-C: a terminal's use, not a library's
    "explain": {"width"},  # how much of each message the terminal prints; the API returns them whole
}
API_ONLY = {"on_note", "on_progress", "config"}  # callbacks the CLI prints through; a config already loaded


def _cli_params(verb: str) -> dict[str, object]:
    command = typer.main.get_command(app).commands[verb]  # type: ignore[attr-defined]
    return {p.name: (inspect.Parameter.empty if p.required else p.default) for p in command.params}


def _api_params(verb: str) -> dict[str, object]:
    signature = inspect.signature(getattr(harness, verb))
    return {name: p.default for name, p in signature.parameters.items()}


def _same(a: object, b: object) -> bool:
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return list(a) == list(b)
    return a == b


@pytest.mark.parametrize("verb", VERBS)
def test_every_cli_option_is_an_api_parameter_with_the_same_default(verb):
    cli, api = _cli_params(verb), _api_params(verb)
    assert set(cli) - CLI_ONLY.get(verb, set()) == set(api) - API_ONLY, (sorted(cli), sorted(api))
    differ = {name: (cli[name], api[name]) for name in set(cli) & set(api) if not _same(cli[name], api[name])}
    assert not differ, f"{verb}: defaults differ (cli, api): {differ}"
    for name in API_ONLY & set(api):
        assert api[name] is None, f"{verb}: {name} must be optional"


def test_the_api_is_what_the_verbs_call():
    """Each verb's module calls the API function by name, so the two cannot drift apart in behaviour."""
    import harness.cli.analyze
    import harness.cli.explain
    import harness.cli.leaderboard
    import harness.cli.report
    import harness.cli.rescore
    import harness.cli.sweep
    import harness.cli.view

    for verb in VERBS:
        source = inspect.getsource(getattr(harness.cli, verb))
        assert f"from harness import {verb} as " in source, verb


@pytest.mark.parametrize(
    ("cli_args", "api_call", "message"),
    [
        (["rescore", "X", "--out", "{tmp}/r", "--workers", "0"],
         lambda tmp: harness.rescore(["X"], tmp / "r", workers=0), "--workers 0: must be"),
        (["leaderboard", "X", "--out", "{tmp}/r", "--workers", "0"],
         lambda tmp: harness.leaderboard(["X"], tmp / "r", workers=0), "--workers 0: must be"),
        (["rescore", "X", "--out", "{tmp}/r", "--against-version", "tau9"],
         lambda tmp: harness.rescore(["X"], tmp / "r", against_version=["tau9"]), "'tau9' is not one of"),
        (["rescore", "X", "--out", "{tmp}/r", "--judge-api-base", "http://127.0.0.1:1"],
         lambda tmp: harness.rescore(["X"], tmp / "r", judge_api_base="http://127.0.0.1:1"), "need --judge"),
        (["analyze", "{tmp}", "--bootstrap", "5"],
         lambda tmp: harness.analyze(tmp, bootstrap=5), "--bootstrap 5: must be at least 100"),
    ],
)
def test_the_cli_and_the_api_refuse_the_same_input_with_the_same_line(tmp_path, cli_args, api_call, message):
    with pytest.raises(HarnessInputError) as err:
        api_call(tmp_path)
    proc = run_cli(*[a.format(tmp=tmp_path) for a in cli_args])
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == f"error: {err.value}" and message in str(err.value), (proc.stderr, str(err.value))
    assert not (tmp_path / "r").exists()  # checked before any folder is made


def test_leaderboard_writes_run_json(tmp_path):
    """Every run folder has its provenance; the leaderboard's says what it is and which files it ranked."""
    import hashlib
    import json

    source = real_run("whissle_retail_tau3_5sims.json")
    result = harness.leaderboard([source], tmp_path / "board")
    info = json.loads((tmp_path / "board" / "run.json").read_text())
    assert info["kind"] == "leaderboard"
    assert info["source_sha256"] == [hashlib.sha256(source.read_bytes()).hexdigest()]
    assert info["task_versions"] and info["catalog_sha256"]
    assert set(result.board.source_sha256) == set(info["source_sha256"])
