"""``harness sweep`` interrupted and resumed (SIGINT, SIGKILL), and read while it writes: every trial once,
every finished one kept. Apart from test_sweep.py so that the two run side by side."""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pandas as pd

from harness.config import load_config
from harness.trials import expand
from loophole_scripted_llm import Faults, ScriptedLLMServer
from tests.conftest import harness
from tests.e2e.conftest import SECRET, run_sweep, start_sweep, sweep_config


def test_analyze_during_a_sweep_sees_every_finished_trial_with_its_scores(tmp_path):
    """20 rounds of reading (as ``harness analyze`` does) while a sweep writes parts and compacts: every
    trial read has its score rows, and reading never changes the run directory."""
    import loophole_store as store
    from analysis import analyze_trials

    rounds = 0  # reads made while the sweep had written parts and was still running
    first_part_at: int | None = None  # answers the server had given when the reads first found a part

    def reads_keep_up() -> bool:
        """Under load the reads slow down more than the sweep (much of its time is the server's latency, a
        sleep): from the first part on, the sweep gets at most 2 answers a read until the 20 reads are made."""
        return first_part_at is None or rounds >= 20 or slow.answered.total() - first_part_at < 2 * (rounds + 1)

    with ScriptedLLMServer(faults=Faults(latency_s=0.2)) as slow:
        slow.gate = reads_keep_up
        config = sweep_config(tmp_path, slow.api_base, "stress", domains=["airline"], task_versions=["tau2"],
                         tasks=["1", "32", "4", "3", "5"], trials=2, flush_every=1, max_concurrency=2,
                         retries={"max_attempts": 4, "base_delay_s": 0.01, "max_delay_s": 0.05, "timeout_s": 120})
        proc = start_sweep(config)
        run = tmp_path / "stress"
        try:
            while proc.poll() is None:
                writing = any((run / "parts").glob("trials-*.parquet"))
                if writing and first_part_at is None:
                    first_part_at = slow.answered.total()
                trials, scores = store.read_tables(run, "trials", "scores")
                scored = trials[trials.status.isin(["ok", "agent_error", "no_judge"])]
                assert set(scored.trajectory_id) <= set(scores.trajectory_id), rounds
                assert trials.trajectory_id.is_unique
                if writing:
                    if rounds % 5 == 0:  # the statistics are pure; reading is what meets the writer
                        analyze_trials(trials, reps=100)
                    rounds += 1
                # before the first part, while Ray starts, a read finds nothing written: a few such reads cover
                # the run folder being made (200 of them cost seconds of CPU); then reads as often as they can
                time.sleep(0.05 if writing else 0.5)
        finally:
            out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    assert rounds >= 20, rounds  # the reads really overlapped the writes
    assert sorted(pd.read_parquet(run / "trials.parquet").trajectory_id) == sorted(k.key for k in expand(load_config(config)))


def test_sigint_keeps_finished_trials_and_the_resume_gives_each_key_once(tmp_path):
    with ScriptedLLMServer(faults=Faults(latency_s=0.05)) as slow:
        # nothing is written by count or time: what the store holds after SIGINT was written on the way out
        config = sweep_config(tmp_path, slow.api_base, "sigint", domains=["airline"], task_versions=["tau2"],
                         tasks=["1", "32", "4", "3"], trials=3, flush_every=1000, flush_interval_s=1000,
                         max_concurrency=2)
        proc = start_sweep(config)
        deadline = time.time() + 300
        while time.time() < deadline and slow.counts["user"] < 40:  # several trials are done by then
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 130 and "interrupted by SIGINT" in err, err[-2000:]
        kept = pd.read_parquet(tmp_path / "sigint" / "trials.parquet")
        total = len(expand(load_config(config)))
        # the line counts what was written on the way out
        assert (f"interrupted by SIGINT: {len(kept)} finished trials written this run ({len(kept)} of {total} in "
                f"{tmp_path / 'sigint'}); run the sweep again to resume the other {total - len(kept)}") in err, err
        kept_scores = pd.read_parquet(tmp_path / "sigint" / "scores.parquet")
        assert 0 < len(kept) < 24 and set(kept.status) == {"ok"}
        assert set(kept_scores.trajectory_id) == set(kept.trajectory_id)
        requests = slow.counts.total()
        resumed = run_sweep(config)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        assert slow.counts.total() > requests
        assert (f"resuming: {len(kept)} of {total} trials kept from {tmp_path / 'sigint'}; "
                f"{total - len(kept)} to run") in " ".join(resumed.stderr.split()), resumed.stderr[-2000:]
    trials = pd.read_parquet(tmp_path / "sigint" / "trials.parquet")
    assert sorted(trials.trajectory_id) == sorted(k.key for k in expand(load_config(config)))  # each key once
    assert set(kept.trajectory_id) <= set(trials.trajectory_id)


def test_sigkill_then_resume_gives_each_trial_once(tmp_path):
    with ScriptedLLMServer(faults=Faults(latency_s=0.05)) as slow:
        config = sweep_config(tmp_path, slow.api_base, "killed", domains=["airline"], task_versions=["tau2"],
                         tasks=["1", "32", "4", "0"], trials=2, flush_every=1, max_concurrency=2)
        env = {**os.environ, "HARNESS_TEST_KEY": SECRET}
        proc = harness(
            "sweep", str(config), "--workers", "1", env=env, background=True,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )
        parts = tmp_path / "killed" / "parts"
        deadline = time.time() + 300
        while time.time() < deadline and not (parts.is_dir() and len(list(parts.glob("trials-*.parquet"))) >= 2):
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        written = len(list(parts.glob("trials-*.parquet")))
        assert written >= 2
        resumed = run_sweep(config)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        assert 1 <= slow.max_inflight <= 2  # max_concurrency held at the provider: never more requests at once
    trials = pd.read_parquet(tmp_path / "killed" / "trials.parquet")
    keys = {k.key for k in expand(load_config(config))}
    assert sorted(trials.trajectory_id) == sorted(keys)  # every trial exactly once
    assert not (tmp_path / "killed" / "parts").exists() or not list((tmp_path / "killed" / "parts").iterdir())
