"""A sweep's driver: config → trial keys → Ray workers → Parquet parts, resumable.

The driver keeps at most ``max_concurrency`` trials in flight (and each provider under its own limit),
and writes finished trials as Parquet parts in batches, so no result lives only in memory.
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import loophole_store as store
from harness._trial_spec import TrialSpec
from harness.agents import RetryPolicy
from harness.config import SweepConfig
from harness.costs import CostMeter
from harness.errors import EndpointError, SweepInterrupted
from harness.sweeping.preflight import check_keys, probe_endpoints, with_scripted_server
from harness.sweeping.tau2_results import write_tau2_results
from harness.sweeping.worker import TrialOutcome, TrialWorker, spec_row
from harness.trials import expand, longest_first
from loophole_base import cut
from loophole_scoring import Status


def trial_specs(config: SweepConfig, keys: list) -> list[TrialSpec]:
    """What each trial key's worker needs: the agent, the user, the limits and the policy text."""
    agents = {a.name: a for a in config.agents}
    policies: dict[str, str] = {d: Path(p).read_text(encoding="utf-8") for d, p in config.policy_overrides.items()}
    r = config.retries
    retry = RetryPolicy(r.max_attempts, r.base_delay_s, r.max_delay_s, r.breaker_after)
    return [
        TrialSpec(
            key=k.key, seed=k.seed, domain=k.domain, version=k.version, task_id=k.task_id, trial=k.trial,
            agent_name=k.agent, agent=agents[k.agent], user=config.user_simulator,
            max_steps=config.max_steps, max_errors=config.max_errors, retry=retry,
            timeout_s=config.retries.timeout_s, policy=policies.get(k.domain),
        )
        for k in keys
    ]


PHASES = ("preparing", "starting Ray", "starting workers", "running", "writing", "done")
"""What a sweep does, in order, as its progress line names it (``SweepProgress.enter``)."""


@dataclass
class SweepProgress:
    total: int
    done_before: int  # finished trials the store already held (a resume keeps them)
    phase: str = PHASES[0]  # one of PHASES: what the sweep is doing now
    per_agent: Counter = field(default_factory=Counter)
    per_agent_total: Counter = field(default_factory=Counter)
    statuses: Counter = field(default_factory=Counter)  # this run's finished trials by status
    retries: int = 0
    written: int = 0  # this run's trials written to the store
    started_at: float | None = None  # after workers are up: the trials phase
    finished_at: float | None = None
    cost_usd: float = 0.0  # agent + user + judge cost of the sweep's trials, resumed ones included
    stopped: str | None = None  # "budget reached": scheduling stopped before every trial ran
    per_node: Counter = field(default_factory=Counter)  # this run's finished trials per Ray node

    def enter(self, phase: str, notify: Callable[[SweepProgress], None] | None = None) -> None:
        """The sweep moves on to ``phase`` (one of ``PHASES``); ``notify``, the progress callback, is told at
        once, so a long phase (Ray's start) is named while it lasts."""
        if phase not in PHASES:
            raise ValueError(f"unknown sweep phase {phase!r}: one of {', '.join(PHASES)}")
        self.phase = phase
        if notify is not None:
            notify(self)

    def throughput_per_min(self) -> float | None:
        """This run's finished trials a minute since the trials phase began."""
        if self.started_at is None:
            return None
        minutes = (time.perf_counter() - self.started_at) / 60
        done = self.statuses.total()
        return done / minutes if done and minutes > 0 else None

    def eta_s(self) -> float | None:
        rate = self.throughput_per_min()
        left = self.total - self.done_before - self.statuses.total()
        return 60 * left / rate if rate else None

    @property
    def errors(self) -> int:
        return self.statuses[Status.ERROR]

    @property
    def infra_errors(self) -> int:
        return self.statuses[Status.INFRA_ERROR]

    @property
    def agent_errors(self) -> int:
        return self.statuses[Status.AGENT_ERROR]


