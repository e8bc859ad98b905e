"""Ctrl-C at any moment of ``harness sweep``, Ray's start included: one line, exit 130, no traceback; and
no Ray log lines on stderr unless ``-v``. A rescore's worker processes stop with it."""

from __future__ import annotations

import os
import re
import signal
import time

import pandas as pd
import pytest
import yaml

from tests.conftest import ROOT, child_pids, harness


def _demo(tmp_path, trials: int, tasks: list[str] | None = None):
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(trials=trials, output=str(tmp_path / "demo"))
    if tasks is not None:
        demo.update(tasks=tasks)
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump(demo))
    return path


PHASES = ("preparing", "starting Ray", "starting workers", "running", "writing", "done")
COUNTED = re.compile(r"error: interrupted by SIGINT: (\d+) finished trials written this run \((\d+) of (\d+) in "
                     r".+\); run the sweep again to resume the other (\d+)$")
STYLE, CURSOR = re.compile(r"\x1b\[[0-9;]*m"), re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _stderr_until(proc, text: str, timeout_s: float = 180) -> str:
    """What the process wrote on stderr until ``text`` appeared in it (its live progress line)."""
    seen = b""
    deadline = time.monotonic() + timeout_s
    while text.encode() not in seen and time.monotonic() < deadline and proc.poll() is None:
        seen += os.read(proc.stderr.fileno(), 65536)
    assert text.encode() in seen, seen[-3000:]
    return seen.decode(errors="replace")


@pytest.mark.parametrize("after", [0.3, 2, "starting Ray", 10])
def test_ctrl_c_at_any_moment_is_one_line_and_exit_130(tmp_path, after):
    """SIGINT to the process at 0.3 s (imports), 2 s, while its live progress line says ``starting Ray``
    (stderr taken for a terminal), and at 10 s (workers or trials): 40 trials per task keep the sweep running
    well past 10 s. Once the sweep has begun (its progress line is up), the line counts the finished trials
    written, 0 included, as the store holds them."""
    config = _demo(tmp_path, trials=40)
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if isinstance(after, str):
        env.update(TTY_COMPATIBLE="1", COLUMNS="200")  # the live line, redrawn on stderr as on a terminal
    proc = harness("sweep", str(config), background=True, env=env)
    before = ""
    if isinstance(after, str):
        before = _stderr_until(proc, after)
    else:
        time.sleep(after)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    err = CURSOR.sub("\n", STYLE.sub("", before + err)).replace("\r", "\n")  # one drawing of the line a line
    bar = [line for line in err.splitlines() if " elapsed " in line]  # the progress line, as it was drawn
    lines = [line for line in err.splitlines() if line.strip() and line not in bar]
    assert proc.returncode == 130, err[-3000:]
    assert "Traceback" not in err and "core_worker" not in err, err[-3000:]
    assert len(lines) == 1 and lines[0].startswith("error: interrupted by SIGINT"), err[-3000:]
    if bar:
        phase = re.match(r"(.+?)\s+(━|\d+/)", bar[-1])
        assert phase and phase.group(1) in PHASES, bar
        counted = COUNTED.match(lines[0])
        assert counted, lines[0]
        written, held, total, left = map(int, counted.groups())
        trials = tmp_path / "demo" / "trials.parquet"
        stored = len(pd.read_parquet(trials)) if trials.exists() else 0
        assert written == held == stored and left == total - stored and total >= 6000, (lines[0], stored)
        if after == "starting Ray":  # nothing had finished: the line says 0, not "finished trials were written"
            assert written == 0 and re.search(r"starting Ray\s+━+\s+0/\d+\s+elapsed 0:00:\d\d", err), err[-3000:]


