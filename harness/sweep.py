"""Sweeps: config → trial keys → Ray workers → trajectories → scores → Parquet parts, resumable.

Each Ray worker is a threaded actor: its threads run trials through tau2's orchestrator (mostly waiting
on LLM calls) on databases from a pool, and score them, one at a time, on the worker's replay engine.
The driver keeps at most ``max_concurrency`` trials in flight (and each provider under its own limit),
and writes finished trials as Parquet parts in batches, so no result lives only in memory.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import threading
import time
import traceback
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import loophole_store as store
from harness.agents import AgentFailure, InfraError, RetryCounter, RetryPolicy
from harness.config import ModelSpec, SweepConfig
from harness.errors import (
    EndpointError,
    HarnessInputError,
    Status,
    SweepInterrupted,
)
from harness.simulation import TrialSpec, resolved_args, simulate, warm_up
from harness.trials import TrialKey, expand, longest_first


def trial_specs(config: SweepConfig, keys: list[TrialKey]) -> list[TrialSpec]:
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


def run_trial(spec: TrialSpec, pool, engines, score_lock, judge) -> tuple[dict, list[dict]]:
    """Simulate and score one trial under the failure policy (README): the model's failures are the
    agent's (reward 0), the infrastructure's are ``infra_error`` rows, an endpoint error stops the sweep."""
    from harness.rescoring import scored_rows
    from loophole_store import catalog_sha256

    counter = RetryCounter()
    row: dict[str, Any] = {
        "run_id": spec.key.split("/", 1)[0], "trajectory_id": spec.key, "simulation_id": spec.key,
        "source_file": None, "source_sha256": None, "domain": spec.domain, "task_version": spec.version,
        "task_id": spec.task_id, "trial": spec.trial, "seed": spec.seed, "agent_name": spec.agent_name,
        "agent_model": spec.agent.model, "agent_implementation": spec.agent.implementation,
        "user_model": spec.user.model, "recorded_reward": None,
    }
    started = time.perf_counter()
    failed = {"n_messages": 0, "messages_json": "[]"}
    try:
        sim, meant = simulate(spec, pool, counter)
    except EndpointError as exc:  # not stored: the driver stops the sweep and the trial runs again later
        return {**row, "status": ENDPOINT_ERROR, "reason": str(exc)}, []
    except AgentFailure as exc:
        row.update(status=Status.AGENT_ERROR, reason=str(exc)[:500], retries=counter.retries, reward=0.0,
                   multi_gold_reward=0.0, matched_gold_ids=[], duration_s=time.perf_counter() - started, **failed)
        return row, _failed_scores(row, catalog_sha256())
    except InfraError as exc:
        row.update(status=Status.INFRA_ERROR, reason=str(exc), retries=counter.retries,
                   duration_s=time.perf_counter() - started, **failed)
        return row, []
    except Exception as exc:  # noqa: BLE001 - a harness or tau2 bug: recorded with its traceback's tail
        row.update(status=Status.ERROR, reason=_with_trace(exc), retries=counter.retries,
                   duration_s=time.perf_counter() - started, **failed)
        return row, []
    dumped = sim.model_dump(mode="json")
    row.update(meant)
    row.update(
        termination_reason=sim.termination_reason.value, duration_s=sim.duration, agent_cost=sim.agent_cost,
        user_cost=sim.user_cost, retries=counter.retries, n_messages=len(sim.messages),
        messages_json=json.dumps(dumped["messages"], ensure_ascii=False),
    )
    try:
        with score_lock:
            engine = _engine(engines, spec.domain)
            trial, scores = scored_rows(sim, spec.domain, spec.version, spec.key, engine, judge)
    except Exception as exc:  # noqa: BLE001 - keep the trajectory; a scoring failure is not an infra error
        row.update(status=Status.ERROR, reason=f"scoring failed: {_with_trace(exc)}")
        return row, []
    row.update(trial)
    sha = catalog_sha256()
    return row, [{"run_id": row["run_id"], **s, "catalog_sha256": sha} for s in scores]


ENDPOINT_ERROR = "endpoint_error"  # a worker's answer only: never written to the store


def _with_trace(exc: BaseException) -> str:
    """The error and where it happened (the traceback's last frames): shown on the driver, not only in
    Ray's worker logs."""
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames))
    return f"{type(exc).__name__}: {exc} (at {where})"[:1000]


