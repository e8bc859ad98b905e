"""A rescored simulation's trials row before scoring, and the scores folded into it (``harness._rescore_chunks``)."""

from __future__ import annotations

import loophole_store as store
from loophole_ingest import ImportedRun, ImportedSimulation, foreign_tools


def _trial_row(run: ImportedRun, index: int, item: ImportedSimulation) -> dict:
    raw = item.raw
    info = raw.get("reward_info")
    recorded = info.get("reward") if isinstance(info, dict) and run.recorded_version is None else None
    messages = raw.get("messages")
    return store.trial_row(
        run_id=run.run_id,
        trajectory_id=f"{run.run_id}:{index:05d}:{item.simulation_id}",
        simulation_id=item.simulation_id,
        source_file=str(run.path),
        source_sha256=run.sha256,
        domain=run.domain,
        task_version=run.task_version,
        task_id=str(raw.get("task_id")) if raw.get("task_id") is not None else None,
        trial=store.int_or_null(raw.get("trial")),
        seed=store.int_or_null(raw.get("seed")),
        agent_name=run.agent_model,
        agent_model=run.agent_model,
        agent_implementation=run.agent_implementation,
        user_model=run.user_model,
        recorded_reward=store.float_or_null(recorded),
        recorded_domain=run.recorded_domain,
        policy_sha256=run.policy_sha256,
        tasks_sha256=run.tasks_sha256,
        judge="none",
        judge_cost=0.0,
        flags=list(item.flags) + ([store.AGAINST_VERSION_FLAG] if run.recorded_version is not None else []),
        file_task_id=str(raw["_file_task_id"]) if raw.get("_file_task_id") is not None else None,
        upstream_json=item.upstream.model_dump_json() if item.upstream is not None else None,
        **store.trajectory_columns(
            messages if isinstance(messages, list) else [],
            termination_reason=raw.get("termination_reason"),
            duration_s=raw.get("duration"),
            agent_cost=raw.get("agent_cost"),
            user_cost=raw.get("user_cost"),
            from_strict_json=True,  # ingest's decoders refuse NaN and Infinity
        ),
    )


def _row_of(run: ImportedRun, index: int, item: ImportedSimulation) -> dict:
    """A simulation's trials row before scoring (an unscorable one's is final)."""
    row = _trial_row(run, index, item)
    if item.sim is None:
        row.update(reward=None, multi_gold_reward=None, multi_gold_upper=None, status=item.status, reason=item.error)
    else:
        row["_foreign_tools"] = foreign_tools(run.domain, item.raw.get("messages"))
    return row


def _merge(rows: list[dict], scored: list[tuple[str, dict, list[dict]]]) -> list[dict]:
    """The scores folded into their trials rows; the scores rows."""
    by_id = {r["trajectory_id"]: r for r in rows}
    score_rows: list[dict] = []
    for trajectory_id, trial, scores in scored:
        row = by_id[trajectory_id]
        row.update(trial)
        if (tools := row.get("_foreign_tools")) and trial["status"] == "replay_divergence":
            row["reason"] = (
                f"custom tools: the agent called {', '.join(tools)}, not {row['domain']} "
                f"tools (the run used its own tool set, so the pinned package cannot replay it; the default "
                f"lenient replay treats them as no-ops, as tau2 1.0.1 does); {trial['reason']}"
            )
        row["_normalised"] = any(s["replay_normalised"] for s in scores)
        score_rows += scores
    return score_rows
