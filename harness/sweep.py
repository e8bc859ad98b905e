"""Sweeps: config → trial keys → Ray workers → trajectories → scores → Parquet parts, resumable.

Each Ray worker is a threaded actor: its threads run trials through tau2's orchestrator (mostly waiting
on LLM calls) on databases from a pool, and score them, one at a time, on the worker's replay engine.
The driver keeps at most ``max_concurrency`` trials in flight (and each provider under its own limit),
and writes finished trials as Parquet parts in batches, so no result lives only in memory.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness import store
from harness.agents import InfraError, RetryCounter, RetryPolicy
from harness.config import SweepConfig
from harness.errors import HarnessInputError
from harness.simulation import TrialSpec, simulate
from harness.trials import TrialKey, expand


def trial_specs(config: SweepConfig, keys: list[TrialKey]) -> list[TrialSpec]:
    agents = {a.name: a for a in config.agents}
    policies = {d: Path(p).read_text(encoding="utf-8") for d, p in config.policy_overrides.items()}
    retry = RetryPolicy(config.retries.max_attempts, config.retries.base_delay_s, config.retries.max_delay_s)
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
    """Simulate and score one trial; infra failures become ``infra_error`` rows, never scores."""
    from harness.rescoring import scored_rows

    counter = RetryCounter()
    row = {
        "run_id": spec.key.split("/", 1)[0], "trajectory_id": spec.key, "simulation_id": spec.key,
        "source_file": None, "source_sha256": None, "domain": spec.domain, "task_version": spec.version,
        "task_id": spec.task_id, "trial": spec.trial, "seed": spec.seed, "agent_name": spec.agent_name,
        "agent_model": spec.agent.model, "agent_implementation": spec.agent.implementation,
        "user_model": spec.user.model, "recorded_reward": None,
    }
    started = time.perf_counter()
    try:
        sim, meant = simulate(spec, pool, counter)
    except InfraError as exc:
        row.update(status="infra_error", reason=str(exc), retries=counter.retries,
                   duration_s=time.perf_counter() - started, n_messages=0, messages_json="[]")
        return row, []
    except Exception as exc:  # noqa: BLE001 - a harness or tau2 bug: recorded, not hidden
        row.update(status="error", reason=f"{type(exc).__name__}: {exc}"[:500], retries=counter.retries,
                   duration_s=time.perf_counter() - started, n_messages=0, messages_json="[]")
        traceback.print_exc()
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
        traceback.print_exc()
        row.update(status="error", reason=f"scoring failed: {type(exc).__name__}: {exc}"[:500])
        return row, []
    row.update(trial)
    return row, [{"run_id": row["run_id"], **s} for s in scores]


def _engine(engines: dict, domain: str):  # type: ignore[no-untyped-def]
    """The worker's replay engine for ``domain``, built on first use (call under the score lock)."""
    if domain not in engines:
        from envs.replay import ReplayEngine

        engines[domain] = ReplayEngine(domain)
    return engines[domain]


class TrialWorker:
    """A Ray actor (threaded): a database pool, a replay engine per domain, and a judge."""

    def __init__(self, judge: dict | None, payload=None, prices: dict | None = None) -> None:  # type: ignore[no-untyped-def]
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
            from harness.scoring import LitellmJudge

            self.judge = LitellmJudge(judge["model"], **judge.get("args", {}))

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
    errors: int = 0
    infra_errors: int = 0
    retries: int = 0
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
        done = sum(self.per_agent.values()) - self.done_before
        return done / minutes if done and minutes > 0 else None

    def eta_s(self) -> float | None:
        rate = self.throughput_per_min()
        left = self.total - sum(self.per_agent.values())
        return 60 * left / rate if rate else None


def _provider(spec: TrialSpec) -> str:
    return spec.agent.provider


def run_sweep(
    config: SweepConfig,
    on_progress: Callable[[SweepProgress], None] | None = None,
    workers: int | None = None,
) -> tuple[Path, SweepProgress]:
    """Run the trials of ``config`` that the output does not hold yet; returns the run directory."""

    out = config.output_dir()
    sweep_id = config.sweep_id()
    config, server = _with_scripted_server(config)
    try:
        return _run(config, out, sweep_id, on_progress, workers)
    finally:
        if server is not None:
            server.stop()


SCRIPTED = "scripted://local"


def _with_scripted_server(config: SweepConfig):  # type: ignore[no-untyped-def]
    """``api_base: scripted://local`` starts the project's loopback scripted server for this sweep."""
    specs = [*config.agents, config.user_simulator]
    if not any(s.args.get("api_base") == SCRIPTED for s in specs):
        return config, None
    from harness.scripted_llm import ScriptedLLMServer

    server = ScriptedLLMServer().start()
    config = config.model_copy(deep=True)
    for spec in [*config.agents, config.user_simulator]:
        if spec.args.get("api_base") == SCRIPTED:
            spec.args["api_base"] = server.api_base
            spec.args.setdefault("api_key", "scripted-no-key")
    return config, server


