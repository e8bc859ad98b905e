"""A monolithic file's span calls and task identity (#47): each call carries an identity that has decided nothing
and sends back only its own simulations' decisions, so what travels to and from a worker does not grow with the
simulations read before it; the run's decisions, merged from the calls, are the stream reader's. Expected values
come from the stream reader (``harness rescore`` made to stream), never from the span path under test."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from envs import ReplayMode
from harness._rescore_chunks import _span_calls, _stream_calls
from harness.rescoring import identity_notes, import_sources
from tests.conftest import harness, real_run

AIRLINE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
STREAM = "import harness._rescore_chunks as c; c._span_calls = c._stream_calls"


def _shuffled(tmp_path: Path, n: int) -> Path:
    """The airline run with every task id moved 7 simulations on (remapped by their evidence, one refused:
    tests/test_task_identity.py), its simulations repeated in order to ``n`` with fresh ids."""
    data = json.loads(real_run(AIRLINE).read_text())
    sims = data["simulations"]
    true_ids = [s["task_id"] for s in sims]
    for s, wrong in zip(sims, true_ids[7:] + true_ids[:7], strict=True):
        s["task_id"] = wrong
    data["simulations"] = [{**sims[i % len(sims)], "id": f"{sims[i % len(sims)]['id']}-{i}"} for i in range(n)]
    path = tmp_path / "shuffled.json"
    path.write_text(json.dumps(data))
    return path


def _decisions(identity) -> tuple:
    return (identity.remapped, identity.refused, identity.how, identity.checked, identity.unproved)


def test_each_span_call_decides_only_its_own_simulations_and_the_run_gets_the_streams_decisions(tmp_path):
    path = _shuffled(tmp_path, 60)
    (streamed,), _ = import_sources([str(path)], None, False)
    for _fn, _args, _rows, _identity in _stream_calls([streamed], None, 8, ReplayMode.LENIENT):
        pass  # the stream decides each simulation on the run's own identity as it reads it
    (run,), _ = import_sources([str(path)], None, False)
    calls = 0
    for fn, args, rows, identity in _span_calls([run], None, 8, ReplayMode.LENIENT):
        light, first, group = args[0], args[4], args[3]
        assert rows is None and identity is run.identity
        assert _decisions(light.identity) == ({}, {}, {}, set(), {})  # nothing decided travels to the call
        assert light.identity.prints is run.identity.prints  # what it decides by: the run's, not a copy
        _rows, _scores, _n, decided = fn(*args)
        assert decided.checked == set(range(first, first + len(group)))  # only its own come back
        assert set(decided.remapped) | set(decided.refused) <= decided.checked
        identity.merge(decided)
        calls += 1
    assert calls == 8
    assert _decisions(run.identity) == _decisions(streamed.identity)
    assert run.identity.refused and len(run.identity.remapped) > 40  # the shuffle was read: not a vacuous match
    assert identity_notes([run]) == identity_notes([streamed])


def test_two_workers_remap_a_shuffled_file_as_the_stream_does(tmp_path):
    path = _shuffled(tmp_path, 150)  # three chunks, on two worker processes
    one = harness("rescore", str(path), "--out", str(tmp_path / "one"), patch=STREAM)
    two = harness("rescore", str(path), "--out", str(tmp_path / "two"), "--workers", "2")
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    notes = [[line for line in p.stdout.splitlines() if "task ids remapped" in line] for p in (one, two)]
    assert len(notes[0]) == 1 and "of 150 simulations" in notes[0][0]
    assert notes[1] == notes[0]
    for name in ("trials", "scores"):
        assert pq.read_table(tmp_path / "one" / f"{name}.parquet").equals(pq.read_table(tmp_path / "two" / f"{name}.parquet"))