def _failed_scores(row: dict, catalog_sha: str) -> list[dict]:
    """An agent failure scores 0 under the gold and under every variant: no reading credits a crash."""
    from gold_variants import variants_for

    golds = [("gold", None, None)] + [
        (v.gold_id, v.loophole_id, v.reading) for v in variants_for(row["domain"], row["task_version"], row["task_id"])
    ]
    return [
        {"run_id": row["run_id"], "trajectory_id": row["trajectory_id"], "task_id": row["task_id"],
         "gold_id": gold_id, "loophole_id": loophole_id, "reading": reading, "reward": 0.0,
         "status": Status.AGENT_ERROR, "reason": row["reason"], "catalog_sha256": catalog_sha}
        for gold_id, loophole_id, reading in golds
    ]


def _engine(engines: dict, domain: str):
    """The worker's replay engine for ``domain``, built on first use (call under the score lock)."""
    if domain not in engines:
        from envs.replay import ReplayEngine

        engines[domain] = ReplayEngine(domain)
    return engines[domain]


class TrialWorker:
    """A Ray actor (threaded): a database pool, a replay engine per domain, and a judge."""

    def __init__(self, judge: ModelSpec | None, payload=None, prices: dict | None = None) -> None:
        from envs.pool import DatabasePool
        from harness._quiet import quiet_imports, set_log_level
        from harness.cluster import prepare_worker

        quiet_imports()
        set_log_level(False)
        from harness.scripted_llm import register_scripted_models

        register_scripted_models()
        prepare_worker(payload, prices)  # the driver's task data (no disk read on this node) and prices
        self.pool = DatabasePool()
        self.engines: dict = {}
        self.score_lock = threading.Lock()
        self.judge = None
        if judge:
            from loophole_scoring import LitellmJudge

            assert judge.model is not None  # ModelSpec: a judge names its model
            self.judge = LitellmJudge(judge.model, **resolved_args(judge))

    def ready(self, domains: list[str], slots: int) -> bool:
        """Load ``slots`` databases per domain (one per thread) and the scorer's before the sweep's clock starts."""
        from contextlib import ExitStack

        from gold_variants import preload

        with ExitStack() as stack:
            for domain in domains:
                for _ in range(slots):
                    stack.enter_context(self.pool.database(domain))
        for domain in domains:  # the scorer's engine and the clause rules' database, once per worker
            with self.score_lock:
                _engine(self.engines, domain)
            preload(domain)
        warm_up(domains)
        return True

    def run(self, spec: TrialSpec) -> tuple[dict, list[dict]]:
        return run_trial(spec, self.pool, self.engines, self.score_lock, self.judge)

    def node(self) -> str:
        from harness.cluster import current_node

        return current_node()


@dataclass
class SweepProgress:
    total: int
    done_before: int
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


def _provider(spec: TrialSpec) -> str:
    return spec.agent.provider


def run_sweep(
    config: SweepConfig,
    on_progress: Callable[[SweepProgress], None] | None = None,
    workers: int | None = None,
    on_note: Callable[[str], None] | None = None,
) -> tuple[Path, SweepProgress]:
    """Run the trials of ``config`` that the output does not hold yet; returns the run directory.

    ``on_note`` gets lines for the user: the first failure of each kind with its reason, and provenance
    changes. An endpoint that fails stops the sweep (``EndpointError``); SIGINT or SIGTERM stops it
    (``SweepInterrupted``); either way every finished trial is written first.
    """
    _check_keys(config)
    _probe_endpoints(config)
    out = config.output_dir()
    sweep_id = config.sweep_id()
    config, server = _with_scripted_server(config)
    try:
        return _run(config, out, sweep_id, on_progress, workers, on_note or (lambda _: None))
    finally:
        if server is not None:
            server.stop()


def _probe_endpoints(config: SweepConfig) -> None:
    """Connect (TCP only, no request) to every configured ``api_base`` before Ray starts: a refused
    connection or an unknown host stops the sweep in a second, with the endpoint named."""
    import socket
    from urllib.parse import urlsplit

    specs = [*config.agents, config.user_simulator, *([config.judge] if config.judge else [])]
    for spec in specs:
        base = spec.args.api_base
        if not base or base == SCRIPTED:
            continue
        url = urlsplit(base)
        if url.hostname is None:
            continue
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            socket.create_connection((url.hostname, port), timeout=10).close()
        except OSError as exc:
            raise EndpointError(
                f"endpoint {base} (model {spec.model}): cannot connect: {exc.strerror or exc}; "
                "sweep stopped before any trial ran"
            ) from None


