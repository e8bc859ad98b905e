"""benchmarks/against_commit.py --rows (#47): the rows a rescore writes, compared column by column between two
checkouts. Here both sides are this tree (a worktree of another commit is the script's own business); one side's
real Parquet is then edited, and the comparison must name the edited column."""

from __future__ import annotations

import importlib.util

import pyarrow as pa
import pyarrow.parquet as pq

from tests.conftest import ROOT, real_run


def _against():
    spec = importlib.util.spec_from_file_location("against_commit", ROOT / "benchmarks" / "against_commit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rows_of_the_same_tree_are_identical_and_an_edited_cell_is_named(tmp_path, capsys, monkeypatch):
    against = _against()
    run = str(real_run("whissle_retail_tau3_5sims.json"))
    assert against.compare_rows(ROOT, [run], "lenient") == 0
    out = capsys.readouterr().out
    assert "trials.parquet: identical, 5 rows, every column" in out and "rows (lenient replay): identical" in out

    real = against._rescore

    def edited(tree, paths, replay, out_dir):  # this side's record of the first trial changes
        real(tree, paths, replay, out_dir)
        if out_dir.name == "tree":
            table = pq.read_table(out_dir / "trials.parquet")
            records = table.column("record_json").to_pylist()
            records[0] = records[0].replace('"declines":', '"declines" :', 1)
            i = table.column_names.index("record_json")
            pq.write_table(table.set_column(i, "record_json", pa.array(records, pa.string())), out_dir / "trials.parquet")

    monkeypatch.setattr(against, "_rescore", edited)
    assert against.compare_rows(ROOT, [run], "lenient") == 1
    out = capsys.readouterr().out
    assert "trials.parquet: record_json differs in 1 of 5 rows" in out and "rows (lenient replay): DIFFER" in out
