"""A sweep's worker side: one trial simulated and scored → a typed ``TrialOutcome``, and the Ray actor.

Each worker is a threaded Ray actor: its threads run trials through tau2's orchestrator (mostly waiting on
LLM calls) on databases from a pool, and score them one at a time on the process's replay engine.
"""

from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import loophole_store as store
from harness.config import ModelSpec
from harness.errors import EndpointError
from loophole_scoring import Status

if TYPE_CHECKING:
    from harness._trial_spec import TrialSpec
    from loophole_scoring import Judge

# tau2 and litellm (through harness.agents, harness.simulation and the scorer) are imported where a trial
# runs, in the worker: the driver imports this module for ``TrialWorker`` and ``TrialOutcome`` only, and
# their import is seconds of CPU that an embedded sweep's start on 2 cores would otherwise pay twice.


@dataclass(frozen=True)
class TrialOutcome:
    """What a worker hands the driver for one trial: the rows to store, or the endpoint error that stops
    the sweep (nothing is stored for it, so the trial runs again when the sweep resumes)."""

    trial: dict = field(default_factory=dict)
    scores: list[dict] = field(default_factory=list)
    endpoint_error: str | None = None

    @property
    def status(self) -> str | None:
        return self.trial.get("status")


def spec_row(spec: TrialSpec, **columns: object) -> dict:
    """A trial's ``trials`` row as far as its key tells (the rest is filled by the trial, or stays null)."""
    return store.trial_row(
        run_id=spec.key.split("/", 1)[0], trajectory_id=spec.key, simulation_id=spec.key,
        domain=spec.domain, task_version=spec.version, task_id=spec.task_id, trial=spec.trial, seed=spec.seed,
        agent_name=spec.agent_name, agent_model=spec.agent.model, agent_implementation=spec.agent.implementation,
        user_model=spec.user.model, **columns,
    )


def run_trial(spec: TrialSpec, pool, score_lock: threading.Lock, judge: Judge | None) -> TrialOutcome:
    """Simulate and score one trial under the failure policy (README): the model's failures are the
    agent's (reward 0), the infrastructure's are ``infra_error`` rows, an endpoint error stops the sweep."""
    from envs import engine_for, load_task_set
    from harness.agents import AgentFailure, InfraError, RetryCounter
    from harness.simulation import simulate
    from loophole_scoring import score_simulation, strict_verdict

    counter = RetryCounter()
    started = time.perf_counter()
    no_messages = {"n_messages": 0, "messages_json": "[]"}
    try:
        sim, meant = simulate(spec, pool, counter)
    except EndpointError as exc:
        return TrialOutcome(endpoint_error=str(exc))
    except AgentFailure as exc:
        with score_lock:  # a crash is never a strict pass; a broken gold's task stays null (marked)
            task = load_task_set(spec.domain, spec.version).task(spec.task_id)
            strict = strict_verdict(0.0, [], spec.domain, spec.version, task, engine_for(spec.domain), None)
        row = spec_row(spec, status=Status.AGENT_ERROR, reason=str(exc)[:500], retries=counter.retries,
                       reward=0.0, multi_gold_reward=0.0, multi_gold_upper=0.0, matched_gold_ids=[],
                       strict_reward=strict.reward, strict_reason=strict.reason,
                       duration_s=time.perf_counter() - started, **no_messages)
        scores = store.failure_scores(run_id=row["run_id"], trajectory_id=spec.key, domain=spec.domain,
                                      task_version=spec.version, task_id=spec.task_id,
                                      status=Status.AGENT_ERROR, reason=row["reason"])
        return TrialOutcome(row, scores)
    except InfraError as exc:
        return TrialOutcome(spec_row(spec, status=Status.INFRA_ERROR, reason=str(exc), retries=counter.retries,
                                     duration_s=time.perf_counter() - started, **no_messages))
    except Exception as exc:  # noqa: BLE001 - a harness or tau2 bug: recorded with its traceback's tail
        return TrialOutcome(spec_row(spec, status=Status.ERROR, reason=with_trace(exc), retries=counter.retries,
                                     duration_s=time.perf_counter() - started, **no_messages))
    dumped = sim.model_dump(mode="json")
    row = spec_row(spec, retries=counter.retries, **meant, **store.trajectory_columns(
        dumped["messages"], termination_reason=sim.termination_reason.value, duration_s=sim.duration,
        agent_cost=sim.agent_cost, user_cost=sim.user_cost,
    ))
    try:
        with score_lock:  # the process's replay engine scores one trajectory at a time
            scored = score_simulation(sim, spec.domain, spec.version, engine_for(spec.domain), judge)
        trial, scores = store.reward_rows(scored, run_id=row["run_id"], trajectory_id=spec.key)
    except Exception as exc:  # noqa: BLE001 - keep the trajectory; a scoring failure is not an infra error
        row.update(status=Status.ERROR, reason=f"scoring failed: {with_trace(exc)}")
        return TrialOutcome(row)
    row.update(trial)
    return TrialOutcome(row, scores)


def with_trace(exc: BaseException) -> str:
    """The error and where it happened (the traceback's last frames): shown on the driver, not only in
    Ray's worker logs."""
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    where = " <- ".join(f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(frames))
    return f"{type(exc).__name__}: {exc} (at {where})"[:1000]


class TrialWorker:
    """A Ray actor (threaded): a database pool, the process's replay engines, and a judge."""

    def __init__(self, judge: ModelSpec | None, payload=None, prices: dict | None = None) -> None:
        from envs import DatabasePool
        from harness._quiet import quiet_imports, set_log_level
        from harness.cluster import ClusterMismatchError, prepare_worker

        quiet_imports()
        set_log_level(False)
        from loophole_scripted_llm import register_scripted_models

        register_scripted_models()
        self.mismatch: str | None = None
        try:  # the driver's task data (no disk read on this node) and prices
            prepare_worker(payload, prices)
        except ClusterMismatchError as exc:  # told to the driver by ready(): one line, not a Ray traceback
            self.mismatch = str(exc)
        self.pool = DatabasePool()
        self.score_lock = threading.Lock()
        self.judge = None
        if judge:
            from harness.simulation import resolved_args
            from loophole_scoring import LitellmJudge

            assert judge.model is not None  # ModelSpec: a judge names its model
            self.judge = LitellmJudge(judge.model, **resolved_args(judge))

    def ready(self, domains: list[str], slots: int, llm: bool = True) -> str | None:
        """Load ``slots`` databases per domain (one per thread) and the scorer's before the sweep's clock
        starts (and litellm's first call where trials call a model, ``llm``); returns why this node cannot
        take trials (another package version), or None."""
        from contextlib import ExitStack

        from envs import engine_for
        from gold_variants import preload
        from harness.simulation import warm_up

        if self.mismatch is not None:
            return self.mismatch
        with ExitStack() as stack:
            for domain in domains:
                for _ in range(slots):
                    stack.enter_context(self.pool.database(domain))
        for domain in domains:  # the scorer's engine and the clause rules' database, once per worker
            with self.score_lock:
                engine_for(domain)
            preload(domain)
        warm_up(domains, llm)
        return None

    def run(self, spec: TrialSpec) -> TrialOutcome:
        if self.mismatch is not None:  # ready() said so; a restarted actor must not score either
            raise RuntimeError(self.mismatch)
        return run_trial(spec, self.pool, self.score_lock, self.judge)

    def node(self) -> str:
        from harness.cluster import current_node

        return current_node()
