"""Rescoring in chunks: a results file's simulations → trials rows and scored chunks, read and scored in
this process or in worker processes, in order. ``harness.rescoring`` stages and writes what comes out."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.data_model.tasks import Task

import loophole_store as store
from envs import CUSTOM, ReplayEngine, ReplayMode, engine_for, load_task_set
from harness._fork_signals import HELD, exit_with_parent, forking
from harness._rescore_rows import _merge, _row_of
from loophole_base import HarnessError, HarnessInputError, gc_paused
from loophole_ingest import ImportedRun, ImportedSimulation, TaskIdentity
from loophole_scoring import RECORDED, JudgeSpec, RecordedJudge, recorded_verdicts, score_simulation

_PINNED = {r.value for r in TerminationReason}


def score_items(
    run_id: str,
    domain: str,
    task_version: str,
    items: Sequence[tuple],
    judge: JudgeSpec | None,
    tasks: dict[str, Task] | None = None,
    replay: ReplayMode = ReplayMode.LENIENT,
) -> list[tuple[str, dict, list[dict]]]:
    """Score (trajectory_id, raw simulation[, its validated SimulationRun]) items; in-process or in a worker.

    ``tasks``: a custom run's embedded tasks by id (pinned runs: None, the pinned tasks).
    """
    from harness._quiet import set_log_level
    from loophole_ingest import COMPLETED

    set_log_level(False)
    _settle(domain)
    engine = _engine(domain)
    built = judge.build() if judge else None
    out = []
    for trajectory_id, raw, *validated in items:
        recorded_reason = raw.get("termination_reason")
        if validated:  # validated at import, in this process
            sim = validated[0]
        else:
            payload = (
                raw if recorded_reason in _PINNED else {**raw, "termination_reason": "agent_error"}
            )
            sim = SimulationRun.model_validate(payload)
        per_trajectory = (
            RecordedJudge(recorded_verdicts(raw)) if judge and judge.model == RECORDED else built
        )
        task = tasks[sim.task_id] if tasks is not None else None
        scored = score_simulation(sim, domain, task_version, engine, per_trajectory, task, replay)
        trial, scores = store.reward_rows(scored, run_id=run_id, trajectory_id=trajectory_id)
        if recorded_reason not in COMPLETED and recorded_reason not in _PINNED:
            # a tau2 1.0 reason the pinned model lacks: 0 by tau2 1.0's rule, named as recorded
            why = f"terminated prematurely: {recorded_reason}"
            trial["reason"] = why
            for s in scores:
                s["reason"] = why
        out.append((trajectory_id, trial, scores))
    return out


def score_spans(
    run: ImportedRun, task_ids: tuple[str, ...], lo: int, spans: list[tuple[int, int]], first_index: int,
    judge: JudgeSpec | None, replay: ReplayMode = ReplayMode.LENIENT,
) -> tuple[list[dict], list[dict], int, TaskIdentity | None] | None:
    """A chunk of a monolithic file, in a worker (or here, with one): read its byte spans, validate, build the
    rows and score them (``run`` comes without its tasks: the pinned ones are loaded here); also the task identity
    decided for them, which the caller merges into its run's. None where the spans do not read as the
    stream would (the caller then reads the file the ordinary way)."""
    from loophole_ingest import SpanError, read_simulations

    pinned = load_task_set(run.domain, run.task_version).by_id
    run = replace(run, tasks={t: pinned[t] for t in task_ids})
    try:
        items = read_simulations(run, lo, spans, first_index)
    except SpanError:
        return None
    rows = [_row_of(run, first_index + k, item) for k, item in enumerate(items)]
    pending = [(r["trajectory_id"], item.raw, item.sim) for r, item in zip(rows, items, strict=True)
               if item.sim is not None]
    scored = score_items(run.run_id, run.domain, run.task_version, pending, judge, None, replay)
    decided = run.identity.decided() if run.identity is not None else None
    return rows, _merge(rows, scored), len(scored), decided


# (function or None, its arguments, the rows a streamed chunk carries (None: the call returns its rows),
# the run's task identity that the call's decisions are merged into)
Call = tuple[Callable | None, tuple, "list[dict] | None", "TaskIdentity | None"]


def _stream_calls(
    runs: Iterable[ImportedRun], judge: JudgeSpec | None, chunk_size: int, replay: ReplayMode
) -> Iterator[Call]:
    """Each run's simulations read one at a time in this process, into rows and chunks to score."""
    for run in runs:
        tasks = run.tasks if run.task_version == CUSTOM else None
        pending: list[tuple] = []
        rows: list[dict] = []
        for index, item in enumerate(_simulations_of(run)):
            rows.append(row := _row_of(run, index, item))
            if item.sim is not None:
                pending.append((row["trajectory_id"], item.raw, item.sim))
            if len(pending) >= chunk_size:
                yield score_items, (run.run_id, run.domain, run.task_version, pending, judge, _needed(tasks, pending), replay), rows, None
                pending, rows = [], []
        if rows:
            args = (run.run_id, run.domain, run.task_version, pending, judge, _needed(tasks, pending), replay)
            yield (score_items if pending else None), args, rows, None