def run_sweep(
    config: SweepConfig,
    on_progress: Callable[[SweepProgress], None] | None = None,
    workers: int | None = None,
    on_note: Callable[[str], None] | None = None,
) -> tuple[Path, SweepProgress]:
    """Run the trials of ``config`` that the output does not hold yet; returns the run directory.

    ``on_note`` gets lines for the user: the first failure of each kind with its reason, and provenance
    changes. An endpoint that fails stops the sweep (``EndpointError``); SIGINT or SIGTERM stops it
    (``SweepInterrupted``); a node with another package version stops it before any trial
    (``ClusterMismatchError``); either way every finished trial is written first.
    """
    check_keys(config)
    probe_endpoints(config)
    out = config.output_dir()
    sweep_id = config.sweep_id()
    config, server = with_scripted_server(config)
    try:
        return _run(config, out, sweep_id, on_progress, workers, on_note or (lambda _: None))
    finally:
        if server is not None:
            server.stop()


def _run(config: SweepConfig, out: Path, sweep_id: str, on_progress, workers, on_note):
    store.claim_sweep_output(out, sweep_id, config.redacted())  # a folder refused here is left as it is
    try:
        out, progress = _run_trials(config, out, sweep_id, on_progress, workers, on_note)
        write_tau2_results(out, config)  # the finished trials as tau2 results files (README's examples)
        return out, progress
    finally:
        store.release_run(out)  # however the sweep ended, its folder keeps no lock file


def _run_trials(config: SweepConfig, out: Path, sweep_id: str, on_progress, workers, on_note):
    pairs = {(d, v) for d in config.domains for v in config.task_versions}
    settings = {a.name: a.public() for a in config.agents} | {"user_simulator": config.user_simulator.public()}
    info = store.run_info("sweep", pairs, config.judge.public() if config.judge else None, sweep_id=sweep_id,
                          generation_settings=settings)
    for note in store.record_run(out, info):
        on_note(f"note: {note}")
    store.compact(out)  # fold in what a crashed run left behind
    done = store.finished_keys(out)
    keys = expand(config)
    todo = [k for k in keys if k.key not in done]
    progress = SweepProgress(total=len(keys), done_before=len(keys) - len(todo))
    for k in keys:
        progress.per_agent_total[k.agent] += 1
        if k.key in done:
            progress.per_agent[k.agent] += 1
    if on_progress:
        on_progress(progress)
    if not todo:
        progress.enter("done", on_progress)
        return out, progress
    from harness._interrupt import received, signals_seen

    signals_before = signals_seen()
    try:
        _start_and_run(config, out, pairs, todo, progress, on_progress, workers, on_note)
    except EndpointError as exc:  # one sentence: the model, where, what to set, what is kept
        raise EndpointError(
            f"{exc}, then run the sweep again: it stopped, and its {progress.done_before + progress.written} "
            f"finished trials are kept in {out}"
        ) from None
    except BaseException as exc:
        signal_name = received(since=signals_before)
        if signal_name is None:
            raise
        # whatever the signal interrupted (Ray's start, the trials, the writing), the line says what is kept
        left = progress.total - progress.done_before - progress.written
        raise SweepInterrupted(
            f"interrupted by {signal_name}: {progress.written} finished trials written this run "
            f"({progress.done_before + progress.written} of {progress.total} in {out}); "
            f"run the sweep again to resume the other {left}"
        ) from exc
    progress.finished_at = time.perf_counter()
    progress.enter("done", on_progress)
    return out, progress


