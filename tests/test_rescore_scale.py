"""Rescoring at corpus scale: byte spans read by the workers, rows staged in chunks, the benchmark's
end-to-end figure. Expected values come from the stream reader, ``harness rescore`` made to stream (``STREAM``:
one worker reads spans too), or a hand count; never from the path under test."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from loophole_ingest import SimulationSpans, SpanError
from loophole_ingest._spans import read_spans
from tests.conftest import ROOT, budget_of, harness, real_run
from tests.results_layouts import streamed_simulations

BENCH = ROOT / "benchmarks" / "rescore_bench.py"
RETAIL5 = "whissle_retail_tau3_5sims.json"


def _bench_module():
    spec = importlib.util.spec_from_file_location("rescore_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spanned(path, block):
    spans = SimulationSpans(path, block)
    found = list(spans)
    spans.finish(found[-1][1] if found else None)
    return read_spans(path, spans.start + 1, found, True) if found else []


TRICKY = [
    {"id": "a", "text": 'quote \\" and brace } and ] inside', "n": [1, [2, {"x": "{["}]]},
    {"id": "b\\", "text": "ends in a backslash \\\\", "e": {}},
    {"id": "c", "text": "\\\\\\\" three then an escaped quote, é ü 中文 😀", "l": []},
    {"id": "d", "k": "\\u00e9 escaped, \\ud83d\\ude00 a pair"},
]


@pytest.mark.parametrize("block", [1, 2, 3, 7, 64, 1 << 24])
def test_spans_decode_to_what_the_stream_reads_across_any_block_boundary(tmp_path, block):
    path = tmp_path / "tricky.json"
    # raw JSON text written by hand, with escapes the scanner must step over
    body = ",\n ".join(json.dumps(s, ensure_ascii=False).replace("\\\\u", "\\u") for s in TRICKY)
    path.write_text('{"info": {"a": "[{"}, "simulations": [ ' + body + ' ], "tasks": []}', encoding="utf-8")
    expected = streamed_simulations(path)
    assert len(expected) == 4
    assert _spanned(path, block) == expected


def test_spans_of_a_real_run_equal_the_stream():
    path = real_run("whissle_airline_tau3_1trial.json")
    assert _spanned(path, 1000) == streamed_simulations(path)


@pytest.mark.parametrize("text", [
    '{"info": {}, "simulations": [{"id": "a"} {"id": "b"}]}',  # a missing comma
    '{"info": {}, "simulations": [{"id": "a"},, {"id": "b"}]}',  # two commas
    '{"info": {}, "simulations": [{"id": "a"}, 3]}',  # not an object
    '{"info": {}, "simulations": [{"id": "a", "id": "b"}]}',  # a duplicate key
    '{"info": {}, "simulations": [{"id": "a"}], "simulations": []}',  # a duplicate top-level key
    '{"info": {}, "simulations": [{"id": "a"}]} extra',  # text after the object
    '{"info": {}, "simulations": [{"id": "a"}',  # truncated
    '{"info": {}, "simulations": [{"x": NaN}]}',  # not strict JSON
])
def test_spans_refuse_what_the_stream_refuses(tmp_path, text):
    path = tmp_path / "bad.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SpanError):
        _spanned(path, 5)


def _repeated(tmp_path, n):
    return _bench_module()._repeated_file(real_run(RETAIL5), n, tmp_path / f"repeated-{n}.json")


# run before the CLI: every run read the ordinary way, one simulation at a time (the expected rows and errors)
STREAM = "import harness._rescore_chunks as c; c._span_calls = c._stream_calls"


def test_two_workers_read_spans_and_write_the_rows_one_worker_writes(tmp_path):
    big = _repeated(tmp_path, 200)
    one, two = tmp_path / "one", tmp_path / "two"
    assert harness("rescore", str(big), "--out", str(one), patch=STREAM).returncode == 0
    proc = harness("rescore", str(big), "--out", str(two), "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    for name in ("trials", "scores", "disagreements"):
        a, b = pq.read_table(one / f"{name}.parquet"), pq.read_table(two / f"{name}.parquet")
        assert a.equals(b), name
        assert name == "disagreements" or a.num_rows >= 200  # (the rows agree with the recorded rewards)
    trials = pq.read_table(two / "trials.parquet", columns=["trajectory_id", "reward"]).to_pylist()
    assert len(trials) == 200
    by_index = {int(r["trajectory_id"].split(":")[-2]): r["reward"] for r in trials}
    assert all(by_index[i] == by_index[i % 5] for i in range(200))  # the file is 5 trajectories repeated
    recorded = [s["reward_info"]["reward"] for s in json.loads(real_run(RETAIL5).read_text())["simulations"]]
    assert [by_index[i] for i in range(5)] == recorded == [0.0, 1.0, 0.0, 0.0, 0.0]


def test_two_workers_name_a_bad_simulation_as_one_worker_does(tmp_path):
    big = _repeated(tmp_path, 40)
    text = big.read_text(encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(text.replace('"task_id": "', '"task_id": "no-such-task-', 1), encoding="utf-8")
    one = harness("rescore", str(bad), "--out", str(tmp_path / "one"), patch=STREAM)
    two = harness("rescore", str(bad), "--out", str(tmp_path / "two"), "--workers", "2")
    spans = harness("rescore", str(bad), "--out", str(tmp_path / "spans"))  # one worker: spans read here
    assert one.returncode == two.returncode == spans.returncode != 0
    errors = [[line for line in p.stderr.splitlines() if line.startswith("error: ")] for p in (one, two, spans)]
    assert len(errors[0]) == 1 and "unknown task id 'no-such-task-" in errors[0][0]
    assert errors[1] == errors[2] == errors[0]
    assert not (tmp_path / "two").exists() and not (tmp_path / "spans").exists()


def test_one_worker_reads_spans_in_this_process_and_writes_the_rows_the_stream_writes(tmp_path, monkeypatch):
    import harness as api
    import harness._rescore_chunks as chunks

    big = _repeated(tmp_path, 70)  # two chunks of 64
    assert harness("rescore", str(big), "--out", str(tmp_path / "stream"), patch=STREAM).returncode == 0
    read: list[int] = []
    original = chunks.score_spans
    monkeypatch.setattr(chunks, "score_spans", lambda *args: (read.append(len(args[3])), original(*args))[1])
    api.rescore([big], tmp_path / "spans")
    assert read == [64, 6]  # every simulation read by its span, here
    for name in ("trials", "scores", "disagreements"):
        a, b = pq.read_table(tmp_path / "stream" / f"{name}.parquet"), pq.read_table(tmp_path / "spans" / f"{name}.parquet")
        assert a.equals(b), name


def test_the_benchmark_end_to_end_with_two_workers_ends_with_speedup_and_peak():
    proc = subprocess.run(
        # the airline run's first trajectories are ones stock tau2 scores (on the retail run it raises)
        [sys.executable, str(BENCH), "--file", str(real_run("whissle_airline_tau3_1trial.json")), "--scale", "200",
         "--sample", "2",
         "--workers", "2"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "identical to the engine's and across repetitions 200/200" in out, out
    assert "with workers=2" in out
    # with worker processes the main process's own CPU is measured too, beside its target
    budget = budget_of(out)
    assert all(ms is not None for ms, _ in budget.values()), budget
    last = out.strip().splitlines()[-1]
    match = re.fullmatch(r"speedup=(\d+\.\d) peak_rss_mb=(\d+)", last)
    assert match, last
    assert float(match.group(1)) > 0 and 100 < int(match.group(2)) < 100_000


def _die(*_args):  # a worker killed mid-chunk (the OOM killer, a kill -9)
    import os

    os._exit(9)


def test_a_worker_that_dies_stops_the_rescore_in_one_line_instead_of_hanging(tmp_path, monkeypatch):
    import harness
    import harness._rescore_chunks as chunks

    monkeypatch.setattr(chunks, "score_spans", _die)  # the forked workers inherit it
    with pytest.raises(chunks.WorkerDied, match="a rescore worker process died") as info:
        harness.rescore([real_run(RETAIL5)], tmp_path / "out", workers=2)
    assert info.value.exit_code == 75 and "\n" not in str(info.value)
    assert not (tmp_path / "out").exists()


RAY_SCRIPT = """
import sys
from pathlib import Path
import harness
import harness._rescore_chunks as chunks
from harness.execution import init_ray

