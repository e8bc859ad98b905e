"""``harness explain`` on a rescored subset of a real run: the evidence marked at its message."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import loophole_store as store
from conversation_reading import EXPLANATION_SCHEMA_VERSION, RECORD_SCHEMA_VERSION
from harness import rescore
from loophole_report._links import page_name
from tests.conftest import harness, real_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """whissle's tau3 airline run cut to tasks 2 and 29 (both refused a credit by a precondition)."""
    raw = json.loads(real_run("whissle_airline_tau3_1trial.json").read_text())
    raw["simulations"] = [s for s in raw["simulations"] if s["task_id"] in ("2", "29")]
    raw.pop("simulation_index", None)
    base = tmp_path_factory.mktemp("explain")
    (base / "whissle_2_29.json").write_text(json.dumps(raw))
    rescore([base / "whissle_2_29.json"], base / "run")  # in process: the tests' point is explain's CLI
    return base / "run"


def _trajectory(run_dir: Path, task_id: str) -> str:
    trials = pd.read_parquet(run_dir / "trials.parquet")
    return trials[trials.task_id == task_id].trajectory_id.item()


@pytest.fixture(scope="module")
def explained_29(run_dir) -> subprocess.CompletedProcess[str]:
    """``harness explain`` of task 29's trajectory, run once: three tests read its output (each CLI call costs a
    second of start-up, and the output is the same)."""
    return harness("explain", str(run_dir), _trajectory(run_dir, "29"))


def test_explain_marks_the_failed_precondition_and_the_evidence(explained_29):
    proc = explained_29
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "L16.modify_in_place does not credit" in out
    assert "precondition no_prior_decline: failed" in out
    # the decline is marked at its message, and quoted in full there
    marked = [line for line in out.splitlines() if line.startswith("▶   8 assistant")]
    assert marked and "you cannot change the origin, destination, or trip type" in marked[0]
    assert "↳ L16.refuse: declines, naming changing origin or destination" in out


def test_explain_a_compensation_offered_unasked(run_dir):
    simulation_id = _trajectory(run_dir, "2").rsplit(":", 1)[
        1
    ]  # a unique part of the id also works
    proc = harness("explain", str(run_dir), simulation_id)
    assert proc.returncode == 0, proc.stderr
    assert (
        "precondition user_asked_compensation: failed - the agent raised compensation at message 22"
        in proc.stdout
    )
    assert "precondition delay_confirmed: held" in proc.stdout


def test_explain_unknown_trajectory_is_a_one_line_error(run_dir):
    proc = harness("explain", str(run_dir), "no-such-trajectory")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "trajectory_id 'no-such-trajectory': not found" in proc.stderr


def test_explain_prints_the_record(explained_29):
    proc = explained_29
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"record (schema version {RECORD_SCHEMA_VERSION})" in out
    # only the domain's writes are requests (the catalog's words cover retail too)
    assert "  requests: update_reservation_flights at message 1; book_reservation at message 3; update_reservation_baggages at message 17\n" in out
    assert ("  decline at message 8 on refuse_route_change: 'Please note that you cannot change the origin, "
            "destination, or trip type.'") in out
    assert "  write at message 18: update_reservation_flights(" in out
    assert "): confirmed (user at message 17: 'Yes, please go ahead and change my reservation to those flights." in out
    assert "  write at message 20: update_reservation_baggages(" in out
    assert ("  claim at message 16 of a quoted total against the flights' prices: 'The total cost for these new flights "
            "is $282.': not contradicted by what was read; the user acted on it") in out
    assert "  the user's decision: ended at message 23, resting on the agent's message 22" in out