def _span_calls(
    runs: Iterable[ImportedRun], judge: JudgeSpec | None, chunk_size: int, replay: ReplayMode
) -> Iterator[Call]:
    """Monolithic files of pinned tasks: only byte spans are found here; ``score_spans`` reads, validates
    and scores them (in the workers, or here with one). Other runs are streamed here as ``_stream_calls`` does."""
    from loophole_ingest import SimulationSpans, SpanError

    for run in runs:
        if run.layout != "monolithic" or run.task_version == CUSTOM:
            yield from _stream_calls([run], judge, chunk_size, replay)
            continue
        spans = SimulationSpans(run.path)
        light, ids = replace(run, tasks={}, info={}), tuple(run.tasks)
        lo, index, group = spans.start + 1, 0, []
        for span in spans:
            group.append(span)
            if len(group) >= chunk_size:
                yield score_spans, (_undecided(light), ids, lo, group, index, judge, replay), None, run.identity
                lo, index, group = group[-1][1], index + len(group), []
        if group:
            yield score_spans, (_undecided(light), ids, lo, group, index, judge, replay), None, run.identity
            lo, index = group[-1][1], index + len(group)
        if index == 0:
            spans.stream.close()
            raise SpanError("no simulations")  # the stream names the empty file
        spans.finish(lo)


def _undecided(run: ImportedRun) -> ImportedRun:
    """``run`` for one span call: where its simulations' tasks are decided as they are read (``prints``), with a task
    identity that has decided nothing yet; the call decides its own simulations and sends back only those decisions
    (``decided``), which the caller merges into the run's. The run's own identity, shared, took every decision made so
    far to each call and back (pickled both ways, a set of every index read: quadratic in the file's size)."""
    identity = run.identity
    if identity is None or identity.prints is None:  # decided up front (or not at all): each call reads them all
        return run
    return replace(run, identity=TaskIdentity(prints=identity.prints, known=identity.known))