def test_a_sweep_prints_no_ray_log_lines_unless_verbose(tmp_path, offline_demo_run):
    # the quiet sweep: the suite's shared offline demo run (the demo's agents, 108 trials), as recorded
    _, quiet = offline_demo_run
    assert quiet.returncode == 0, quiet.stderr[-3000:]
    assert "core_worker" not in quiet.stderr and "Token authentication" not in quiet.stderr, quiet.stderr
    assert [line for line in quiet.stderr.splitlines() if " elapsed " not in line and line.strip()] == []
    # Ray's lines come from its start and each worker actor's creation, not from trials: the demo's agents on one
    # task, on one worker actor, with -v show what the quiet run hid
    config = _demo(tmp_path, trials=1, tasks=["2"])
    verbose = harness("-v", "sweep", str(config), "--workers", "1", timeout=600)
    assert verbose.returncode == 0, verbose.stderr[-3000:]
    assert "core_worker" in verbose.stderr and "Token authentication" in verbose.stderr, verbose.stderr[-3000:]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_during_a_rescore_with_workers_stops_its_worker_processes_too(tmp_path, sig):
    """Forked workers hold their own end of the task pipe: left alone they would outlive the CLI for ever."""
    big = _big_run(tmp_path, copies=300)
    proc = harness("rescore", str(big), "--out", str(tmp_path / "out"), "--workers", "2", background=True)
    deadline = time.monotonic() + 60
    while len(workers := child_pids(proc.pid)) < 2 and time.monotonic() < deadline and proc.poll() is None:
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


def _gone_within(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while (alive := [p for p in pids if _alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def test_an_interrupt_between_two_chunks_still_stops_the_rescore_workers(tmp_path):
    """The signal can land while the main process writes a chunk, outside the generators that own the pool:
    the chunks are closed on the way out, so the workers stop before the CLI prints its line (it then
    leaves with ``os._exit``, which runs no ``finally`` of a generator left suspended)."""
    from harness._interrupt import Interrupted
    from harness.rescoring import rescore_runs
    from loophole_ingest import import_results_file

    run = import_results_file(_big_run(tmp_path, copies=20))
    workers: list[int] = []

    def interrupt(_: int) -> None:
        workers.extend(child_pids(os.getpid()))
        raise Interrupted("SIGINT")

    with pytest.raises(Interrupted) as stopped:
        rescore_runs([run], tmp_path / "out", workers=2, on_progress=interrupt, chunk_size=1)
    assert len(workers) >= 2, workers
    assert _gone_within(workers, 10) == [], "worker processes left running after an interrupt between chunks"
    assert stopped.value is not None  # the traceback, which holds the suspended frames, is still alive here
    assert not (tmp_path / "out").exists()


def test_rescore_workers_exit_when_their_main_process_dies(tmp_path):
    """A main process killed outright (SIGKILL, out of memory) stops nothing itself: each forked worker
    watches for it and exits, instead of waiting on its own end of the task pipe for ever."""
    import subprocess
    import sys

    big = _big_run(tmp_path, copies=300)
    script = (
        "import time\n"
        "from harness.rescoring import rescore_runs\n"
        "from loophole_ingest import import_results_file\n"
        "def hold(_):\n"
        "    print('scoring', flush=True)\n"
        "    time.sleep(600)\n"
        f"rescore_runs([import_results_file({str(big)!r})], {str(tmp_path / 'out')!r}, workers=2, on_progress=hold)\n"
    )
    scratch = tmp_path / "tmp"  # the killed process cannot remove its staging folder: keep it out of /tmp
    scratch.mkdir()
    # not communicate(): workers left running would hold the pipes open, and the test would hang, not fail
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, cwd=ROOT, env={**os.environ, "TMPDIR": str(scratch)})
    assert proc.stdout is not None
    said = proc.stdout.readline()
    workers = child_pids(proc.pid)
    proc.kill()
    assert said == "scoring\n" and len(workers) >= 2, (said, workers)
    assert proc.wait(timeout=60) == -9
    alive = _gone_within(workers, 10)
    for pid in alive:  # broken: leave nothing behind
        os.kill(pid, signal.SIGKILL)
    assert alive == [], "worker processes outlived their killed main process"


def _big_run(tmp_path, copies: int):
    import json

    from tests.conftest import real_run

    source = json.loads(real_run("whissle_retail_tau3_5sims.json").read_text())
    source["simulations"] = [{**s, "id": f"{s['id']}-{i}"} for i in range(copies) for s in source["simulations"]]
    big = tmp_path / "big.json"
    big.write_text(json.dumps(source))
    return big
