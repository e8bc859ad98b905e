"""The Parquet store: old schemas, duplicates within a batch, replaced score sets, compaction of attempts."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

import loophole_store as store


def _trial(tid: str, status: str = "ok", reward: float | None = 1.0) -> dict:
    return {"run_id": "r", "trajectory_id": tid, "task_id": "1", "status": status, "reward": reward, "messages_json": "[]"}


def _score(tid: str, gold: str, reward: float = 1.0) -> dict:
    return {"run_id": "r", "trajectory_id": tid, "task_id": "1", "gold_id": gold, "reward": reward}


def test_upsert_into_an_older_schema(tmp_path):
    table = store.to_table([_trial("a")], store.TRIALS_SCHEMA).drop_columns(["agent_name", "intended_gold_id"])
    pq.write_table(table, tmp_path / "trials.parquet")
    out = store.upsert_rows(tmp_path, "trials", [_trial("b")])
    assert out.column("trajectory_id").to_pylist() == ["a", "b"] and "agent_name" in out.column_names


def test_duplicates_within_a_batch_keep_the_last(tmp_path):
    out = store.upsert_rows(tmp_path, "scores", [_score("a", "gold", 0.0), _score("a", "gold", 1.0)])
    assert out.num_rows == 1 and out.column("reward").to_pylist() == [1.0]


def test_replaced_trajectories_drop_stale_variant_rows(tmp_path):
    store.upsert_rows(tmp_path, "scores", [_score("a", "gold"), _score("a", "L6.refuse"), _score("b", "gold")])
    out = store.upsert_rows(tmp_path, "scores", [_score("a", "gold", 0.0)], replace_trajectories=["a"])
    rows = {(r["trajectory_id"], r["gold_id"]): r["reward"] for r in out.to_pylist()}
    assert rows == {("a", "gold"): 0.0, ("b", "gold"): 1.0}


def test_compaction_keeps_the_latest_attempt_and_its_scores(tmp_path):
    store.write_part(tmp_path, [_trial("a")], [_score("a", "gold"), _score("a", "L6.refuse")], 1)
    store.write_part(tmp_path, [_trial("a", "error", None)], [], 2)  # a later attempt that failed to score
    store.write_part(tmp_path, [_trial("b")], [_score("b", "gold")], 3)
    pq.write_table(store.to_table([_score("c", "gold")], store.SCORES_SCHEMA),
                   tmp_path / "parts" / "scores-99999999999999999999-1-000009.parquet")  # killed before its trials
    store.compact(tmp_path)
    trials = store.read_table(tmp_path, "trials").set_index("trajectory_id")
    scores = store.read_table(tmp_path, "scores")
    assert trials.loc["a", "status"] == "error" and set(trials.index) == {"a", "b"}
    assert set(zip(scores.trajectory_id, scores.gold_id, strict=True)) == {("b", "gold")}
    assert not (tmp_path / "parts").exists()  # folded in, and the empty folder removed (#48)


def test_reading_folds_parts_in_memory_and_writes_nothing(tmp_path):
    """``harness analyze`` on a running sweep: the parts count, and the run directory is left as it was."""
    store.write_part(tmp_path, [_trial("a")], [_score("a", "gold")], 1)
    store.compact(tmp_path)
    store.write_part(tmp_path, [_trial("b"), _trial("a", "infra_error", None)], [_score("b", "gold")], 2)
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    trials, scores = store.read_tables(tmp_path, "trials", "scores")
    assert dict(zip(trials.trajectory_id, trials.status, strict=True)) == {"a": "infra_error", "b": "ok"}
    assert set(scores.trajectory_id) == {"b"}  # a's later attempt left no scores of the earlier one
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before


def test_resume_runs_infra_errors_errors_and_judge_errors_again_but_not_agent_failures(tmp_path):
    statuses = ["ok", "no_judge", "agent_error", "replay_divergence", "infra_error", "error", "judge_error"]
    store.write_part(tmp_path, [_trial(s, s) for s in statuses], [], 1)
    store.compact(tmp_path)
    assert store.finished_keys(tmp_path) == {"ok", "no_judge", "agent_error", "replay_divergence"}


def test_a_compaction_never_splits_a_part_from_its_scores(tmp_path, monkeypatch):
    """write_part holds the run's lock: a compaction that starts between its two files waits for both."""
    import threading
    import time

    import loophole_store._tables as tables

    entered = threading.Event()
    real = tables.atomic_write_table

    def slow_write(table, dest):  # widen the window between the scores file and the trials file
        real(table, dest)
        if dest.name.startswith("scores-"):
            entered.set()
            time.sleep(0.5)

    monkeypatch.setattr(tables, "atomic_write_table", slow_write)  # the binding write_part calls
    writer = threading.Thread(target=store.write_part, args=(tmp_path, [_trial("a")], [_score("a", "gold")], 1))
    writer.start()
    assert entered.wait(5), "the slowed write was never reached: the test would not test the lock"
    store.compact(tmp_path)  # from another thread: must wait for the part to be whole
    writer.join()
    monkeypatch.undo()
    store.compact(tmp_path)
    assert set(store.read_table(tmp_path, "scores").trajectory_id) == {"a"}