def _check_keys(config: SweepConfig) -> None:
    """A key named by ``api_key_env`` must be set before any trial runs (not found out trial by trial)."""
    named: list[tuple[str, ModelSpec]] = [(f"agents.{i}", a) for i, a in enumerate(config.agents)] + [("user_simulator", config.user_simulator)]
    if config.judge is not None:
        named.append(("judge", config.judge))
    for where, spec in named:
        if spec.api_key_env and not os.environ.get(spec.api_key_env):
            raise HarnessInputError(
                f"field '{where}.api_key_env': environment variable {spec.api_key_env} is not set (model {spec.model})"
            )


SCRIPTED = "scripted://local"


def _with_scripted_server(config: SweepConfig):
    """``api_base: scripted://local`` starts the project's loopback scripted server for this sweep."""
    specs = [*config.agents, config.user_simulator]
    if not any(s.args.api_base == SCRIPTED for s in specs):
        return config, None
    from pydantic import SecretStr

    from harness.scripted_llm import ScriptedLLMServer

    server = ScriptedLLMServer().start()
    config = config.model_copy(deep=True)
    for spec in [*config.agents, config.user_simulator]:
        if spec.args.api_base == SCRIPTED:
            spec.args.api_base = server.api_base
            spec.args.api_key = spec.args.api_key or SecretStr("scripted-no-key")
    return config, server


def _run(config: SweepConfig, out: Path, sweep_id: str, on_progress, workers, on_note):
    import ray

    from harness.execution import init_ray
    from loophole_store import record_run, run_info

    _claim_output(out, config, sweep_id)
    pairs = {(d, v) for d in config.domains for v in config.task_versions}
    settings = {a.name: a.public() for a in config.agents} | {"user_simulator": config.user_simulator.public()}
    info = run_info("sweep", pairs, config.judge.public() if config.judge else None, sweep_id=sweep_id,
                    generation_settings=settings)
    for note in record_run(out, info):
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
        return out, progress

    from harness.cluster import build_payload, placements, worker_count
    from harness.costs import CostMeter

    cpus = os.cpu_count() or 1
    if config.address:
        init_ray(config.address)
        n_workers = workers or worker_count(config.address, config.max_concurrency, cpus)
    else:
        n_workers = workers or worker_count(None, config.max_concurrency, cpus)
        init_ray(None, max(n_workers, cpus))
    threads = math.ceil(config.max_concurrency / n_workers)
    actor_cls = ray.remote(num_cpus=0, max_restarts=3, max_task_retries=3, max_concurrency=threads)(  # type: ignore[call-overload]  # ray's overloads omit max_concurrency
        TrialWorker
    )
    payload = ray.put(build_payload(pairs))  # once into the object store: workers read no task data from disk
    actors = [actor_cls.options(**where).remote(config.judge, payload, config.prices)
              for where in placements(n_workers)]
    pending = deque(trial_specs(config, longest_first(todo)))
    meter = CostMeter.from_rows(store.read_table(out, "trials").to_dict("records"), config.max_cost_usd)
    progress.cost_usd = meter.spent
    inflight: dict = {}
    buffer_trials: list[dict] = []
    buffer_scores: list[dict] = []
    seen_kinds: set[str] = set()
    seq = int(time.time() * 1000) % 10**6
    last_flush = time.monotonic()

    def flush() -> None:
        nonlocal seq, last_flush
        if buffer_trials:
            seq += 1
            store.write_part(out, buffer_trials, buffer_scores, seq)
            progress.written += len(buffer_trials)
            buffer_trials.clear()
            buffer_scores.clear()
        last_flush = time.monotonic()

    def take(spec: TrialSpec, trial: dict, scores: list[dict]) -> None:
        status = trial.get("status")
        if status == ENDPOINT_ERROR:  # the configuration's failure: stop, and run the trial again later
            raise EndpointError(
                f"{trial['reason']} — sweep stopped; fix the endpoint and run it again "
                f"({progress.written + len(buffer_trials)} finished trials kept in {out})"
            )
        buffer_trials.append(trial)
        buffer_scores.extend(scores)
        meter.add(trial)
        progress.cost_usd = meter.spent
        progress.per_agent[spec.agent_name] += 1
        progress.statuses[status] += 1
        progress.retries += trial.get("retries") or 0
        if status is not None and status not in (Status.OK, Status.NO_JUDGE) and status not in seen_kinds:
            seen_kinds.add(status)
            on_note(f"first {status}: {spec.key}: {trial.get('reason')}")

    with _signals_raise():
        try:
            # imports and first database load, before the clock
            ray.get([a.ready.remote(list(config.domains), threads) for a in actors])
            nodes = ray.get([a.node.remote() for a in actors])
            progress.started_at = time.perf_counter()
            _dispatch(config, actors, nodes, meter, pending, inflight, take, flush, lambda: last_flush, on_progress,
                      progress)
        finally:
            # finished trials are written whatever stopped the loop: results Ray already holds, then the buffer
            try:
                if inflight:
                    ready, _ = ray.wait(list(inflight), num_returns=len(inflight), timeout=0)
                    for ref in ready:
                        with contextlib.suppress(Exception):
                            trial, scores = ray.get(ref)
                            if trial.get("status") != ENDPOINT_ERROR:
                                take(inflight[ref], trial, scores)
                flush()
                store.compact(out)
            finally:
                for actor in actors:
                    ray.kill(actor)
    progress.finished_at = time.perf_counter()
    return out, progress


