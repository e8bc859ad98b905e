"""A gold's actions replayed one by one on the replay engine: what each does, and whether it raises.

tau2's ``EnvironmentEvaluator`` replays a task's gold actions on a fresh environment and swallows every
exception (``except Exception: logger.warning``), so a gold write that raises silently leaves the expected
end state without it. ``replay_steps`` keeps, per action, the tool's kind (read or write, from tau2's own
toolkit annotation), the exception it raised, and whether it changed the database (the records it
touched, compared with their state before the action).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tau2.data_model.tasks import Action

from envs._records import Shot, dump_of, shot_of
from envs._replay import ReplayEngine, ReplayResult, State, actions_key
from envs._tracked import _MISSING


@dataclass(frozen=True)
class GoldStep:
    """One gold action on replay."""

    index: int
    action_id: str
    name: str
    kind: str  # tau2's ToolType value ("read", "write", "think", "generic"), or "unknown" (no such tool)
    error: str | None  # what the tool raised, None when it ran
    changed_db: bool  # the database differs before and after this action

    @property
    def is_write(self) -> bool:
        """A write by tau2's toolkit annotation. A call to a tool the domain lacks is not one: it raises
        before it could change anything (listed with the reads' errors)."""
        return self.kind == "write"

    def describe(self) -> str:
        return f"{self.action_id} {self.name}: {self.error}" if self.error else f"{self.action_id} {self.name}"


def tool_kind(engine: ReplayEngine, name: str) -> str:
    return engine.tool_kind(name)




def _snapshot(engine: ReplayEngine, last: dict[tuple[str, Any], Shot]) -> dict[tuple[str, Any], Shot]:
    """Every touched record's JSON. A record whose dump has the bytes it had at the ``last`` snapshot (first touched:
    its pristine bytes) has that JSON (``envs._records.marshal_of``), not written again: each step wrote every record
    reached so far (a flight's JSON ~0.9M instructions), most of them unchanged since the step before."""
    shots: dict[tuple[str, Any], Shot] = {}
    for table_name, table in engine.tables.items():
        for key in table.touched():
            at = (table_name, key)
            value = dict.get(table, key, _MISSING)
            if value is _MISSING:
                shots[at] = (None, None)
                continue
            seen = last.get(at)
            if seen is None:
                pristine, pristine_bytes = engine._pristine_of(table_name, key, table)
                seen = (pristine_bytes, pristine)
            shots[at] = shot_of(dump_of(value), seen)
    return shots


def _before(engine: ReplayEngine, before: dict[tuple[str, Any], Shot], key: tuple[str, Any]) -> str | None:
    """A record's JSON before the step: as last snapshot, or its original (first touched by this step), from its
    shadow (``ReplayEngine._pristine_of``). Never ``engine.pristine``: mid-replay it would read (and cache) the
    touched copy."""
    if key in before:
        return before[key][1]
    table_name, record = key
    return engine._pristine_of(table_name, record, engine.tables[table_name])[0]


def replay_steps(engine: ReplayEngine, actions: Sequence[Action]) -> tuple[list[GoldStep], State]:
    """Replay ``actions`` from the pristine database as tau2's gold replay does (errors not fatal), and
    return every step and the final state (as ``ReplayEngine.replay_actions`` gives it)."""
    steps, state, _ = _replayed(engine, actions)
    return steps, state


def gold_steps(engine: ReplayEngine, actions: Sequence[Action],
               key: tuple[str, ...] | None = None) -> tuple[list[GoldStep], ReplayResult]:
    """A gold's steps and its replay (``ReplayEngine.replay_actions``' answer: the same state, the same errors),
    from one replay, cached on the engine by ``actions_key`` (``key`` where the caller has it): the gold replay
    and strict's gold writes each replayed every task's gold once a process (#47)."""
    key = actions_key(actions) if key is None else key
    found = engine._gold_steps.get(key)
    if found is None:
        steps, state, errors = _replayed(engine, actions)
        found = engine._gold_steps[key] = steps, engine._gold_cache.setdefault(key, ReplayResult(state, errors=errors))
    return found


def _replayed(engine: ReplayEngine, actions: Sequence[Action]) -> tuple[list[GoldStep], State, list[str]]:
    """``replay_steps``, with each error as ``replay_actions`` words it too."""
    steps: list[GoldStep] = []
    errors: list[str] = []
    try:
        before = _snapshot(engine, {})
        for index, action in enumerate(actions):
            error = None
            try:
                engine.env.make_tool_call(
                    tool_name=action.name, requestor=action.requestor, **copy.deepcopy(action.arguments)
                )
            except Exception as exc:  # noqa: BLE001 - tau2 swallows gold errors; we keep them
                error = f"{type(exc).__name__}: {exc}"
                errors.append(f"{action.name}: {exc}")
            after = _snapshot(engine, before)
            changed = any(shot[1] != _before(engine, before, key) for key, shot in after.items())
            steps.append(GoldStep(index, action.action_id, action.name, tool_kind(engine, action.name), error, changed))
            before = after
    finally:
        state = engine._collect_and_restore()
    return steps, state, errors
