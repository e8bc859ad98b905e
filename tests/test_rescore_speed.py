"""The rescoring speed work: the record copy the replay engine makes, the database load, and the benchmark."""

from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

import pytest
from pydantic import BaseModel, PrivateAttr

from envs import environment_constructor
from envs._tracked import _deep_copy
from loophole_base import gc_paused
from tests.conftest import ROOT, budget_of, real_run, rescore_bench

BENCH = ROOT / "benchmarks" / "rescore_bench.py"
ATOMS = (str, int, float, bool, type(None))


def _same_tree(copied, original, shared: list) -> None:
    """Same types, values and fields_set everywhere, and no mutable part shared with the original."""
    assert type(copied) is type(original)
    if isinstance(original, ATOMS):
        assert copied == original
        return
    if copied is original:
        shared.append(original)
    if isinstance(original, BaseModel):
        assert copied.__pydantic_fields_set__ == original.__pydantic_fields_set__
        assert copied.__pydantic_extra__ == original.__pydantic_extra__
        assert copied.__dict__.keys() == original.__dict__.keys()
        for key, value in original.__dict__.items():
            _same_tree(copied.__dict__[key], value, shared)
    elif isinstance(original, dict):
        assert list(copied) == list(original)
        for key, value in original.items():
            _same_tree(copied[key], value, shared)
    else:
        assert isinstance(original, list), type(original)
        assert len(copied) == len(original)
        for c, o in zip(copied, original, strict=True):
            _same_tree(c, o, shared)


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_the_record_copy_is_a_deep_copy_of_every_record(domain):
    db = environment_constructor(domain)().tools.db
    records = [r for table in db.__dict__.values() for r in table.values()]
    assert len(records) > 500
    shared: list = []
    for record in records:
        copied = _deep_copy(record)
        assert copied == record.model_copy(deep=True)
        _same_tree(copied, record, shared)
    assert shared == []  # a write to a copy never reaches the pristine record


def test_the_record_copy_leaves_private_state_to_pydantic():
    class WithPrivate(BaseModel):
        items: list[int]
        _seen: list[int] = PrivateAttr(default_factory=list)

    record = WithPrivate(items=[1, 2])
    record._seen.append(3)
    copied = _deep_copy({"r": record})["r"]
    assert copied._seen == [3] and copied._seen is not record._seen
    assert copied.items == [1, 2] and copied.items is not record.items


@pytest.mark.parametrize("was_enabled", [True, False])
def test_the_collector_is_paused_only_while_a_database_loads(was_enabled):
    (gc.enable if was_enabled else gc.disable)()
    try:
        with pytest.raises(RuntimeError, match="mid-load"):
            with gc_paused():
                assert not gc.isenabled()
                raise RuntimeError("mid-load")
        assert gc.isenabled() is was_enabled
    finally:
        gc.enable()


def _bench(*args: str, patch: str = "", run: str = "whissle_retail_tau3_5sims.json") -> subprocess.CompletedProcess:
    """The benchmark's main in a child process, with ``patch`` applied to its module first."""
    script = textwrap.dedent(f"""
        import importlib.util, sys
        spec = importlib.util.spec_from_file_location("bench", {str(BENCH)!r})
        bench = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(bench)
    """) + textwrap.dedent(patch) + f"\nbench.main(bench.Path({str(real_run(run))!r}), {args[0]}, {args[1]})\n"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)


def test_the_benchmark_at_scale_prints_the_three_figures_and_the_speedup_last():
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--file", str(real_run("whissle_airline_tau3_1trial.json")),
         "--scale", "12", "--sample", "2"],
        capture_output=True, text=True, timeout=300, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "repeated to N=12" in out and "sample of 2" in out and "extrapolated linearly" in out
    assert "ours identical across repetitions: 12/12" in out
    for figure in ("warm ratio (per trajectory, load excluded): ", "one-time load: ", "end-to-end ratio at N=12"):
        assert figure in out, out
    assert "pipeline end-to-end ratio at N=12" in out, out
    budget, bench = budget_of(out), rescore_bench()
    # one worker: the main process scores too, so its own share is not measured apart (but it is listed)
    assert budget.pop(bench.STEP_NAMES["main"]) == (None, bench.MAIN_TARGET_MS)
    for name, (ms, target) in budget.items():
        assert ms is not None and ms >= 0 and target > 0, name
    last = out.strip().splitlines()[-1]
    speedup, peak = last.split(" ")
    assert speedup.startswith("speedup=") and float(speedup.removeprefix("speedup=")) > 0
    assert peak.startswith("peak_rss_mb=") and int(peak.removeprefix("peak_rss_mb=")) > 0


REPETITION_DRIFT = """
    real, calls = bench.score_trajectory, []
    def drifting(sim, task, engine, **options):
        score = real(sim, task, engine, **options)
        calls.append(1)
        if len(calls) == 53:  # the 53rd of 60: a repetition of the run's 3rd trajectory (it has 50)
            score.single_gold.reward = 1.0 - (score.single_gold.reward or 0.0)
        return score
    bench.score_trajectory = drifting
"""
STOCK_DRIFT = """
    real = bench.evaluate_simulation
    def drifting(*args):
        info = real(*args)
        info.reward = 0.5
        return info
    bench.evaluate_simulation = drifting
"""


STOCK_RAISES = """
    def raising(*args):
        raise ValueError("version noise")
    bench.evaluate_simulation = raising
"""


# The airline run's first trajectories are ones stock tau2 scores (on the retail run it raises on the first two).
@pytest.mark.parametrize(("patch", "says"), [
    (REPETITION_DRIFT, "differ across repetitions at 1 of 60"),
    (STOCK_DRIFT, "differ from stock tau2 on"),
    (STOCK_RAISES, "nothing to compare"),
])
def test_the_benchmark_fails_loudly_when_rewards_differ(patch, says):
    proc = _bench("60", "2", patch=patch, run="whissle_airline_tau3_1trial.json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert len(errors) == 1 and says in errors[0], proc.stderr
    assert "speedup=" not in proc.stdout
