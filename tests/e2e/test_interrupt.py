"""Ctrl-C at any moment of ``harness sweep``, Ray's start included: one line, exit 130, no traceback; and
no Ray log lines on stderr unless ``-v``. A rescore's worker processes stop with it."""

from __future__ import annotations

import signal
import time

import pytest
import yaml

from tests.conftest import ROOT, harness


def _demo(tmp_path, trials: int, tasks: list[str] | None = None):
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(trials=trials, output=str(tmp_path / "demo"))
    if tasks is not None:
        demo.update(tasks=tasks)
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump(demo))
    return path


@pytest.mark.parametrize("after_s", [0.3, 2, 6, 10])
def test_ctrl_c_at_any_moment_is_one_line_and_exit_130(tmp_path, after_s):
    """SIGINT to the process at 0.3 s (imports), 2 s and 6 s (Ray starting) and 10 s (workers or trials):
    40 trials per task keep the sweep running well past 10 s."""
    config = _demo(tmp_path, trials=40)
    proc = harness("sweep", str(config), background=True)
    time.sleep(after_s)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    lines = [line for line in err.splitlines() if line.strip() and "trials/min" not in line]  # the bar aside
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "core_worker" not in err, err[-3000:]
    assert len(lines) == 1 and lines[0].startswith("error: interrupted by SIGINT"), err[-3000:]


def test_a_sweep_prints_no_ray_log_lines_unless_verbose(tmp_path, offline_demo_run):
    # the quiet sweep: the suite's shared offline demo run (the demo's agents, 108 trials), as recorded
    _, quiet = offline_demo_run
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    assert "core_worker" not in quiet.stderr and "Token authentication" not in quiet.stderr, quiet.stderr
    assert [line for line in quiet.stderr.splitlines() if "trials/min" not in line and line.strip()] == []
    # Ray's lines come from its start and each worker actor's creation, not from trials: the demo's agents on two
    # tasks with -v show what the quiet run hid
    config = _demo(tmp_path, trials=1, tasks=["2", "5"])
    verbose = harness("-v", "sweep", str(config), timeout=600)
    assert verbose.returncode == 0, verbose.stderr[-3000:]
    assert "core_worker" in verbose.stderr and "Token authentication" in verbose.stderr, verbose.stderr[-3000:]


def _children(pid: int) -> list[int]:
    from pathlib import Path

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_during_a_rescore_with_workers_stops_its_worker_processes_too(tmp_path, sig):
    """Forked workers hold their own end of the task pipe: left alone they would outlive the CLI for ever."""
    import json

    from tests.conftest import real_run

    source = json.loads(real_run("whissle_retail_tau3_5sims.json").read_text())
    source["simulations"] = [{**s, "id": f"{s['id']}-{i}"} for i in range(300) for s in source["simulations"]]
    big = tmp_path / "big.json"
    big.write_text(json.dumps(source))
    proc = harness("rescore", str(big), "--out", str(tmp_path / "out"), "--workers", "2", background=True)
    deadline = time.monotonic() + 60
    while len(workers := _children(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert len(workers) >= 2, "the workers never started"
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err[-3000:]
    assert [line for line in err.splitlines() if line.strip()] == [f"error: interrupted by {sig.name}: stopped; "
        "a file being written keeps its old content (writes are atomic); run the same command again"], err[-3000:]
    deadline = time.monotonic() + 10
    while (alive := [w for w in workers if _alive(w)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert alive == [], f"worker processes left running: {alive}"
    assert not (tmp_path / "out").exists()


def _alive(pid: int) -> bool:
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited
