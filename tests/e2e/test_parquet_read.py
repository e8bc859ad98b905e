"""``read_parquet`` reads a plain file through ``pq.ParquetFile`` (no ``pyarrow.dataset`` import, #47): the table
``pq.read_table`` gives, and the one-line error ``unreadable`` makes of ``pq.read_table``'s exception, on a real
rescored run's tables, damaged copies of them, a folder of them and a path that is gone."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from loophole_base import HarnessInputError
from loophole_store._parquet import read_parquet, unreadable


def _as_read_table(path: Path, columns: list[str] | None) -> pa.Table | str:
    """What ``read_parquet`` answered when it always called ``pq.read_table``: the table, or its error line."""
    try:
        return pq.read_table(path, columns=columns)
    except (pa.ArrowException, OSError) as exc:
        return str(unreadable(path, exc))


def _ours(path: Path, columns: list[str] | None) -> pa.Table | str:
    try:
        return read_parquet(path, columns=columns)
    except HarnessInputError as exc:
        return str(exc)


def _same(ours: pa.Table | str, theirs: pa.Table | str) -> bool:
    if isinstance(ours, str) or isinstance(theirs, str):
        return ours == theirs
    return ours.equals(theirs, check_metadata=True) and ours.column_names == theirs.column_names


def _truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:300])  # no footer


def _garbled(path: Path) -> None:
    data = bytearray(path.read_bytes())  # the footer intact, the column data overwritten
    for i in range(200, len(data) // 2, 7):
        data[i] = 0xAB
    path.write_bytes(bytes(data))


def _emptied(path: Path) -> None:
    path.write_bytes(b"")


def _tables(run: Path) -> list[Path]:
    found = sorted(run.glob("*.parquet"))
    assert {p.stem for p in found} >= {"trials", "scores"}, found
    return found


def _columns(path: Path) -> list[list[str] | None]:
    names = pq.read_schema(path).names
    return [None, names[::-1][:3], [names[-1], "no_such_column"]]  # all, some out of file order, one unknown


def test_a_run_s_tables_read_as_read_table_reads_them(two_trial_run):
    _, run = two_trial_run
    for path in _tables(run):
        for columns in _columns(path):
            ours, theirs = _ours(path, columns), _as_read_table(path, columns)
            assert _same(ours, theirs), (path.name, columns, ours if isinstance(ours, str) else ours.schema)
            if columns is None:
                assert isinstance(ours, pa.Table) and ours.num_rows > 0 or path.stem == "disagreements"


@pytest.mark.parametrize("damage", [_truncated, _garbled, _emptied])
def test_a_damaged_table_is_the_same_one_line(two_trial_run, tmp_path, damage):
    _, run = two_trial_run
    for path in _tables(run):
        copy = tmp_path / path.name
        shutil.copyfile(path, copy)
        damage(copy)
        for columns in _columns(path):
            ours, theirs = _ours(copy, columns), _as_read_table(copy, columns)
            assert isinstance(theirs, str) or damage is _garbled, (path.name, columns)
            assert _same(ours, theirs), (path.name, columns, ours, theirs)


def test_a_folder_and_a_path_that_is_gone_read_as_before(two_trial_run, tmp_path):
    _, run = two_trial_run
    folder = tmp_path / "trials.parquet"  # a folder of parts: read_table reads it as one dataset
    folder.mkdir()
    shutil.copyfile(run / "trials.parquet", folder / "part-0.parquet")
    shutil.copyfile(run / "trials.parquet", folder / "part-1.parquet")
    ours = _ours(folder, None)
    assert _same(ours, _as_read_table(folder, None))
    assert isinstance(ours, pa.Table) and ours.num_rows == 2 * pq.read_metadata(run / "trials.parquet").num_rows
    with pytest.raises(FileNotFoundError):
        read_parquet(tmp_path / "gone.parquet")