def _dispatch(config, actors, nodes, meter, pending, inflight, take, flush, last_flush, on_progress, progress) -> None:
    import ray

    from harness.ratelimit import FairShare

    per_provider: Counter = Counter()
    provider_of = {a.name: a.provider for a in config.agents}
    share = FairShare(pending, group_of=lambda s: s.agent_name)  # each agent (model) its share of the slots
    pending.clear()
    node_of: dict = {}
    turn = 0

    def allowed(agent: str) -> bool:
        limit = config.concurrency.get(provider_of[agent])
        return limit is None or per_provider[provider_of[agent]] < limit

    # Workers run at most max_concurrency trials at once (their threads); a couple more wait in each
    # worker's queue so a freed thread starts the next trial without a round trip to this loop.
    queue_ahead = config.max_concurrency + 2 * len(actors)
    while len(share) or inflight:
        while len(inflight) < queue_ahead and not meter.would_exceed(len(inflight)):
            spec = share.pop(allowed)
            if spec is None:
                break
            ref = actors[turn % len(actors)].run.remote(spec)
            node_of[ref] = nodes[turn % len(actors)]
            turn += 1
            inflight[ref] = spec
            per_provider[_provider(spec)] += 1
        if not inflight:  # trials wait, none can start: the next one could exceed the budget
            progress.stopped = "budget reached"
            pending.extend(share.clear())
            break
        ready, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
        for ref in ready:
            spec = inflight[ref]
            try:
                trial, scores = ray.get(ref)
            except ray.exceptions.RayError as exc:  # the worker died more often than Ray retries
                trial = {"run_id": spec.key.split("/", 1)[0], "trajectory_id": spec.key, "simulation_id": spec.key,
                         "domain": spec.domain, "task_version": spec.version, "task_id": spec.task_id,
                         "trial": spec.trial, "seed": spec.seed, "agent_name": spec.agent_name,
                         "agent_model": spec.agent.model, "status": Status.INFRA_ERROR,
                         "reason": f"worker failed: {type(exc).__name__}", "messages_json": "[]"}
                scores = []
            take(spec, trial, scores)
            del inflight[ref]
            share.done(spec)
            progress.per_node[node_of.pop(ref)] += 1
            per_provider[_provider(spec)] -= 1
        buffered = progress.statuses.total() - progress.written
        if buffered >= config.flush_every or (buffered and time.monotonic() - last_flush() > config.flush_interval_s):
            flush()
        if on_progress and ready:
            on_progress(progress)


@contextlib.contextmanager
def _signals_raise():
    """SIGINT and SIGTERM raise ``SweepInterrupted`` in the driver (main thread only), so the ``finally``
    that writes finished trials runs; the previous handlers come back afterwards."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: object) -> None:
        raise SweepInterrupted(
            f"interrupted by {signal.Signals(signum).name}: finished trials were written; run the sweep again to resume"
        )

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _claim_output(out: Path, config: SweepConfig, sweep_id: str) -> None:
    """One output directory holds one sweep: a changed config is never silently mixed in. A directory
    that holds no trial yet (a sweep stopped by its endpoint before any finished) is free to take."""
    marker = out / "sweep.json"
    if marker.exists():
        held = json.loads(marker.read_text()).get("sweep_id")
        holds_trials = (out / "trials.parquet").exists() or any((out / "parts").glob("trials-*.parquet"))
        if held == sweep_id:
            return
        if holds_trials:
            raise HarnessInputError(
                f"{out}: holds sweep {held}; this config is sweep {sweep_id} (models, settings, tasks or trials "
                "changed); set a different 'output'"
            )
    out.mkdir(parents=True, exist_ok=True)
    payload = {"sweep_id": sweep_id, "config": config.redacted()}
    store.atomic_write_text(marker, json.dumps(payload, indent=2, default=str))