def test_atomic_write_leaves_the_old_file_when_the_writer_fails(tmp_path):
    import pytest

    from loophole_base import atomic_write, atomic_write_text

    dest = tmp_path / "x.json"
    atomic_write_text(dest, "old")

    def broken(fh):
        fh.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        atomic_write(dest, broken)
    assert dest.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_open_run_reads_tables_parts_and_provenance(tmp_path):
    import pytest

    from gold_variants import catalog_sha256
    from loophole_base import HarnessInputError

    store.upsert_rows(tmp_path, "trials", [_trial("a")])
    store.upsert_rows(tmp_path, "scores", [_score("a", "gold")])
    store.write_part(tmp_path, [_trial("b", reward=0.0)], [_score("b", "gold", 0.0)], 1)  # a running sweep
    store.record_run(tmp_path, store.run_info("rescore", {("airline", "tau2")}, None))
    run = store.open_run(tmp_path)
    assert sorted(run.trials.trajectory_id) == ["a", "b"] and len(run.scores) == 2
    assert run.info is not None and run.info["catalog_sha256"] == catalog_sha256()
    assert (tmp_path / "parts").is_dir()  # reading never compacts
    with pytest.raises(HarnessInputError, match="no trials.parquet"):
        store.open_run(tmp_path / "nothing")


def test_to_table_reads_rows_with_every_column_as_rows_without_some():
    """Full rows (the row builders') are picked in one pass; a row lacking a column makes the whole batch read
    column by column, the missing one null: both give the table of the rows' own values."""
    full = [store.trial_row(**{**_trial(t), "flags": [t], "n_messages": i}) for i, t in enumerate("ab")]
    table = store.to_table(full, store.TRIALS_SCHEMA)
    assert table.to_pylist() == [{n: r[n] for n in store.TRIALS_SCHEMA.names} for r in full]
    partial = store.to_table([*full, _trial("c")], store.TRIALS_SCHEMA).to_pylist()
    assert partial[:2] == table.to_pylist() and partial[2]["flags"] is None and partial[2]["status"] == "ok"


def test_staged_chunks_out_of_key_order_are_sorted_and_in_order_kept(tmp_path):
    """A chunk whose keys do not strictly ascend (reversed, repeated, or null) is sorted before it is staged;
    one that ascends is staged as it came: the committed tables are in key order either way."""
    chunks = [
        ([_trial("b"), _trial("a")], [_score("b", "gold"), _score("a", "x"), _score("a", "gold")]),
        ([_trial("c"), _trial("d")], [_score("c", "gold"), _score("d", "gold")]),
    ]
    with store.StagedTables() as staged:
        for trial_rows, score_rows in chunks:
            staged.add(trial_rows, score_rows)
        staged.commit(tmp_path)
    trials = pq.read_table(tmp_path / "trials.parquet")
    scores = pq.read_table(tmp_path / "scores.parquet")
    assert trials.column("trajectory_id").to_pylist() == ["a", "b", "c", "d"]
    assert list(zip(scores.column("trajectory_id").to_pylist(), scores.column("gold_id").to_pylist(), strict=True)) == [
        ("a", "gold"), ("a", "x"), ("b", "gold"), ("c", "gold"), ("d", "gold")]


def test_staged_tables_reach_a_new_run_linked_on_one_file_system_and_copied_across_two(tmp_path, monkeypatch):
    """A new run's tables are the staged files themselves, hard-linked into the run (no copy), where the staging
    folder is on the run's file system; where a link is refused (another file system) they are copied: the same
    bytes either way, mode 0644, and no temporary file left in the run."""
    import errno
    import os

    def commit(run: Path) -> dict[str, tuple[bytes, int]]:
        with store.StagedTables() as staged:
            staged.add([_trial("a"), _trial("b")], [_score("a", "gold"), _score("b", "gold")])
            staged.commit(run)
            return {name: ((run / f"{name}.parquet").read_bytes(), (staged.dir / f"{name}.parquet").stat().st_ino)
                    for name in ("trials", "scores")}

    linked = commit(tmp_path / "linked")

    def refused(src: object, dst: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", refused)
    copied = commit(tmp_path / "copied")
    for name in ("trials", "scores"):
        assert linked[name][0] == copied[name][0] and pq.read_table(tmp_path / "linked" / f"{name}.parquet").num_rows
        assert (tmp_path / "linked" / f"{name}.parquet").stat().st_ino == linked[name][1]  # the staged file itself
        assert (tmp_path / "copied" / f"{name}.parquet").stat().st_ino != copied[name][1]
        for run in ("linked", "copied"):
            assert (tmp_path / run / f"{name}.parquet").stat().st_mode & 0o777 == 0o644
    for run in ("linked", "copied"):
        assert not [p.name for p in (tmp_path / run).iterdir() if p.name.endswith(".tmp")]
