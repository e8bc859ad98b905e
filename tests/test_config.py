"""Sweep configs: bad keys, values and files give one-line errors with the YAML line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.config import load_config
from harness.trials import TrialKey, expand, load_sweep
from loophole_base import HarnessInputError
from loophole_store import redact
from tests.conftest import harness

GOOD = """\
name: t
agents:
  - name: a
    model: openai/gpt-4.1
    args: {temperature: 0.0, api_key: sk-abc}
user_simulator:
  model: openai/gpt-4.1
domains: [airline]
tasks: ["1", "2"]
trials: 2
"""


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "c.yaml"
    p.write_text(text)
    return p


def test_good_config_expands(tmp_path):
    config = load_config(_write(tmp_path, GOOD))
    keys = expand(config)
    assert len(keys) == 4 and len({k.key for k in keys}) == 4
    assert config.redacted()["agents"][0]["args"]["api_key"] == "**********"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (GOOD.replace("trials: 2", "trials: 2\nbogus: 1"), "line 11: field 'bogus': unknown key"),
        (GOOD.replace("trials: 2", "trials: 0"), "line 10: field 'trials': Input should be greater than or equal to 1"),
        (GOOD.replace("domains: [airline]", "domains: [telecom]"), "line 8: field 'domains.0'"),
        (GOOD.replace("    model: openai/gpt-4.1\n    args", "    args"), "line 3: field 'agents.0': Value error, an llm_agent needs a model"),
        (GOOD + "policy_overrides: {airline: nope.md}\n", "field 'policy_overrides.airline': file nope.md not found"),
        (GOOD + "address: 10.0.0.1\n", "field 'address'"),
        ("name: [unclosed\n", "not valid YAML"),
    ],
)
def test_bad_config_one_line(tmp_path, text, expected):
    path = _write(tmp_path, text)
    with pytest.raises(HarnessInputError) as err:
        load_config(path)
    assert str(err.value).startswith(str(path)) and expected in str(err.value), str(err.value)


def test_unknown_task_id(tmp_path):
    """Found when the config is loaded, before a run directory exists, naming the file and line."""
    path = _write(tmp_path, GOOD.replace('tasks: ["1", "2"]', 'tasks: ["1", "999"]'))
    with pytest.raises(HarnessInputError, match=r"c.yaml: line \d+: field 'tasks': airline tau2 has no task '999'"):
        load_sweep(path)


def test_cli_bad_config_exit_code(tmp_path):
    path = _write(tmp_path, GOOD.replace("trials: 2", "trials: -1"))
    proc = harness("sweep", str(path))
    assert proc.returncode == 2 and proc.stderr.startswith(f"error: {path}: line 10: field 'trials'")


def test_seed_is_sha256_of_key():
    import hashlib

    k = TrialKey("s", "a", "airline", "tau2", "1", 0)
    assert k.seed == int(hashlib.sha256(b"s/a/airline/tau2/1/0").hexdigest()[:8], 16) & 0x7FFFFFFF


def test_max_tokens_is_part_of_the_identity_and_kept_in_sweep_json(tmp_path):
    """``max_tokens`` (and ``budget_tokens``) are settings, not secrets: a changed value is another sweep."""
    from loophole_store import claim_sweep_output

    a = load_config(_write(tmp_path, GOOD.replace("temperature: 0.0", "temperature: 0.0, max_tokens: 512")))
    b = load_config(_write(tmp_path, GOOD.replace("temperature: 0.0", "temperature: 0.0, max_tokens: 1024")))
    assert a.sweep_id() != b.sweep_id()
    thinking = GOOD.replace("temperature: 0.0", "thinking: {type: enabled, budget_tokens: %d}")
    assert load_config(_write(tmp_path, thinking % 1000)).sweep_id() != load_config(_write(tmp_path, thinking % 2000)).sweep_id()
    claim_sweep_output(tmp_path / "run", a.sweep_id(), a.redacted())
    saved = json.loads((tmp_path / "run" / "sweep.json").read_text())
    assert saved["config"]["agents"][0]["args"]["max_tokens"] == 512
    assert saved["config"]["agents"][0]["args"]["temperature"] == 0.0


def test_secrets_are_typed_not_matched_by_name(tmp_path):
    text = GOOD.replace(
        "api_key: sk-abc}", "api_key: sk-abc, secrets: {aws_secret_access_key: AKIA-xyz}, extra_headers: {Authorization: Bearer-q}}"
    )
    config = load_config(_write(tmp_path, text))
    dumped = json.dumps(config.redacted())
    assert "sk-abc" not in dumped and "AKIA-xyz" not in dumped and "Bearer-q" not in dumped
    kwargs = config.agents[0].args.litellm_kwargs()  # revealed only for the litellm call
    assert kwargs["api_key"] == "sk-abc" and kwargs["aws_secret_access_key"] == "AKIA-xyz"
    assert kwargs["extra_headers"] == {"Authorization": "Bearer-q"}
    other_key = load_config(_write(tmp_path, text.replace("sk-abc", "sk-other")))
    assert other_key.sweep_id() == config.sweep_id()  # a secret never changes the experiment


def test_unknown_model_argument_is_an_error(tmp_path):
    with pytest.raises(HarnessInputError, match="field 'agents.0.args.tempreature': unknown key"):
        load_config(_write(tmp_path, GOOD.replace("temperature", "tempreature")))


def test_redact_masks_secret_fields_of_old_files_only():
    stored = {"args": {"api_key": "x", "max_tokens": 5, "extra_headers": {"Authorization": "y"}}}
    assert redact(stored) == {"args": {"api_key": "**********", "max_tokens": 5,
                                       "extra_headers": {"Authorization": "**********"}}}


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["sweep", "configs/smoke.yaml", "--workers", "x"], "harness sweep: Invalid value for '--workers'"),
        (["sweep"], "harness sweep: Missing argument"),
        (["nosuchverb"], "harness: No such command 'nosuchverb'"),
    ],
)
def test_cli_bad_flags_are_one_line_errors(args, names):
    proc = harness(*args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: {names}") and proc.stderr.count("\n") == 1, proc.stderr


def test_cli_help_still_prints_and_exits_zero():
    proc = harness("sweep", "--help")
    assert proc.returncode == 0 and "config" in proc.stdout.lower()