def _run(config: SweepConfig, out: Path, sweep_id: str, on_progress, workers):  # type: ignore[no-untyped-def]
    import ray

    from harness.execution import init_ray

    _claim_output(out, config, sweep_id)
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
    from harness.ratelimit import FairShare

    cpus = os.cpu_count() or 1
    if config.address:
        init_ray(config.address)
        n_workers = workers or worker_count(config.address, config.max_concurrency, cpus)
    else:
        n_workers = workers or worker_count(None, config.max_concurrency, cpus)
        init_ray(None, max(n_workers, cpus))
    threads = math.ceil(config.max_concurrency / n_workers)
    judge = {"model": config.judge.model, "args": config.judge.args} if config.judge else None
    actor_cls = ray.remote(num_cpus=0, max_restarts=3, max_task_retries=3, max_concurrency=threads)(TrialWorker)
    pairs = {(d, v) for d in config.domains for v in config.task_versions}
    payload = ray.put(build_payload(pairs))  # once into the object store: workers read no task data from disk
    actors = [actor_cls.options(**where).remote(judge, payload, config.prices) for where in placements(n_workers)]
    ray.get([a.ready.remote(list(config.domains), threads) for a in actors])  # imports and first database load, before the clock
    nodes = ray.get([a.node.remote() for a in actors])
    meter = CostMeter.from_rows(store.read_table(out, "trials").to_dict("records"), config.max_cost_usd)
    progress.cost_usd = meter.spent
    progress.started_at = time.perf_counter()

    share = FairShare(trial_specs(config, todo), group_of=lambda s: s.agent_name)  # each agent its share of slots
    provider_of = {a.name: a.provider for a in config.agents}
    node_of: dict = {}
    inflight: dict = {}
    per_provider: Counter = Counter()
    buffer_trials: list[dict] = []
    buffer_scores: list[dict] = []
    seq = int(time.time() * 1000) % 10**6
    last_flush = time.monotonic()
    turn = 0

    def allowed(agent: str) -> bool:
        limit = config.concurrency.get(provider_of[agent])
        return limit is None or per_provider[provider_of[agent]] < limit

    def flush() -> None:
        nonlocal seq, last_flush
        if buffer_trials:
            seq += 1
            store.write_part(out, buffer_trials, buffer_scores, seq)
            buffer_trials.clear()
            buffer_scores.clear()
        last_flush = time.monotonic()

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
            share.clear()
            break
        ready, _ = ray.wait(list(inflight), num_returns=1, timeout=1.0)
        for ref in ready:
            spec = inflight.pop(ref)
            share.done(spec)
            progress.per_node[node_of.pop(ref)] += 1
            per_provider[_provider(spec)] -= 1
            try:
                trial, scores = ray.get(ref)
            except ray.exceptions.RayError as exc:  # the worker died more often than Ray retries
                trial = {"run_id": sweep_id, "trajectory_id": spec.key, "simulation_id": spec.key,
                         "domain": spec.domain, "task_version": spec.version, "task_id": spec.task_id,
                         "trial": spec.trial, "seed": spec.seed, "agent_name": spec.agent_name,
                         "agent_model": spec.agent.model, "status": "infra_error",
                         "reason": f"worker failed: {type(exc).__name__}", "messages_json": "[]"}
                scores = []
            buffer_trials.append(trial)
            buffer_scores.extend(scores)
            meter.add(trial)
            progress.cost_usd = meter.spent
            progress.per_agent[spec.agent_name] += 1
            progress.errors += trial.get("status") == "error"
            progress.infra_errors += trial.get("status") == "infra_error"
            progress.retries += trial.get("retries") or 0
        if len(buffer_trials) >= config.flush_every or (buffer_trials and time.monotonic() - last_flush > 5):
            flush()
        if on_progress and ready:
            on_progress(progress)
    flush()
    progress.finished_at = time.perf_counter()
    store.compact(out)
    return out, progress


def _claim_output(out: Path, config: SweepConfig, sweep_id: str) -> None:
    """One output directory holds one sweep: a changed config is never silently mixed in."""
    marker = out / "sweep.json"
    if marker.exists():
        held = json.loads(marker.read_text()).get("sweep_id")
        if held != sweep_id:
            raise HarnessInputError(
                f"{out}: holds sweep {held}; this config is sweep {sweep_id} (models, tasks or trials "
                "changed); set a different 'output'"
            )
        return
    out.mkdir(parents=True, exist_ok=True)
    payload = {"sweep_id": sweep_id, "config": config.redacted()}
    tmp = marker.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2, default=str))
    os.replace(tmp, marker)