def _edited_run(run_dir: Path, tmp_path: Path, record_json) -> Path:
    """A copy of the run whose trials' ``record_json`` is ``record_json(old)`` (None: the column dropped)."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    table = pq.read_table(copy / "trials.parquet")
    at = table.schema.get_field_index("record_json")
    if record_json is None:
        table = table.remove_column(at)
    else:
        values = [record_json(v) for v in table.column("record_json").to_pylist()]
        table = table.set_column(at, "record_json", pa.array(values, pa.string()))
    pq.write_table(table, copy / "trials.parquet")
    return copy


def _record_lines(out: str) -> list[str]:
    lines = out.split(f"record (schema version {RECORD_SCHEMA_VERSION})\n", 1)[1].splitlines()
    return lines[: lines.index("")]


def test_explain_an_old_run_rebuilds_the_record_and_refuses_another_version(run_dir, explained_29, tmp_path):
    """A rescored run stores the record its verdicts read, the one explain rebuilds for a run written before the
    column; a stored record is printed as stored, and one of another schema version is refused in one line."""
    from loophole_scoring import stored_record

    rebuilt_here = explained_29
    assert rebuilt_here.returncode == 0, rebuilt_here.stderr
    old = _edited_run(run_dir, tmp_path / "old", None)
    rebuilt = harness("explain", str(old), _trajectory(run_dir, "29"))
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert _record_lines(rebuilt.stdout) == _record_lines(rebuilt_here.stdout)

    def stored_without_declines(_: object) -> str:  # the stored record, edited to tell it apart
        trial = store.read_table(run_dir, "trials").set_index("task_id").loc["29"]
        record = stored_record(None, json.loads(trial.messages_json), trial.domain, trial.task_version, "29")
        assert record.declines
        return record.model_copy(update={"declines": []}).model_dump_json()

    stored = _edited_run(run_dir, tmp_path / "stored", stored_without_declines)
    printed = _record_lines(harness("explain", str(stored), _trajectory(run_dir, "29")).stdout)
    assert printed == [line for line in _record_lines(rebuilt_here.stdout) if not line.startswith("  decline at")]
    assert printed != _record_lines(rebuilt_here.stdout)

    newer = _edited_run(run_dir, tmp_path / "newer", lambda v: json.dumps({"schema_version": RECORD_SCHEMA_VERSION + 1}))
    proc = harness("explain", str(newer), _trajectory(run_dir, "29"))
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith("error: ")
    assert (f"trials.parquet: field 'record_json': record schema version {RECORD_SCHEMA_VERSION + 1}; "
            f"this harness reads version {RECORD_SCHEMA_VERSION}") in line


def test_explain_refuses_an_explanation_of_another_version_in_one_line(run_dir, tmp_path):
    """A stored explanation of version 1 (no ``schema_version``, the doubts joined): one line, exit 2."""
    import shutil

    import pyarrow as pa
    import pyarrow.parquet as pq

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    table = pq.read_table(copy / "scores.parquet")
    at = table.schema.get_field_index("explanation_json")
    old = [None if v is None else json.dumps({k: x for k, x in json.loads(v).items() if k != "schema_version"})
           for v in table.column("explanation_json").to_pylist()]
    pq.write_table(table.set_column(at, "explanation_json", pa.array(old, pa.string())), copy / "scores.parquet")
    proc = harness("explain", str(copy), _trajectory(run_dir, "29"))
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith("error: ")
    assert ("scores.parquet: field 'explanation_json': explanation schema version 1; this harness reads version "
            f"{EXPLANATION_SCHEMA_VERSION}") in line


def test_explain_an_ambiguous_id_lists_the_candidates(run_dir):
    """A part of an id that several trajectories share: one line naming each, with what tells them apart."""
    trials = pd.read_parquet(run_dir / "trials.parquet")
    shared = trials.trajectory_id.iloc[0].split(":", 1)[0]  # the results file's hash: every trajectory has it
    assert trials.trajectory_id.str.startswith(shared).all() and len(trials) == 2
    proc = harness("explain", str(run_dir), shared)
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert "\n" not in line and line.startswith(f"error: {run_dir / 'trials.parquet'}: trajectory_id {shared!r}: "
                                                "matches 2 trajectories, give more of the id: ")
    for t in trials.itertuples():
        assert (f"{t.trajectory_id} (agent {t.agent_name}, {t.domain} {t.task_version} task {t.task_id}, "
                f"trial {t.trial}, file whissle_2_29.json)") in line


@pytest.fixture(scope="module")
def site(run_dir, tmp_path_factory) -> Path:
    """The run's trial viewer (``harness view``)."""
    out = tmp_path_factory.mktemp("site") / "site"
    proc = harness("view", str(run_dir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_explain_says_why_the_single_gold_fails_as_the_viewer_does(run_dir, site):
    trajectory = _trajectory(run_dir, "2")
    proc = harness("explain", str(run_dir), trajectory)
    assert proc.returncode == 0, proc.stderr
    assert "why the single gold fails (reward 0.0):" in proc.stdout
    said = re.findall(r"^  database record (\S+) differs from the gold's:$", proc.stdout, re.M)
    assert said, proc.stdout
    page = (site / page_name(trajectory)).read_text()
    gold = page[page.index('id="gold-gold"'):]
    gold = gold[: gold.index("</section>")]
    assert re.findall(r"<p>Record <code>([^<]+)</code> differs:</p>", gold) == said


def test_the_viewer_index_shows_the_trajectory_id_and_strict(tmp_path):
    """Every trial's row carries the id ``explain`` takes and its strict verdict beside single gold: on
    toolorchestra's retail tasks 44 and 103 (single gold passes, strict fails: a write without the user's yes)
    and 12 (a broken gold: strict unknown). The file names them 87, 33 and 38 (its ids are remapped, #36)."""
    raw = json.loads(real_run("toolorchestra_retail_tau2_1trial.json").read_text())
    raw["simulations"] = [s for s in raw["simulations"] if s["task_id"] in ("33", "38", "87")]
    raw.pop("simulation_index", None)
    (tmp_path / "t.json").write_text(json.dumps(raw))
    assert harness("rescore", str(tmp_path / "t.json"), "--out", str(tmp_path / "run")).returncode == 0
    proc = harness("view", str(tmp_path / "run"), "--out", str(tmp_path / "site"))
    assert proc.returncode == 0, proc.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<th>strict</th><th>single gold</th>" in index and "<th>trajectory id</th>" in index
    rows = {tid: (strict, single) for strict, single, tid in re.findall(
        r'data-strict="(\w+)" data-single="(\w+)".*?<code class="tid">([^<]+)</code></td></tr>', index)}
    trials = pd.read_parquet(tmp_path / "run" / "trials.parquet")
    word = {1.0: "pass", 0.0: "fail"}
    assert rows == {t.trajectory_id: (word.get(t.strict_reward, "unscored"), word[t.reward])
                    for t in trials.itertuples()}
    assert sorted(rows.values()) == [("fail", "pass"), ("fail", "pass"), ("unscored", "pass")]  # strict apart
