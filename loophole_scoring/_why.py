"""Why a gold fails a trajectory, recomputed on the replay engine: the database records whose final state
differs from the gold's (field by field), the communicate items the agent never said, and the NL assertions
not met. Plain data for a reader (the trial viewer renders it); nothing here knows of HTML."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

_ABSENT = "(absent)"


@dataclass
class RecordDiff:
    """One record (``table/key``) that differs, with its differing fields: (field, trajectory, gold)."""

    record: str
    fields: list[tuple[str, str, str]]


@dataclass
class GoldFailure:
    """Why one gold fails: records that differ, unmet communicate items, NL assertions with their state,
    and a note when a part could not be recomputed."""

    records: list[RecordDiff] = field(default_factory=list)
    communicate: list[str] = field(default_factory=list)
    nl: list[tuple[str, str]] = field(default_factory=list)
    note: str = ""


def _fails(reward: float | None) -> bool:
    return reward is not None and reward == reward and reward < 1 - 1e-6


def is_false(value: object) -> bool:
    """False, as opposed to missing (None or NaN)."""
    return value is not None and value == value and not bool(value)


def tau2_messages(messages: list[dict]) -> list[Any]:
    """Recorded message dicts as tau2's message models."""
    from tau2.data_model.message import AssistantMessage, SystemMessage, ToolMessage, UserMessage

    kinds = {
        "assistant": AssistantMessage,
        "user": UserMessage,
        "tool": ToolMessage,
        "system": SystemMessage,
    }
    return [kinds[m["role"]].model_validate(m) for m in messages]


class WhyGoldFails:
    """``explain_variant`` per trajectory, on the process's replay engines (``envs._replay.engine_for``: gold
    replays are cached there)."""

    def _engine(self, domain: str) -> Any:
        from envs import engine_for

        return engine_for(domain)

    def explain(self, row: Any, messages: list[dict], golds: list[Any]) -> dict[str, GoldFailure]:
        """Per failing gold of ``row`` (a trial: domain, task_version, task_id) and its score rows
        (gold_id, reward, db_match, communicate, nl_assertion, reward_basis): why it fails."""
        from pydantic import ValidationError
        from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

        from envs import (
            ReplayMode,
            TauDataError,
            TrajectoryStructureError,
            UnknownTaskError,
            load_task_set,
            tool_call_pairs,
        )
        from gold_variants import variants_for

        failing = [g for g in golds if _fails(g.reward)]
        if not failing:
            return {}
        out = {g.gold_id: GoldFailure() for g in failing}
        try:
            task = load_task_set(row.domain, row.task_version).task(row.task_id)
            parsed = tau2_messages(messages)
            criteria = task.evaluation_criteria
            variants = {
                v.gold_id: v for v in variants_for(row.domain, row.task_version, row.task_id)
            }
            state = None
            if any(is_false(g.db_match) for g in failing):
                engine = self._engine(row.domain)
                # the mode the row was scored in (rows written before the modes existed: strict)
                recorded = getattr(row, "replay_mode", None)
                mode = ReplayMode(recorded) if isinstance(recorded, str) and recorded else ReplayMode.STRICT
                replay = engine.replay_trajectory(tool_call_pairs(parsed), mode)
                state = None if replay.diverged else replay.state
        except (
            TauDataError,
            UnknownTaskError,
            TrajectoryStructureError,
            ValidationError,
            KeyError,
            TypeError,
        ) as exc:
            for entry in out.values():
                entry.note = f"could not recompute the differences: {type(exc).__name__}: {exc}"[
                    :300
                ]
            return out
        for g in failing:
            entry = out[g.gold_id]
            if is_false(g.db_match):
                variant = variants.get(g.gold_id)
                actions = (
                    (criteria.actions or [])
                    if g.gold_id == "gold"
                    else (variant.actions if variant else None)
                )
                if state is None:
                    entry.note = (
                        "the replay diverged from the recorded tool outputs: no database comparison"
                    )
                elif actions is None:
                    entry.note = (
                        "this reading checks a condition on the records rather than a gold database"
                    )
                else:
                    entry.records = record_diffs(engine, state, engine.gold_outcome(actions).state)
            if (
                g.communicate is not None
                and g.communicate == g.communicate
                and g.communicate < 1
                and criteria
            ):
                checks = CommunicateEvaluator.evaluate_communicate_info(
                    parsed, criteria.communicate_info or []
                )
                entry.communicate = [c.info for c in checks if not c.met]
            basis = str(g.reward_basis or "")
            if (
                "NL_ASSERTION" in basis
                and criteria
                and criteria.nl_assertions
                and not (g.nl_assertion == 1)
            ):
                state_word = (
                    "not judged (no judge)"
                    if g.nl_assertion is None or g.nl_assertion != g.nl_assertion
                    else "judged not met"
                )
                entry.nl = [(a, state_word) for a in criteria.nl_assertions]
        return out


def record_diffs(engine: Any, mine: dict, gold: dict) -> list[RecordDiff]:
    """Records whose final JSON differs, with the top-level fields that differ (trajectory, gold)."""
    out = []
    for key in sorted(mine.keys() | gold.keys()):
        left = mine[key] if key in mine else engine.pristine(key)
        right = gold[key] if key in gold else engine.pristine(key)
        if left == right:
            continue
        a = json.loads(left) if left is not None else None
        b = json.loads(right) if right is not None else None
        fields: list[tuple[str, str, str]] = []
        field_diffs("", a, b, fields)
        out.append(RecordDiff(f"{key[0]}/{key[1]}", fields))
    return out


def field_diffs(path: str, a: Any, b: Any, out: list[tuple[str, str, str]]) -> None:
    """The leaves where two JSON values differ, as dotted paths (dicts are walked, lists compared whole)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for name in sorted(a.keys() | b.keys()):
            field_diffs(
                f"{path}.{name}" if path else str(name),
                a.get(name, _ABSENT),
                b.get(name, _ABSENT),
                out,
            )
    elif a != b:
        out.append(
            (
                path or "(record)",
                short(_ABSENT if a is None else a),
                short(_ABSENT if b is None else b),
            )
        )


def short(value: Any, limit: int = 400) -> str:
    """A value as text, cut at ``limit`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= limit else text[:limit] + " …"