def _start_and_run(config: SweepConfig, out: Path, pairs: set, todo: list, progress: SweepProgress,
                   on_progress, workers: int | None, on_note) -> None:
    """Start Ray and the worker actors, run the pending trials, and write every finished one."""
    import ray

    from harness.cluster import ClusterMismatchError, build_payload, placements, worker_count
    from harness.execution import init_ray, ray_stderr_quiet

    progress.enter("starting Ray", on_progress)
    cpus = os.cpu_count() or 1
    if config.address:
        init_ray(config.address)
        n_workers = workers or worker_count(config.address, config.max_concurrency, cpus)
    else:
        n_workers = workers or worker_count(None, config.max_concurrency, cpus)
    # more actors than trials in flight would idle (each is a process): --workers 100000 starts no more
    n_workers = max(1, min(n_workers, config.max_concurrency))
    if not config.address:
        init_ray(None, max(n_workers, cpus))
    threads = math.ceil(config.max_concurrency / n_workers)
    actor_cls = ray.remote(num_cpus=0, max_restarts=3, max_task_retries=3, max_concurrency=threads)(  # type: ignore[call-overload]  # ray's overloads omit max_concurrency
        TrialWorker
    )
    payload = ray.put(build_payload(pairs))  # once into the object store: workers read no task data from disk
    # An actor that takes an object-store argument and may restart makes Ray's C++ core worker print an
    # error-level warning on the driver's stderr (``E core_worker.cc:…``): silenced unless -v.
    progress.enter("starting workers", on_progress)
    with ray_stderr_quiet():
        actors = [actor_cls.options(**where).remote(config.judge, payload, config.prices)
                  for where in placements(n_workers)]
    meter = CostMeter.from_rows(store.read_table(out, "trials").to_dict("records"), config.max_cost_usd)
    progress.cost_usd = meter.spent
    loop = SweepLoop(config, out, actors, meter, trial_specs(config, longest_first(todo)), progress,
                     on_progress, on_note)
    with _signals_raise():
        try:
            # imports and first database load, before the clock
            ready = [a.ready.remote(list(config.domains), threads, config.calls_llm()) for a in actors]
            # waited for in slices: inside one ray.get the SIGINT handler does not run until every worker has
            # warmed up (a minute and more on a busy machine), and Ctrl-C would wait that long for its line
            while len(ray.wait(ready, num_returns=len(ready), timeout=0.5)[0]) < len(ready):
                pass
            refused = [why for why in ray.get(ready) if why]
            if refused:
                raise ClusterMismatchError(f"{refused[0]}; sweep stopped before any trial ran")
            loop.nodes = ray.get([a.node.remote() for a in actors])
            progress.started_at = time.perf_counter()
            progress.enter("running", on_progress)
            loop.run()
        finally:
            try:
                progress.enter("writing", on_progress)
                loop.drain()  # finished trials are written whatever stopped the loop
            finally:
                for actor in actors:
                    ray.kill(actor)


