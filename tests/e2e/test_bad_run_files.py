"""Bad files, one line each (#42 item 5): a corrupt Parquet file in a run folder, for every verb that reads
one, and ``rescore FOLDER --skip-bad`` skipping the unreadable results files and listing them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import harness


def _truncated(path: Path) -> None:
    """Cut to its first 300 bytes (no footer), as a full disk or a killed copy leaves it."""
    path.write_bytes(path.read_bytes()[:300])


def _garbled(path: Path) -> None:
    """The footer intact, the column data overwritten: pyarrow opens it and fails decoding a page."""
    data = bytearray(path.read_bytes())
    for i in range(200, len(data) // 2, 7):
        data[i] = 0xAB
    path.write_bytes(bytes(data))


CASES = {  # every verb that reads a run folder, with its arguments (RUN: the run, OUT: a fresh path), the table
    # damaged and how; each damage and each table is met by several verbs (one process per case: seconds each)
    "analyze": (["analyze", "RUN", "--bootstrap", "100"], "trials", _truncated),
    "report": (["report", "RUN", "--out", "OUT/r.html"], "scores", _garbled),
    "view": (["view", "RUN", "--out", "OUT/site"], "scores", _truncated),
    "explain": (["explain", "RUN", "00000"], "trials", _garbled),
    "rescore into it": (["rescore", "RESULTS", "--out", "RUN"], "trials", _truncated),  # refused before scoring
    "leaderboard into it": (["leaderboard", "RESULTS", "--out", "RUN"], "scores", _garbled),  # at the merge
}


@pytest.mark.parametrize("verb", list(CASES))
def test_a_corrupt_parquet_file_is_one_line_naming_it(two_trial_run, tmp_path, verb):
    results, run = two_trial_run
    args, table, damage = CASES[verb]
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    damage(copy / f"{table}.parquet")
    before = (copy / f"{table}.parquet").read_bytes()
    args = [a.replace("RUN", str(copy)).replace("RESULTS", str(results)).replace("OUT", str(tmp_path)) for a in args]
    proc = harness(*args)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert lines[0].startswith(f"error: {copy / f'{table}.parquet'}: not a readable Parquet file ("), lines[0]
    assert (copy / f"{table}.parquet").read_bytes() == before  # refused, never overwritten


@pytest.fixture
def folder(two_trial_run, tmp_path) -> tuple[Path, list[Path]]:
    """A folder of results files: one good, one not JSON, one without simulations (in a subfolder)."""
    results, _ = two_trial_run
    (tmp_path / "in" / "sub").mkdir(parents=True)
    shutil.copy(results, tmp_path / "in" / "good.json")
    bad = [tmp_path / "in" / "a_not_json.json", tmp_path / "in" / "sub" / "no_simulations.json"]
    bad[0].write_text("{not json")
    raw = json.loads(results.read_text())
    del raw["simulations"]
    bad[1].write_text(json.dumps(raw))
    return tmp_path / "in", bad


def test_rescore_folder_stops_at_the_first_bad_file_in_one_line(folder, tmp_path):
    path, bad = folder
    proc = harness("rescore", str(path), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad[0]}: not valid JSON"), proc.stderr
    assert not (tmp_path / "out").exists()


def test_rescore_folder_skip_bad_skips_and_lists_the_bad_files(folder, tmp_path, two_trial_run):
    path, bad = folder
    proc = harness("rescore", str(path), "--out", str(tmp_path / "out"), "--skip-bad")
    assert proc.returncode == 0, proc.stderr
    skipped = [line for line in proc.stdout.splitlines() if line.startswith("skipped: ")]
    assert [s.split(": ")[1] for s in skipped] == [str(b) for b in bad], proc.stdout
    assert "missing field 'simulations'" in skipped[1]
    trials = pd.read_parquet(tmp_path / "out" / "trials.parquet")
    expected = pd.read_parquet(two_trial_run[1] / "trials.parquet")
    assert sorted(trials.trajectory_id) == sorted(expected.trajectory_id)


def test_rescore_skip_bad_with_every_file_bad_is_one_line(folder, tmp_path):
    path, bad = folder
    (path / "good.json").unlink()
    proc = harness("rescore", str(path), "--out", str(tmp_path / "out"), "--skip-bad")
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith(f"error: no results file to rescore: all 2 files skipped; first: {bad[0]}")
    assert not (tmp_path / "out").exists()


def test_rescore_refuses_a_corrupt_out_before_scoring_anything(two_trial_run, tmp_path):
    """A table without its footer is refused when --out is checked, before a trajectory is scored (a large
    rescore would otherwise fail only when it merges its rows)."""
    import harness as api
    from loophole_base import HarnessInputError

    results, run = two_trial_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    _truncated(copy / "scores.parquet")
    scored: list[int] = []
    with pytest.raises(HarnessInputError, match=r"scores\.parquet: not a readable Parquet file \("):
        api.rescore([results], copy, on_progress=lambda n, total: scored.append(n))
    assert scored == []
