"""Gold writes compared as tau2's tools read them (#40 class 12), for ``strict_reward``.

tau2's action check (``Action.compare_with_tool_call``) compares arguments as JSON text: the same item ids
in another order, or a flight entry with an ``origin`` the tool never reads, is "not the gold's write".
Here a gold write is made when an agent tool call of the same tool

- equals it on the keys the tool reads: a nested entry that the tool's signature types as a pydantic model
  (``FlightInfo``, ``Passenger``, ``Payment``, also where the annotation is ``Model | dict``) is read through
  that model, which ignores every other key (pydantic's default); the models are tau2's own, taken from the
  tool's parameter model (``Tool.params``), so no key is listed by hand; or
- equals it with every list compared as a multiset, where the tool ignores the order: shown by replaying
  the agent's arguments in the gold's place (the gold's earlier actions first) and getting the very state
  the gold's own action leaves (retail's returns and exchanges sort ``item_ids``; a flight list is stored
  in its order, so a reordered one differs and does not match).

A gold write that changes nothing on replay (setting an address already on file) is not required: there
is nothing to make. A gold write that raises makes the gold broken (``_strict``).
"""

from __future__ import annotations

import copy
import inspect
import json
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from tau2.data_model.message import AssistantMessage, Message, ToolCall, UserMessage
from tau2.data_model.tasks import Action
from tau2.environment.tool import as_tool

from envs import ReplayEngine, actions_key, gold_steps, replay_steps


@dataclass(frozen=True)
class GoldWrites:
    """A gold's writes: those that change the database (required), those that change nothing (dropped), and
    those that raise on replay ("action_id name: error"). Cached per domain and action list."""

    writes: tuple[Action, ...]  # the required ones, with their index among the gold's actions
    indices: tuple[int, ...]
    unchanged: tuple[str, ...]  # "action_id name" of writes that change nothing
    broken: tuple[str, ...]


_WRITES: dict[tuple[str, tuple[str, ...]], GoldWrites] = {}


def gold_writes(engine: ReplayEngine, actions: Sequence[Action]) -> GoldWrites:
    key = engine.domain, actions_key(actions)
    if key not in _WRITES:
        steps = gold_steps(engine, actions, key[1])[0]  # the gold replay's own steps
        kept = [(i, a) for i, (a, s) in enumerate(zip(actions, steps, strict=True)) if s.is_write and s.changed_db]
        _WRITES[key] = GoldWrites(
            tuple(a for _, a in kept),
            tuple(i for i, _ in kept),
            tuple(s.describe() for s in steps if s.is_write and not s.error and not s.changed_db),
            tuple(s.describe() for s in steps if s.is_write and s.error),
        )
    return _WRITES[key]


# -- what a tool reads ------------------------------------------------------------------------------------------

_PARAMS: dict[tuple[str, str], dict[str, Any] | None] = {}


def _annotations(engine: ReplayEngine, tool: str) -> dict[str, Any] | None:
    """The tool's parameter annotations (from tau2's ``Tool.params``), None for a tool the domain lacks."""
    key = (engine.domain, tool)
    if key not in _PARAMS:
        tools = engine.env.tools
        if not tools.has_tool(tool):
            _PARAMS[key] = None
        else:
            _PARAMS[key] = _declared(tools.tools[tool])
    return _PARAMS[key]


def _declared(function: Any) -> dict[str, Any]:
    """A tool function's parameter annotations as its ``Tool.params`` holds them. Where each parameter is annotated
    with a type (not a string, not ``Annotated``), pydantic keeps that annotation as it is: the signature's, read
    without building the tool (``as_tool`` parses the docstring in four styles and creates two models: ~4 ms of a
    cold rescore, #47). Elsewhere, the one tool as ``get_tools`` makes each (``as_tool``)."""
    parameters = inspect.signature(function).parameters
    annotations = {name: p.annotation for name, p in parameters.items()}
    if all(a is not inspect.Parameter.empty and not isinstance(a, str) and typing.get_origin(a) is not typing.Annotated
           for a in annotations.values()):
        return annotations
    return {name: f.annotation for name, f in as_tool(function).params.model_fields.items()}


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation reads a dict through (``Model``, ``Model | dict``), else None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        models = [m for a in typing.get_args(annotation) if (m := _model_in(a)) is not None]
        return models[0] if len(models) == 1 else None
    return None


def _read(annotation: Any, value: Any) -> Any:
    """``value`` as a parameter annotated ``annotation`` reads it: a dict read through a model keeps the
    model's fields only (recursively); lists and dicts are read item by item."""
    model = _model_in(annotation)
    if model is not None and isinstance(value, dict):
        fields = model.model_fields
        return {k: _read(fields[k].annotation, v) for k, v in value.items() if k in fields}
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, Sequence) and isinstance(value, list):
        args = typing.get_args(annotation)
        return [_read(args[0] if args else Any, v) for v in value]
    return value


def as_read(engine: ReplayEngine, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``arguments`` as ``tool`` reads them (top-level keys kept: an unknown one makes the call raise)."""
    annotations = _annotations(engine, tool) or {}
    return {k: _read(annotations[k], v) if k in annotations else v for k, v in arguments.items()}


def _unordered(value: Any) -> Any:
    """Every list as a multiset (sorted by its items' JSON)."""
    if isinstance(value, dict):
        return {k: _unordered(v) for k, v in value.items()}
    if isinstance(value, list):
        return sorted((_unordered(v) for v in value), key=lambda v: json.dumps(v, sort_keys=True))
    return value


def _compared(action: Action, arguments: dict[str, Any]) -> dict[str, Any]:
    keys = action.compare_args if action.compare_args is not None else arguments.keys()
    return {k: v for k, v in arguments.items() if k in keys}


def _same_effect(engine: ReplayEngine, gold: Sequence[Action], index: int, arguments: dict[str, Any]) -> bool:
    """Replaying ``arguments`` in place of gold action ``index`` (the gold's earlier actions first) leaves the
    state the gold's own action leaves: the tool ignores what differs."""
    action = gold[index]
    instead = Action(action_id=action.action_id, name=action.name, arguments=copy.deepcopy(arguments),
                     requestor=action.requestor)
    own_steps, own = replay_steps(engine, list(gold[: index + 1]))
    steps, other = replay_steps(engine, [*gold[:index], instead])
    return steps[-1].error is None and own_steps[-1].error is None and own == other


def _calls(messages: Sequence[Message]) -> list[ToolCall]:
    """The tool calls tau2's action check reads (the agent's and the user's)."""
    return [c for m in messages if isinstance(m, AssistantMessage | UserMessage) for c in m.tool_calls or []]


def unmatched_writes(
    engine: ReplayEngine, gold: Sequence[Action], writes: GoldWrites, messages: Sequence[Message]
) -> list[Action]:
    """The required gold writes no tool call in ``messages`` makes, compared as the tool reads them."""
    calls = _calls(messages)
    missed: list[Action] = []
    for index, action in zip(writes.indices, writes.writes, strict=True):
        if any(action.compare_with_tool_call(c) for c in calls):
            continue  # tau2's own check
        want = _compared(action, as_read(engine, action.name, dict(action.arguments)))
        found = False
        for call in (c for c in calls if c.name == action.name):
            got = _compared(action, as_read(engine, call.name, dict(call.arguments)))
            if set(got) != set(want):
                continue
            if got == want or (
                _unordered(got) == _unordered(want)
                and _same_effect(engine, gold, index, {**action.arguments, **{k: call.arguments[k] for k in got}})
            ):
                found = True
                break
        if not found:
            missed.append(action)
    return missed
