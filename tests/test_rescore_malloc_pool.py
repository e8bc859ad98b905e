"""A rescore's Arrow allocations (each chunk's columns, the Parquet writes) come from the C library's malloc, not
from Arrow's default pool, which took fresh pages from the kernel for every chunk (#47); the default pool is back
when the rescore ends, however it ends, and the rows are what the default pool gives."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import loophole_store
from harness.rescoring import import_sources, rescore_runs
from tests.conftest import real_run


def test_the_block_allocates_from_malloc_and_the_default_is_back_after_it_raised_or_not():
    before = pa.default_memory_pool()
    with loophole_store.malloc_pool():
        assert pa.default_memory_pool().backend_name == "system"
        kept = pa.array(["x" * 1000] * 10)
    assert pa.default_memory_pool().backend_name == before.backend_name
    assert kept.to_pylist() == ["x" * 1000] * 10  # made in the block, freed after it: still whole
    with pytest.raises(KeyError), loophole_store.malloc_pool():
        raise KeyError("a rescore that stops")
    assert pa.default_memory_pool().backend_name == before.backend_name


def test_a_rescore_converts_its_rows_from_malloc_and_writes_what_the_default_pool_writes(tmp_path, monkeypatch):
    from loophole_store import _tables

    before = pa.default_memory_pool().backend_name
    runs, _ = import_sources([str(real_run("whissle_retail_tau3_5sims.json"))], None, False)
    rescore_runs(runs, tmp_path / "ours")
    seen: list[str] = []
    convert = _tables.to_table

    def watched(rows, schema):
        seen.append(pa.default_memory_pool().backend_name)
        return convert(rows, schema)

    monkeypatch.setattr(_tables, "to_table", watched)
    monkeypatch.setattr(loophole_store, "malloc_pool", _default_pool)
    rescore_runs(runs, tmp_path / "default")
    assert seen and set(seen) == {before}
    monkeypatch.undo()
    monkeypatch.setattr(_tables, "to_table", watched)
    seen.clear()
    rescore_runs(runs, tmp_path / "again")
    assert seen and set(seen) == {"system"}
    assert pa.default_memory_pool().backend_name == before
    for name in ("trials", "scores"):
        ours = pq.read_table(tmp_path / "ours" / f"{name}.parquet")
        assert ours.num_rows and ours.equals(pq.read_table(tmp_path / "default" / f"{name}.parquet"))


def _default_pool():
    import contextlib

    return contextlib.nullcontext()
