"""One simulation of a run: the JSON types of the fields a row stores (a strict pydantic model), tau2's
own validation, and the flags of suspicious-but-legal input."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError
from pydantic_core import ErrorDetails, PydanticCustomError
from tau2.data_model.simulation import (
    SimulationRun,
    TerminationReason,
)
from tau2.data_model.tasks import Task

from loophole_base import HarnessInputError, cut, shown
from loophole_ingest._run_validation import validate_run
from loophole_ingest._upstream import (
    GOLD_REPLAY_INCOMPLETE_FLAG,
    Axis,
    Notes,
    UpstreamFields,
    upstream_fields,
)
from loophole_scoring import Status

COMPLETED = ("agent_stop", "user_stop")
# tau2 1.0's termination reasons; the pinned package knows only some of them.
V1_TERMINATION_REASONS = (
    "user_stop",
    "agent_stop",
    "max_steps",
    "timeout",
    "too_many_errors",
    "agent_error",
    "user_error",
    "infrastructure_error",
    "context_window_exceeded",
    "unexpected_error",
)
_PINNED_REASONS = {r.value for r in TerminationReason}
INFRA_ERROR = "infrastructure_error"

# Suspicious-but-legal inputs: scored as tau2 would, but marked on the row and counted in the summary.
FLAGS = {
    "empty_conversation": "an empty message list",
    "reward_out_of_range": "a recorded reward outside [0, 1]",
    "negative_trial": "a negative trial number",
    "negative_cost": "a negative recorded cost or duration",
    "against_version": "scored against another task version's golds than the one it was recorded on",
    "task_id_remapped": "scored against the task its evidence names, not the file's task id (kept in file_task_id)",
    "task_id_unproved": "no recorded actions and a task id its evidence cannot prove; every candidate task gives the "
                        "same reward, so scored against the file's task, as upstream scores it",
    "gold_replay_incomplete": "the file's evaluator (tau2 main, #499) could not apply a gold write of its task: its "
                              "db_check is not a pass; said beside the harness's own broken-gold verdict",
    "content_parts": "message contents written as content parts ([{'type': 'text', 'text': …}]), read as their text",
}


def clip(value: object) -> str:
    """A value's repr, cut to 40 characters for a one-line message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def json_type(value: object) -> str:
    """A decoded JSON value's type, as a message names it ("an integer", "null")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    names = {str: "a string", int: "an integer", float: "a number", dict: "an object", list: "a list"}
    return names.get(type(value), type(value).__name__)


# --- the fields a row stores, typed as tau2's model declares them --------------------------------


def _fits_int64(value: object) -> object:
    if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value <= 2**63 - 1:
        raise PydanticCustomError(
            "int64_range", "integer {value} is outside the 64-bit range", {"value": clip(value)}
        )
    return value


Int64 = Annotated[int, BeforeValidator(_fits_int64)]
Number = Annotated[float, BeforeValidator(_fits_int64)]  # an integer or a float; not a boolean


class _Strict(BaseModel):
    """Strict JSON types (tau2's lax validation would turn ``"123"`` into 123 or let a row keep a null);
    fields not named here (tau2's and newer versions') are ignored."""

    model_config = ConfigDict(strict=True, extra="ignore")


class _RewardInfo(_Strict):
    reward: Number | None = None
    # tau2 main's provenance (PR #467, #499; ``_upstream``): typed, so that a wrong type is named
    evaluation_mode: Literal["live", "replay"] | None = None
    state_source: Literal["live", "replayed"] | None = None
    replayed_actions: list[Any] | None = None
    warnings: list[str] | None = None
    info: Notes = None


class SimulationFields(_Strict):
    """A simulation's stored fields. A missing id, task_id or termination_reason is tau2's model's to name
    (their defaults here are never stored); present, they must be strings."""

    id: str = ""
    task_id: str = ""
    termination_reason: str = ""
    trial: Int64 | None = None
    seed: Int64 | None = None
    duration: Number | None = None
    agent_cost: Number | None = None
    user_cost: Number | None = None
    reward_info: _RewardInfo | None = None
    messages: list[Any] | None = None
    quality_info: Axis = None  # tau2 main's ``evaluate-trajs --scores`` axes (``_upstream``)
    nativeness_info: Axis = None
    delivery_info: Axis = None


# The order fields are checked in: the first bad one is named (a nested field after its parent's others).
_ORDER = [*SimulationFields.model_fields, *(f"reward_info.{f}" for f in _RewardInfo.model_fields)]


def _rank(error: ErrorDetails) -> int:
    loc = [str(x) for x in error["loc"]]
    for n in range(len(loc), 0, -1):
        if ".".join(loc[:n]) in _ORDER:
            return _ORDER.index(".".join(loc[:n]))
    return len(_ORDER)
_EXPECTED = {
    "bool_type": "a boolean",
    "string_type": "a string",
    "int_type": "an integer",
    "float_type": "a number",
    "model_type": "an object",
    "list_type": "a list",
}


def _message(error: ErrorDetails) -> str:
    name = ".".join(map(str, error["loc"]))
    value = error["input"]
    expected = _EXPECTED.get(error["type"])
    if expected is None:
        return f"field '{name}': {error['msg']}"
    got = "null" if value is None else f"{json_type(value)} {clip(value)}"
    return f"field '{name}': expected {expected}, got {got}"


def _check_fields(raw: dict[str, Any]) -> tuple[SimulationFields | None, str | None]:
    """The stored fields validated, or the first bad one's message."""
    try:
        return SimulationFields.model_validate(raw), None
    except ValidationError as exc:
        errors = exc.errors()
    first = min(errors, key=_rank)
    return None, _message(first)


def _flags(fields: SimulationFields) -> list[str]:
    flags = []
    if fields.messages == []:
        flags.append("empty_conversation")
    reward = fields.reward_info.reward if fields.reward_info is not None else None
    if reward is not None and not 0.0 <= reward <= 1.0:
        flags.append("reward_out_of_range")
    if fields.trial is not None and fields.trial < 0:
        flags.append("negative_trial")
    costs = (fields.agent_cost, fields.user_cost, fields.duration)
    if any(cost is not None and cost < 0 for cost in costs):
        flags.append("negative_cost")
    return flags


# --- one simulation ------------------------------------------------------------------------------


@dataclass
class ImportedSimulation:
    sim: SimulationRun | None  # None when the row cannot be scored (see ``error``)
    raw: dict[str, Any]
    error: str | None = None
    status: Status = Status.ERROR  # the row's status when ``sim`` is None (error | infra_error)
    flags: list[str] = field(default_factory=list)  # suspicious-but-legal input (see FLAGS)
    upstream: UpstreamFields | None = None  # tau2 main's fields it recorded (``_upstream``)

    @property
    def simulation_id(self) -> str:
        return str(self.raw.get("id", "?"))


class RunView(Protocol):
    """What a simulation is checked against: its run (``ImportedRun``)."""

    path: Path
    domain: str
    task_version: str
    tasks: dict[str, Task]
    embedded_ids: frozenset[str]
    skip_bad: bool


_MESSAGE_MODELS = {"system": "SystemMessage", "assistant": "AssistantMessage", "user": "UserMessage",
                   "tool": "ToolMessage"}


def validation_problem(exc: ValidationError, row: dict) -> str:
    """tau2's validation error as one line: the field, and where it lies in a message, the message's own
    model's error (not the first member of tau2's message union that failed) and the tool call it is in."""
    errors = exc.errors()
    listed = row.get("messages")
    messages: list = listed if isinstance(listed, list) else []

    def message_at(loc: tuple) -> dict | None:
        if len(loc) > 1 and loc[0] == "messages" and isinstance(loc[1], int) and loc[1] < len(messages):
            m = messages[loc[1]]
            return m if isinstance(m, dict) else None
        return None

    chosen = errors[0]
    for e in errors:
        m = message_at(e["loc"])
        if m is not None and len(e["loc"]) > 2 and e["loc"][2] == _MESSAGE_MODELS.get(str(m.get("role"))):
            chosen = e
            break
    loc = tuple(x for x in chosen["loc"] if x not in _MESSAGE_MODELS.values())
    where = ".".join(map(str, loc))
    m = message_at(loc)
    if m is not None and len(loc) > 3 and loc[2] == "tool_calls" and isinstance(loc[3], int):
        calls = m.get("tool_calls")
        call = calls[loc[3]] if isinstance(calls, list) and loc[3] < len(calls) else None
        if isinstance(call, dict) and isinstance(call.get("name"), str):
            where += f"' (the call to {cut(call['name'])}"
            return f"field '{where}): {chosen['msg']}"
    return f"field '{where}': {chosen['msg']}"


def import_simulation(run: RunView, index: int, raw: object) -> ImportedSimulation:
    """The ``index``-th simulation validated; bad input raises unless the run skips bad ones."""
    sim_id = str(raw.get("id", f"#{index}")) if isinstance(raw, dict) else f"#{index}"
    error: str | None = None
    sim: SimulationRun | None = None
    fields: SimulationFields | None = None
    legal = False  # a row that cannot be scored but is not bad input (no messages, infra error)
    status = Status.ERROR
    row: dict[str, Any] = raw if isinstance(raw, dict) else {"id": sim_id}
    if not isinstance(raw, dict):
        error = "simulation is not a JSON object"
    elif row.get("_missing"):
        error = "simulation file missing from simulations/"
    else:
        fields, error = _check_fields(row)
    if fields is not None:
        reason = row.get("termination_reason")
        if reason not in V1_TERMINATION_REASONS and reason not in _PINNED_REASONS:
            error = f"field 'termination_reason': {reason!r} is not a tau2 termination reason"
        elif row.get("messages") is None and "messages" in row:
            legal = True
            has_ticks = bool(row.get("ticks"))
            error = "no messages to score: 'messages' is null" + (
                " (a full-duplex run keeps only 'ticks')" if has_ticks else ""
            )
        else:
            payload = row
            if reason not in _PINNED_REASONS:
                # A v1 reason the pinned model lacks: every one of them scores 0 by rule, as agent_error does.
                payload = {**row, "termination_reason": "agent_error"}
            try:
                sim = validate_run(payload)
            except ValidationError as exc:
                error = validation_problem(exc, row)
            if sim is not None and sim.task_id not in run.tasks:
                error = f"unknown task id {sim.task_id!r} for {run.domain} {run.task_version}"
                sim = None
            elif sim is not None and run.embedded_ids and sim.task_id not in run.embedded_ids:
                error = f"field 'task_id': {sim.task_id!r} is not among the file's embedded tasks"
                sim = None
            elif sim is not None and reason == INFRA_ERROR:
                legal, status, sim = True, Status.INFRA_ERROR, None
                error = "infrastructure_error: not the agent's failure (tau2 reruns it); excluded from means"
    flags = _flags(fields) if fields is not None and (error is None or legal) else []
    upstream = None
    if fields is not None:
        axes = {a: getattr(fields, f"{a}_info") for a in ("quality", "nativeness", "delivery")}
        upstream = upstream_fields(fields.reward_info, axes, row.get("reward_info"))
        if upstream is not None and upstream.gold_replay_incomplete and (error is None or legal):
            flags.append(GOLD_REPLAY_INCOMPLETE_FLAG)
    if error is None:
        return ImportedSimulation(sim, row, flags=flags, upstream=upstream)
    if not legal and not run.skip_bad:
        raise HarnessInputError(f"{shown(run.path)}: simulation {shown(sim_id[:80])}: {error}")
    return ImportedSimulation(None, row, error, status, flags, upstream)