calls = []
original = chunks._ray_ordered
chunks._ray_ordered = lambda *a: (calls.append(1), (yield from original(*a)))[1]
init_ray(None, 2)
harness.rescore([sys.argv[1]], Path(sys.argv[2]), workers=2)
print("ray used", len(calls))
"""


def test_a_process_that_runs_ray_rescores_on_it_and_writes_what_one_worker_writes(tmp_path):
    """A Python session that swept first holds Ray, whose threads do not survive a fork: its workers are Ray's."""
    one, two = tmp_path / "one", tmp_path / "two"
    assert harness("rescore", str(real_run(RETAIL5)), "--out", str(one)).returncode == 0
    proc = subprocess.run([sys.executable, "-c", RAY_SCRIPT, str(real_run(RETAIL5)), str(two)],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ray used 1" in proc.stdout
    for name in ("trials", "scores"):
        assert pq.read_table(one / f"{name}.parquet").equals(pq.read_table(two / f"{name}.parquet")), name


def test_worker_processes_are_at_most_the_cores_this_process_may_use():
    import os

    from harness._rescore_chunks import pool_size

    cores = len(os.sched_getaffinity(0))
    assert pool_size(1) == 1
    assert pool_size(10**14) == cores  # --workers is checked against Ray's limit, not started as processes
    assert pool_size(2) == min(2, cores)


@pytest.mark.parametrize("enabled", [True, False])
def test_reading_spans_leaves_the_garbage_collector_as_it_found_it(tmp_path, enabled):
    import gc

    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text('{"info": {}, "simulations": [{"id": "a"}, {"id": "b"}]}', encoding="utf-8")
    bad.write_text('{"info": {}, "simulations": [{"id": "a", "id": "b"}]}', encoding="utf-8")
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        assert len(_spanned(good, 5)) == 2
        assert gc.isenabled() is enabled
        with pytest.raises(SpanError):
            _spanned(bad, 5)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_reading_simulations_validates_as_identified_does_with_the_collector_paused(monkeypatch):
    import gc

    import loophole_ingest._spans as spans_module
    from harness.rescoring import import_sources
    from loophole_ingest import read_simulations
    from loophole_ingest._identity import identified

    path = real_run("whissle_airline_tau3_1trial.json")
    (run,), _ = import_sources([str(path)], None, False)
    found = SimulationSpans(path)
    group = list(found)[:6]
    expected = [identified(run, k, raw) for k, raw in enumerate(read_spans(path, found.start + 1, group, True))]
    collector_on = []

    def watched(*args):  # the validation sees the collector paused, and answers as it does unpaused
        collector_on.append(gc.isenabled())
        return identified(*args)

    monkeypatch.setattr(spans_module, "identified", watched)
    was = gc.isenabled()
    try:
        gc.enable()
        assert read_simulations(run, found.start + 1, group, 0) == expected
        assert collector_on == [False] * len(group)
        assert gc.isenabled()  # left as found
        monkeypatch.setattr(spans_module, "identified", lambda *a: (_ for _ in ()).throw(
            spans_module.HarnessInputError("bad")))
        with pytest.raises(SpanError):
            read_simulations(run, found.start + 1, group, 0)
        assert gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_the_budget_table_judges_a_step_as_it_prints_it():
    """A step a hair over its target that prints as the target is within it, as a reader of the table sees it
    (the end-to-end test above reads the printed figure; the table had judged the unrounded one: OVER)."""
    from tests.conftest import budget_of, rescore_bench

    bench = rescore_bench()
    measured = dict(bench.TARGETS_MS)
    measured["strict"] += 0.00004  # prints as the target
    measured["variants"] += 0.0006  # prints over it
    out = "\n".join(bench.budget_table(measured, None))
    budget = budget_of(out)  # every line's verdict agrees with its printed figure
    assert budget[bench.STEP_NAMES.get("strict", "strict")][0] == bench.TARGETS_MS["strict"]
    strict, variants = bench.TARGETS_MS["strict"], bench.TARGETS_MS["variants"]
    assert f"| strict | {strict:.3f} | {strict:.3f} | yes |" in out
    assert f"| variants | {variants + 0.001:.3f} | {variants:.3f} | OVER |" in out