class SweepLoop:
    """The driver's loop over a sweep's pending trials: start them within the limits (concurrency, each
    provider's, each agent's fair share, the budget), take each ``TrialOutcome``, and write parts."""

    def __init__(self, config: SweepConfig, out: Path, actors: list, meter: CostMeter, specs: list[TrialSpec],
                 progress: SweepProgress, on_progress: Callable[[SweepProgress], None] | None,
                 on_note: Callable[[str], None]) -> None:
        from harness.ratelimit import FairShare

        self.config, self.out, self.actors, self.meter = config, out, actors, meter
        self.progress, self.on_progress, self.on_note = progress, on_progress, on_note
        self.share = FairShare(deque(specs), group_of=lambda s: s.agent_name)  # each agent its share of slots
        self.nodes: list[str] = []
        self.inflight: dict[Any, TrialSpec] = {}
        self.node_of: dict[Any, str] = {}
        self.per_provider: Counter = Counter()
        self.provider_of = {a.name: a.provider for a in config.agents}
        self.buffer_trials: list[dict] = []
        self.buffer_scores: list[dict] = []
        self.seen_kinds: set[str] = set()
        self.seq = int(time.time() * 1000) % 10**6
        self.last_flush = time.monotonic()
        self.turn = 0

    def _allowed(self, agent: str) -> bool:
        limit = self.config.concurrency.get(self.provider_of[agent])
        return limit is None or self.per_provider[self.provider_of[agent]] < limit

    def _start(self) -> None:
        # Workers run at most max_concurrency trials at once (their threads); a couple more wait in each
        # worker's queue so a freed thread starts the next trial without a round trip to this loop.
        queue_ahead = self.config.max_concurrency + 2 * len(self.actors)
        while len(self.inflight) < queue_ahead and not self.meter.would_exceed(len(self.inflight)):
            spec = self.share.pop(self._allowed)
            if spec is None:
                break
            i = self.turn % len(self.actors)
            ref = self.actors[i].run.remote(spec)
            self.turn += 1
            self.inflight[ref] = spec
            self.node_of[ref] = self.nodes[i] if self.nodes else ""
            self.per_provider[spec.agent.provider] += 1

    def run(self) -> None:
        import ray

        while len(self.share) or self.inflight:
            self._start()
            if not self.inflight:  # trials wait, none can start: the next one could exceed the budget
                self.progress.stopped = "budget reached"
                self.share.clear()
                break
            ready, _ = ray.wait(list(self.inflight), num_returns=1, timeout=1.0)
            for ref in ready:
                spec = self.inflight[ref]
                try:
                    outcome: TrialOutcome = ray.get(ref)
                except ray.exceptions.RayError as exc:  # the worker died more often than Ray retries
                    outcome = TrialOutcome(spec_row(spec, status=Status.INFRA_ERROR, messages_json="[]",
                                                    reason=f"worker failed: {type(exc).__name__}"))
                self.take(spec, outcome)
                del self.inflight[ref]
                self.share.done(spec)
                self.progress.per_node[self.node_of.pop(ref)] += 1
                self.per_provider[spec.agent.provider] -= 1
            buffered = self.progress.statuses.total() - self.progress.written
            if buffered >= self.config.flush_every or (
                buffered and time.monotonic() - self.last_flush > self.config.flush_interval_s
            ):
                self.flush()
            if self.on_progress and ready:
                self.on_progress(self.progress)

    def take(self, spec: TrialSpec, outcome: TrialOutcome) -> None:
        """One finished trial into the buffer; an endpoint error stops the sweep (the trial runs again later)."""
        if outcome.endpoint_error is not None:
            raise EndpointError(outcome.endpoint_error)  # ``_run`` adds what was kept, once it is written
        trial, status = outcome.trial, outcome.status
        self.buffer_trials.append(trial)
        self.buffer_scores.extend(outcome.scores)
        self.meter.add(trial)
        self.progress.cost_usd = self.meter.spent
        self.progress.per_agent[spec.agent_name] += 1
        self.progress.statuses[status] += 1
        self.progress.retries += trial.get("retries") or 0
        if status is not None and status not in (Status.OK, Status.NO_JUDGE) and status not in self.seen_kinds:
            self.seen_kinds.add(status)
            self.on_note(f"first {status}: {spec.key}: {cut(str(trial.get('reason')), 500)}")

    def flush(self) -> None:
        if self.buffer_trials:
            self.seq += 1
            store.write_part(self.out, self.buffer_trials, self.buffer_scores, self.seq)
            self.progress.written += len(self.buffer_trials)
            self.buffer_trials.clear()
            self.buffer_scores.clear()
        self.last_flush = time.monotonic()

    def drain(self) -> None:
        """Write what is finished, whatever stopped the loop: results Ray already holds, then the buffer."""
        import ray

        if self.inflight:
            ready, _ = ray.wait(list(self.inflight), num_returns=len(self.inflight), timeout=0)
            for ref in ready:
                with contextlib.suppress(Exception):
                    outcome: TrialOutcome = ray.get(ref)
                    if outcome.endpoint_error is None:
                        self.take(self.inflight[ref], outcome)
        self.flush()
        store.compact(self.out)


@contextlib.contextmanager
def _signals_raise():
    """SIGINT and SIGTERM raise ``SweepInterrupted`` in the driver (main thread only), so the ``finally``
    that writes finished trials runs; the previous handlers come back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        from harness._interrupt import record

        record(signum)  # an interrupt inside Ray's compiled code still ends as the CLI's one line
        # the line the user reads is raised once the finished trials are written (``run_sweep``: their count)
        raise SweepInterrupted(f"interrupted by {signal.Signals(signum).name}")

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)
