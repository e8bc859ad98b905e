"""``harness sweep`` end to end, stopping before any trial in one line: a missing API key, a node with another
catalog, a model without its key (split from ``test_sweep.py`` so that pytest-xdist spreads the files)."""

from __future__ import annotations

import os
import re

import yaml

from tests.conftest import harness
from tests.e2e.conftest import sweep_config


def test_missing_api_key_stops_before_any_trial(tmp_path, server):
    config = sweep_config(tmp_path, server.api_base, "nokey", domains=["airline"], task_versions=["tau2"], tasks=["1"])
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_TEST_KEY"}
    proc = harness("sweep", str(config), timeout=300, env=env)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("error: field 'agents.1.api_key_env': environment variable HARNESS_TEST_KEY "
                                   "is not set (model openai/scripted-agent:L6.single_call)")
    assert not (tmp_path / "nokey" / "trials.parquet").exists()


def test_a_node_with_another_catalog_stops_the_sweep_in_one_line(server, tmp_path):
    """The driver's catalog hash differs from its workers' (as on a cluster node with another package
    version): the sweep stops before any trial with one ``error:`` line, not a Ray traceback."""
    config = sweep_config(tmp_path, server.api_base, "mismatch", domains=["airline"], task_versions=["tau2"],
                     tasks=["1"], trials=1, agents=[{"name": "gold", "model": "openai/scripted-agent",
                                                     "args": {"api_base": server.api_base}}])
    proc = harness(
        "sweep", str(config), "--workers", "1", timeout=600,
        patch="import harness.cluster as c; c.catalog_sha256 = lambda: 'f' * 64",  # only this process differs
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: this node's gold-variant catalog") and "differs from the driver's" in last
    assert "sweep stopped before any trial ran" in last and "Traceback" not in proc.stderr
    assert not (tmp_path / "mismatch" / "trials.parquet").exists()


def test_a_model_without_its_key_stops_the_sweep_in_one_whole_sentence(tmp_path):
    """A hosted model whose key is not set (no ``api_base``: litellm's provider default): one ``error:`` line
    naming the model, the endpoint, the variable to set and what was kept, the provider's reason never cut
    mid-word, and none of Ray's ``(raylet)`` lines (the retries of the tasks on the workers the sweep kills)."""
    out = tmp_path / "nokey"
    config = tmp_path / "nokey.yaml"
    config.write_text(yaml.safe_dump({
        "name": "nokey", "output": str(out), "agents": [{"name": "gpt", "model": "gpt-4.1"}],
        "user_simulator": {"implementation": "scripted_user"}, "domains": ["airline"], "task_versions": ["tau2"],
        "tasks": ["0", "1", "2", "3"], "trials": 1, "max_concurrency": 4,
        "retries": {"max_attempts": 2, "base_delay_s": 0.1, "max_delay_s": 0.2, "breaker_after": 2},
    }))
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "COLUMNS")}
    proc = harness("sweep", str(config), timeout=300, env=env)
    assert proc.returncode == 3, proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr[-3000:]
    sentence = re.fullmatch(
        r"error: model gpt-4\.1 at its provider's default endpoint cannot be reached \(its first 2 attempts all "
        r"failed, the last with (\w+): ([^()]+)\): set OPENAI_API_KEY \(or the model's api_key_env in the sweep "
        rf"config\), then run the sweep again: it stopped, and its 0 finished trials are kept in {re.escape(str(out))}",
        errors[0])
    assert sentence is not None, errors[0]
    assert sentence.group(2).endswith("Missing credentials"), errors[0]  # the reason's first sentence, whole
    assert "(raylet)" not in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-3000:]
    assert not (out / ".lock").exists() and not (out / "trials.parquet").exists()
