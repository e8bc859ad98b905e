"""Ctrl-C at any moment of ``harness sweep``, Ray's start included: one line, exit 130, no traceback; and
no Ray log lines on stderr unless ``-v``."""

from __future__ import annotations

import signal
import time

import pytest
import yaml

from tests.conftest import ROOT, harness


def _demo(tmp_path, trials: int):
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(trials=trials, output=str(tmp_path / "demo"))
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


def test_a_sweep_prints_no_ray_log_lines_unless_verbose(tmp_path):
    config = _demo(tmp_path, trials=1)
    quiet = harness("sweep", str(config), timeout=600)
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    assert "core_worker" not in quiet.stderr and "Token authentication" not in quiet.stderr, quiet.stderr
    assert [line for line in quiet.stderr.splitlines() if "trials/min" not in line and line.strip()] == []
    (tmp_path / "demo").rename(tmp_path / "first")
    verbose = harness("-v", "sweep", str(config), timeout=600)
    assert verbose.returncode == 0, verbose.stderr[-3000:]
    assert "core_worker" in verbose.stderr  # the same run with -v shows what the quiet one hid
