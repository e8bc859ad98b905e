"""A sweep's trajectories as tau2 results files, one per agent × domain × task version, built with tau2's own
``Results`` models: what ``tau2 view``, ``harness rescore`` and ``harness leaderboard`` read like any public
run, from a clone that has no other results file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import loophole_store as store

if TYPE_CHECKING:
    import pandas as pd

    from harness.config import SweepConfig

TAU2_RESULTS = "tau2-results"
"""The folder of a sweep's run directory that holds its tau2 results files."""


def tau2_results_name(agent: str, domain: str, version: str) -> str:
    return f"{agent}_{domain}_{version}.json"


def write_tau2_results(out: Path, config: SweepConfig) -> list[Path]:
    """Write ``OUT/tau2-results/<agent>_<domain>_<version>.json`` from the run's scored trials (rows with a
    reward and a conversation; infra errors, errors and agent failures have none to replay) and return the
    paths. Each simulation's ``id`` is the sweep's trajectory id and its ``reward_info.reward`` the single-gold
    reward the sweep stored, so a rescore of the file reproduces (and checks) it."""
    from loophole_base import atomic_write_text

    trials = store.read_table(out, "trials")
    scored = trials[trials.reward.notna() & (trials.n_messages > 0)]
    written = []
    for (agent, domain, version), rows in scored.groupby(["agent_name", "domain", "task_version"], sort=True):
        results = _results(config, str(agent), str(domain), str(version), rows)
        path = out / TAU2_RESULTS / tau2_results_name(str(agent), str(domain), str(version))
        atomic_write_text(path, results.model_dump_json())
        written.append(path)
    return written


def _results(config: SweepConfig, agent_name: str, domain: str, version: str, rows: pd.DataFrame):
    from tau2.data_model.simulation import (
        AgentInfo,
        Info,
        Results,
        RewardInfo,
        SimulationRun,
        UserInfo,
    )
    from tau2.environment.environment import EnvironmentInfo

    from envs import load_task_set

    task_set = load_task_set(domain, version)
    override = config.policy_overrides.get(domain)  # type: ignore[call-overload]  # Domain keys, str looked up
    policy = Path(override).read_text(encoding="utf-8") if override else task_set.policy
    agent = next(a for a in config.agents if a.name == agent_name)
    user = config.user_simulator
    info = Info(
        git_commit=store.git_revision() or "unknown",
        num_trials=config.trials, max_steps=config.max_steps, max_errors=config.max_errors,
        # an agent that calls no model (the reading agents) is named by its sweep name, as rescore reads llm
        agent_info=AgentInfo(implementation=agent.implementation, llm=agent.model or agent.name),
        user_info=UserInfo(implementation=user.implementation, llm=user.model),
        environment_info=EnvironmentInfo(domain_name=domain, policy=policy),
        seed=config.seed,
    )
    ids = set(rows.task_id)
    simulations = []
    for r in rows.sort_values(["task_id", "trial"], key=_task_order(task_set.task_ids())).itertuples(index=False):
        messages = json.loads(r.messages_json)
        stamps = [m.get("timestamp") for m in messages if m.get("timestamp")] or [""]
        simulations.append(SimulationRun(
            id=r.trajectory_id, task_id=r.task_id, timestamp=stamps[-1], start_time=stamps[0], end_time=stamps[-1],
            duration=float(r.duration_s or 0.0), termination_reason=r.termination_reason,
            agent_cost=_number(r.agent_cost), user_cost=_number(r.user_cost),
            reward_info=RewardInfo(reward=float(r.reward)), messages=messages, trial=int(r.trial), seed=int(r.seed),
        ))
    return Results(info=info, tasks=[t for t in task_set.tasks if t.id in ids], simulations=simulations)


def _task_order(order: list[str]):
    rank = {tid: i for i, tid in enumerate(order)}

    def key(column: pd.Series) -> pd.Series:
        return column.map(rank) if column.name == "task_id" else column

    return key


def _number(x: object) -> float | None:
    return None if x is None or x != x else float(x)  # type: ignore[arg-type]  # NaN is not equal to itself
