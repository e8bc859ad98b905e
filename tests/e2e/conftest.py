"""Fixtures of the end-to-end tests: pages in a browser (headless Chromium through Playwright), sweeps of
the scripted agents on the scripted server, and a small rescored run with two trials per task."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from harness import rescore
from loophole_scripted_llm import Faults, ScriptedLLMServer
from tests.conftest import harness, real_run

TWO_TRIAL_TASKS = ("2", "5", "13", "14", "27")  # loophole tasks whose text order (13, 14, 2, 27, 5) is wrong
INFRA_TASK = "27"  # both of its trials ended by an infrastructure error


@pytest.fixture(scope="session")
def two_trial_run(tmp_path_factory) -> tuple[Path, Path]:
    """(the results file, its rescored run): whissle's tau3 airline run cut to five loophole tasks, each
    simulation copied as a second trial, and task 27's two trials marked ended by an infrastructure error
    (tau2's ``infrastructure_error``), as a provider outage leaves them. One rescore (seconds), no Ray."""
    raw = json.loads(real_run("whissle_airline_tau3_1trial.json").read_text())
    sims = []
    for sim in (s for s in raw["simulations"] if s["task_id"] in TWO_TRIAL_TASKS):
        second = copy.deepcopy(sim)
        second["id"], second["trial"] = f"{sim['id']}-second", 1
        sims += [sim, second]
    for sim in sims:
        if sim["task_id"] == INFRA_TASK:
            sim["termination_reason"] = "infrastructure_error"
    raw["simulations"] = sims
    raw.pop("simulation_index", None)
    base = tmp_path_factory.mktemp("two-trials")
    results = base / "whissle_two_trials.json"
    results.write_text(json.dumps(raw))
    rescore([results], base / "run")  # in process (the Python API of the same verb): its users read the rows
    return results, base / "run"


@pytest.fixture(scope="module")
def server():
    """The scripted LLM server, one a test file (the sweep files' provider)."""
    with ScriptedLLMServer(faults=Faults(latency_s=0.0)) as s:
        yield s


@pytest.fixture(scope="module")
def browser():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("headless Chromium is needed: install Debian's chromium package (.ci/run does)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=exe,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors, page errors and any request leaving file://."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    pg.problems = []
    pg.on(
        "console",
        lambda m: pg.problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None,
    )
    pg.on("pageerror", lambda e: pg.problems.append(f"page error: {e}"))
    pg.on(
        "request",
        lambda r: (
            None if r.url.startswith(("file:", "data:")) else pg.problems.append(f"fetch {r.url}")
        ),
    )
    yield pg
    context.close()


# --- sweeps of the scripted agents ----------------------------------------------------------------

SECRET = "sk-live-SECRET-0123456789abcdef"


def sweep_config(tmp_path: Path, api_base: str, name: str, **over) -> Path:
    """A sweep config of the scripted agents (gold, and L6.single_call with its key in $HARNESS_TEST_KEY) on
    the scripted server at ``api_base``; ``over`` replaces fields."""
    data = {
        "name": name,
        "agents": [
            {"name": "gold", "model": "openai/scripted-agent",
             "args": {"api_base": api_base, "api_key": SECRET, "temperature": 0.0}},
            {"name": "l6", "model": "openai/scripted-agent:L6.single_call",
             "args": {"api_base": api_base}, "api_key_env": "HARNESS_TEST_KEY"},
        ],
        "user_simulator": {"model": "openai/scripted-user", "args": {"api_base": api_base, "api_key": SECRET}},
        "domains": ["airline", "retail"],
        "task_versions": ["tau2", "tau3"],
        "tasks": ["1", "32", "4"],
        "trials": 2,
        "max_concurrency": 8,
        "flush_every": 4,
        "output": str(tmp_path / name),
        "retries": {"max_attempts": 4, "base_delay_s": 0.01, "max_delay_s": 0.05, "timeout_s": 5},
    }
    data.update(over)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def run_sweep(config: Path, workers: int = 1) -> subprocess.CompletedProcess:
    """``harness sweep CONFIG --workers WORKERS``, with the agent's key set. One worker unless a test's sweep is
    the one that spreads trials over several (tests/e2e/test_sweep.py): each worker is a process that imports
    tau2 and litellm and loads its databases (seconds of CPU), and a small sweep's assertions do not depend on
    how many there are (the driver holds ``max_concurrency`` across them)."""
    env = {**os.environ, "HARNESS_TEST_KEY": SECRET}
    return harness("sweep", str(config), "--workers", str(workers), timeout=900, env=env)


def start_sweep(config: Path) -> subprocess.Popen:
    """``harness sweep CONFIG --workers 1`` in the background, in its own session."""
    env = {**os.environ, "HARNESS_TEST_KEY": SECRET}
    return harness("sweep", str(config), "--workers", "1", env=env, background=True, start_new_session=True)