class UnreadableRun(HarnessInputError):
    """A run whose simulations fail to read part way (a truncated file): the message is the file's own
    one-line error; ``path`` says which run, so the leaderboard can leave it out and rank the others."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message)
        self.path = path


def _simulations_of(run: ImportedRun) -> Iterator[ImportedSimulation]:
    try:
        yield from run.iter_simulations()
    except UnreadableRun:
        raise
    except HarnessInputError as exc:
        err = UnreadableRun(str(exc), run.path)
        err.exit_code = exc.exit_code
        raise err from None


def _needed(tasks: dict[str, Task] | None, items: list[tuple]) -> dict[str, Task] | None:
    if tasks is None:
        return None
    return {str(item[1].get("task_id")): tasks[str(item[1].get("task_id"))] for item in items}


_SEEN: dict[str, int] | None = None  # in a pool worker: the chunks it has scored, by domain


def _quiet_worker() -> None:
    """A pool worker leaves Ctrl-C to the main process, which prints the one line and stops the pool."""
    global _SEEN
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the CLI's handler, inherited by the fork
    signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)  # held since the fork (``forking``): a SIGTERM now ends it
    _SEEN = {}
    threading.Thread(target=exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _settle(domain: str) -> None:
    """In a pool worker (or a rescore in this process: ``_in_process``), at the start of its second chunk of a
    domain: ``gc.freeze`` what is loaded by then (tau2 and its tasks, the database, the catalog, the gold
    replays). These live as long as the worker, and every full collection walked them again: ~15% of a worker's time at corpus scale
    (measured in one process: 2.32 → 1.99 ms CPU a trajectory). Not after the first chunk's own rows,
    which are gone by the second: the young generations, where a chunk's cyclic garbage is, are collected first;
    not the whole heap (0.12 CPU-s in a rescore of 1,000, 0.25 in the benchmark's process, #47; it found nothing
    more on the real runs): older garbage, if any, stays frozen until the worker ends or the rescore unfreezes."""
    if _SEEN is None:
        return
    _SEEN[domain] = _SEEN.get(domain, 0) + 1
    if _SEEN[domain] == 2:
        gc.collect(1)
        gc.freeze()


def _engine(domain: str) -> ReplayEngine:
    """``engine_for(domain)``; in a settling process (``_settle``), at its first chunk of a domain, what is loaded by
    then is frozen at once: the engine's database (~10^5 objects, airline), read with the collector paused, lives as
    long as the process, and the next young pass walked all of it, the pass after that again (~60 ms of CPU, a third
    of what a rescore pays once for the collector, #47). The chunk's scoring comes after, so its cycles are collected."""
    if _SEEN is None or _SEEN[domain] != 1:
        return engine_for(domain)
    with gc_paused():  # frozen before the collector resumes: an allocation in between would start the pass
        engine = engine_for(domain)
        gc.freeze()
    return engine


def _chunk(fn: Callable, args: tuple) -> object:
    """``fn(*args)``, a chunk; once this process has settled (``_settle``), with the collector paused, resumed after
    ``fn`` returns: what it leaves is its result and a few cycles (tau2's ``to_json_str`` makes one a call) that the
    next pass frees; each pass in between walked the chunk's decoded simulations, models and rows again (~0.2 ms
    of CPU a trajectory, #47). A worker's first chunk of another domain runs paused too: its cycles, if any, are freed
    by the first pass after it, as the others' are."""
    if not _SEEN or max(_SEEN.values()) < 2:
        return fn(*args)
    with gc_paused():
        return fn(*args)


def pool_size(workers: int) -> int:
    """Worker processes for ``workers``: scoring is CPU-bound, so never more than the machine's cores."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(workers, cores))


Outcome = tuple["list[dict] | None", "TaskIdentity | None", object]  # a call's rows, identity and result


def _in_process(calls: Iterator[Call]) -> Generator[Outcome, None, None]:
    """The calls in this process, settled as a worker is (``_settle``), and what was loaded before them frozen at once
    (the modules imported for the rescore, once promoted, made the first chunk's pass a full one: ~0.2 s, #47); all
    unfrozen when they end: this process lives on (a Python session), and what it drops later is collected again."""
    global _SEEN

    ours = _SEEN is None and gc.get_freeze_count() == 0  # not in a worker, and nothing frozen by others
    if ours:
        _SEEN = {}
        gc.freeze()
    try:
        for fn, args, rows, identity in calls:
            yield rows, identity, _chunk(fn, args) if fn is not None else None
    finally:
        if ours:
            _SEEN = None
            gc.unfreeze()


def _pool_ordered(calls: Iterator[Call], workers: int) -> Generator[Outcome, None, None]:
    """The calls run in worker processes, at most ``2 × workers`` in flight (memory stays bounded); results
    come back in call order, so rows are written in key order.

    Forked processes, not Ray: they start in milliseconds with this process's imports and task data, where
    an embedded Ray took ~5 s to start and stop and each of its workers imported tau2 again; rescoring reads
    a local file by byte offsets, so a cluster would not help it. A process that already runs Ray (a Python
    session that swept first) scores on that Ray instead: its gRPC threads do not survive a fork. A worker
    that dies (killed, out of memory) stops the rescore with an error instead of hanging it.
    """
    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        yield from _ray_ordered(calls, workers)
        return
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from multiprocessing import get_context

    n = pool_size(workers)
    pool = ProcessPoolExecutor(n, mp_context=get_context("fork"), initializer=_quiet_worker)
    # frozen before the fork as in one process (``_in_process``): neither this process nor a worker walks the modules
    # in full passes (~0.3 CPU-s each at 4,000), nor does a worker's pass copy each page it shares with this process
    done, frozen = False, gc.get_freeze_count() == 0
    if frozen:
        gc.freeze()
    try:
        def submit(fn: Callable, *args: object) -> object:
            with forking():  # the first submit forks every worker (the fork start method)
                return pool.submit(_chunk, fn, args)

        yield from _ordered(calls, n, submit, lambda future: future.result())
        done = True
    except BrokenProcessPool as exc:
        raise WorkerDied(f"a rescore worker process died ({exc}; killed, or out of memory?): nothing was "
                         "written; run the same command again, with fewer --workers if memory is short") from None
    finally:
        # Stopped early (Ctrl-C, an error, a bad simulation): the workers are stopped too. Forked, they hold
        # their own ends of the task pipe, so they would outlive this process waiting on it. (Python 3.14
        # has ``terminate_workers``; before it, the executor's process table is the way in.)
        workers_left = list(getattr(pool, "_processes", None) or {}) if not done else []
        pool.shutdown(wait=done, cancel_futures=True)
        for pid in workers_left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        if frozen:
            gc.unfreeze()


class WorkerDied(HarnessError):
    """A worker process ended without its result: one line, exit 75 (try again)."""

    exit_code = 75


def _ordered(calls: Iterator[Call], n: int, submit: Callable, result: Callable) -> Iterator[Outcome]:
    from collections import deque

    pending: deque = deque()
    for fn, args, rows, identity in calls:
        pending.append((rows, identity, None if fn is None else submit(fn, *args)))
        while len(pending) >= 2 * n:
            rows_, identity_, ref = pending.popleft()
            yield rows_, identity_, None if ref is None else result(ref)
    while pending:
        rows_, identity_, ref = pending.popleft()
        yield rows_, identity_, None if ref is None else result(ref)


def _ray_ordered(calls: Iterator[Call], workers: int) -> Iterator[Outcome]:
    """As ``_pool_ordered``, on the Ray this process already runs."""
    import ray

    remotes: dict[Callable, object] = {}

    def submit(fn: Callable, *args: object) -> object:
        if fn not in remotes:
            remotes[fn] = ray.remote(num_cpus=1)(fn)
        return remotes[fn].remote(*args)  # type: ignore[attr-defined]

    yield from _ordered(calls, workers, submit, ray.get)


def rescore_chunks(
    runs: list[ImportedRun], workers: int, judge: JudgeSpec | None, chunk_size: int, spans: bool,
    replay: ReplayMode = ReplayMode.LENIENT,
) -> Generator[tuple[list[dict], list[dict], int], None, None]:
    """(trials rows, scores rows, trajectories scored) chunk by chunk, in order."""
    from loophole_ingest import SpanError

    calls = (_span_calls if spans else _stream_calls)(runs, judge, chunk_size, replay)
    results = _pool_ordered(calls, workers) if workers > 1 else _in_process(calls)
    with contextlib.closing(results):  # stopped early: the pool's ``finally`` runs now, not when collected
        for rows, identity, result in results:
            if rows is not None:  # streamed here: the worker scored the chunk's items
                scored = result or []
                yield rows, _merge(rows, scored), len(scored)  # type: ignore[arg-type]
            elif result is None:
                raise SpanError("a worker could not read its spans")
            else:
                span: tuple[list[dict], list[dict], int, TaskIdentity | None] = result  # type: ignore[assignment]
                if identity is not None and span[3] is not None:
                    identity.merge(span[3])
                yield span[0], span[1], span[2]
