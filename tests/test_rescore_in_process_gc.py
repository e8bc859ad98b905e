"""A rescore in this process (one worker) settles as a pool worker does: what is loaded by a domain's second
chunk is frozen out of the collector's full passes (``_settle``; what was loaded before the first, too), and unfrozen when the rescore ends, however it
ends: the process lives on (a Python session), and what it drops later must be collected again."""

from __future__ import annotations

import gc

from harness import _rescore_chunks


def _chunks(n: int, seen: list[int]) -> list[tuple]:
    def chunk() -> None:
        _rescore_chunks._settle("airline")  # as score_items does at each chunk's start
        seen.append(gc.get_freeze_count())
        kept.append([])  # what a chunk loads and keeps (a list: tracked by the collector)

    kept: list[list] = []

    return [(chunk, (), None, None)] * n


def test_frozen_from_the_start_more_from_the_second_chunk_and_unfrozen_at_the_end():
    assert gc.get_freeze_count() == 0
    seen: list[int] = []
    list(_rescore_chunks._in_process(iter(_chunks(3, seen))))
    assert 0 < seen[0] < seen[1] <= seen[2]  # what was loaded before; then what the first chunk loaded too
    assert gc.get_freeze_count() == 0
    assert _rescore_chunks._SEEN is None  # this process is no worker afterwards


def test_a_rescore_stopped_early_unfreezes_too():
    seen: list[int] = []
    results = _rescore_chunks._in_process(iter(_chunks(5, seen)))
    next(results), next(results)
    assert gc.get_freeze_count() > 0
    results.close()  # as ``rescore_chunks`` closes it on an error or Ctrl-C
    assert gc.get_freeze_count() == 0


def test_what_others_froze_stays_frozen_and_nothing_more_is():
    gc.freeze()
    try:
        held = gc.get_freeze_count()
        seen: list[int] = []
        list(_rescore_chunks._in_process(iter(_chunks(3, seen))))
        # neither frozen more (a freeze adds every live object) nor unfrozen (0); a frozen object freed by its
        # count in between (pytest's own, of an earlier test) lowers the count by one: not an equality
        assert len(seen) == 3 and all(0 < n <= held for n in [*seen, gc.get_freeze_count()]), (held, seen)
    finally:
        gc.unfreeze()


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the collector frees it


def test_the_first_chunks_cyclic_garbage_is_collected_not_frozen():
    import weakref

    refs: list[weakref.ref] = []

    def chunk() -> None:
        _rescore_chunks._settle("airline")
        if not refs:  # the first chunk leaves a cycle behind
            refs.append(weakref.ref(_Node()))

    was = gc.isenabled()
    gc.disable()  # no automatic pass frees it: only ``_settle``'s own collection may
    try:
        assert refs == [] and gc.get_freeze_count() == 0
        results = _rescore_chunks._in_process(iter([(chunk, (), None, None)] * 2))
        next(results)
        assert refs[0]() is not None  # garbage, not yet collected
        next(results)  # the second chunk settles: collect the young generations, then freeze
        assert refs[0]() is None
        results.close()
    finally:
        if was:
            gc.enable()


def test_chunks_after_the_second_run_with_the_collector_paused_and_it_resumes_after_each():
    """``_chunk``: a settled process scores a chunk without collector passes (each walked the chunk's models again);
    the collector is back on between chunks and after them, so what a chunk left in a cycle is still collected."""
    import weakref

    enabled: list[bool] = []
    refs: list[weakref.ref] = []

    def chunk() -> None:
        _rescore_chunks._settle("airline")
        enabled.append(gc.isenabled())
        refs.append(weakref.ref(_Node()))

    assert gc.isenabled()
    results = _rescore_chunks._in_process(iter([(chunk, (), None, None)] * 4))
    for _ in range(4):
        next(results)
        assert gc.isenabled()
    results.close()
    assert enabled == [True, True, False, False]
    gc.collect()
    assert all(ref() is None for ref in refs)


def _freeze_count(_: int) -> int:
    return gc.get_freeze_count()


def test_a_pool_forks_its_workers_with_this_process_frozen_and_unfreezes_after():
    """``_pool_ordered``: the workers start with what this process held frozen (no full pass walks it, nor copies
    its pages), and this process is unfrozen when the pool ends."""
    assert gc.get_freeze_count() == 0
    calls = iter([(_freeze_count, (k,), [], None) for k in range(4)])
    counts = [result for _, _, result in _rescore_chunks._pool_ordered(calls, 2)]
    assert len(counts) == 4 and all(n > 10_000 for n in counts), counts  # type: ignore[operator]
    assert gc.get_freeze_count() == 0


def test_the_engine_built_in_a_domains_first_chunk_is_frozen_with_no_pass_over_its_database(monkeypatch):
    """``_engine``: the database an engine loads lives as long as the process; the collector neither walks it while
    the engine is built nor after (it is frozen at once), where a young pass and the one after it walked ~10^5
    records (#47). The chunk's own objects, made after, are not frozen."""
    from envs import ReplayEngine

    built: dict[str, ReplayEngine] = {}
    monkeypatch.setattr(_rescore_chunks, "engine_for", lambda domain: built.setdefault(domain, ReplayEngine(domain)))
    passes: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            passes.append(info["generation"])

    found: list[tuple[int, bool, bool]] = []

    def chunk() -> None:
        _rescore_chunks._settle("airline")
        gc.callbacks.append(count)
        try:
            engine = _rescore_chunks._engine("airline")
        finally:
            gc.callbacks.remove(count)
        after = _Node()
        live = {id(o) for o in gc.get_objects()}  # the generations the collector walks, not the frozen
        flight = next(iter(dict.values(engine.tables["flights"])))
        found.append((len(passes), id(flight) in live, id(after) in live))

    list(_rescore_chunks._in_process(iter([(chunk, (), None, None)])))
    assert found == [(0, False, True)]
    assert gc.get_freeze_count() == 0
