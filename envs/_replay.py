"""The replay engine: tau2 tool calls on one shared database, with cost proportional to what they touch.

tau2's ``EnvironmentEvaluator`` builds two fresh environments per trajectory (reading and validating
``db.json`` each time) and hashes the whole database twice. Here each worker loads a domain's database
once. Its top-level tables (``users``, ``flights``, ``reservations`` / ``products``, ``users``, ``orders``)
are wrapped so that a write tool's access to a record is tracked (``envs._tracked``: a pristine copy is kept
the first time a record is ever touched). Tools reach records by key; after a replay each touched record is
compared with its pristine self (``envs._records``: its dump's bytes first, its JSON where they differ), and
each whose JSON is not its pristine JSON is put back as a fresh pristine copy.

Two replays are then equal in database terms exactly when the records touched by either serialise to
the same JSON: tau2 hashes ``json.dumps(db.model_dump(), sort_keys=True, default=str)``, and records that
neither replay touched are the pristine ones on both sides.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tau2.data_model.message import AssistantMessage, Message, ToolCall, ToolMessage, UserMessage
from tau2.data_model.tasks import Action

from envs._flight_index import index_flight_search
from envs._outputs import outputs_match
from envs._records import dump_of, json_of, marshal_of, record_json, shot_of
from envs._replay_modes import ReplayFlag, ReplayMode, recorded_failure
from envs._tasks import environment_constructor
from envs._tracked import _MISSING, TrackedTable

State = dict[tuple[str, str], str | None]
After = Callable[[bool], None]  # called after a replayed write, with whether the tool failed


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


_CALLERS = (AssistantMessage, UserMessage)
_END: Any = object()


class TrajectoryStructureError(ValueError):
    """The message list does not pair each tool call with its tool message (tau2 refuses it too)."""


def tool_call_pairs(messages: Sequence[Message]) -> list[tuple[ToolCall, ToolMessage]]:
    """Pair tool calls with their tool messages, with the same checks as tau2's ``set_state`` (one pass of an
    iterator, and tau2's ``is_tool_call``, ``tool_calls is not None``, read inline: a tenth of a replay was here)."""
    pairs: list[tuple[ToolCall, ToolMessage]] = []
    it = iter(messages)
    for message in it:
        if isinstance(message, ToolMessage):
            raise TrajectoryStructureError(
                "Tool message not expected. Tool messages should always follow a tool call."
            )
        if isinstance(message, _CALLERS) and message.tool_calls is not None:
            for tc in message.tool_calls:
                tm = next(it, _END)
                if tm is _END:
                    raise TrajectoryStructureError("Tool message expected. Got None.")
                if not isinstance(tm, ToolMessage):
                    raise TrajectoryStructureError(f"Tool message expected. Got {type(tm)}")
                if tc.id != tm.id:
                    raise TrajectoryStructureError(f"Tool call id mismatch. Got {tc.id} and {tm.id}")
                pairs.append((tc, tm))
    return pairs


# make_tool_call(self, tool_name, requestor, **kwargs) and use_tool(self, tool_name, **kwargs): an argument of
# one of these names fails there with its own error
_CHAIN_PARAMETERS = frozenset({"self", "tool_name", "requestor"})


def actions_key(actions: Sequence[Action]) -> tuple[str, ...]:
    """A cache key of an action list's content: each action's JSON as pydantic-core writes it (its fields in
    their declared order, its arguments in their own). The same list gives the same key; a list that differs
    only in the order of an action's arguments gets a key of its own, a cache miss, never a wrong hit (a
    sorted ``json.dumps`` of ``model_dump`` cost five times more, on every trajectory's gold)."""
    return tuple(a.model_dump_json() for a in actions)


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
        index_flight_search(self.env.tools, self.tables)  # airline: flight search by origin, not a full scan
        if self.env.user_tools is not None:
            raise TypeError(f"{domain} has user tools; the replay engine covers agent tools only")
        self._pristine: State = {}
        self._pristine_bytes: dict[tuple[str, str], bytes | None] = {}  # ``_pristine_of``
        self._gold_cache: dict[tuple[str, ...], ReplayResult] = {}
        # ``envs._steps.gold_steps``: a gold's steps (``GoldStep``s) and its replay, from one replay
        self._gold_steps: dict[tuple[str, ...], tuple[list[Any], ReplayResult]] = {}
        # The agent's tools by name, as tau2's ``ToolKitBase.use_tool`` finds them: it builds this dict of every
        # tool (twice) on each call; its tools are the toolkit class's, so built once here (``_respond``)
        self._agent_tools: dict[str, Callable[..., Any]] = dict(self.env.tools.tools)
        self._kinds: dict[str, str] = {}
        # the toolkit over the database as loaded, read-only (``pristine_toolkit``): built before any replay, its
        # tables share the loaded records, which no replay changes (``envs._tracked``), so no second load
        loaded = self.db.model_copy()
        loaded.__dict__.update((name, table.pristine()) for name, table in self.tables.items())
        self.pristine_tools: Any = type(self.env.tools)(loaded)

    # -- replays ---------------------------------------------------------------------------------

    def _collect_and_restore(self) -> State:
        """The touched records' JSON; each record whose JSON is not its pristine JSON is put back (all of
        them where serialising failed part way)."""
        state: State = {}
        changed: dict[str, set[Any]] | None = None
        try:
            found: dict[str, set[Any]] = {}
            for name, table in self.tables.items():
                found[name] = set()
                for key in table.touched():
                    record = dict.get(table, key, _MISSING)
                    pristine, pristine_bytes = self._pristine_of(name, key, table)
                    # a record the tools reached and left as it was has the pristine JSON (``shot_of``)
                    now = None if record is _MISSING else shot_of(dump_of(record), (pristine_bytes, pristine))[1]
                    state[(name, key)] = now
                    if now != pristine:
                        found[name].add(key)
            changed = found
        finally:
            for name, table in self.tables.items():
                table.restore(None if changed is None else changed[name])
        return state

    def _pristine_of(self, name: str, key: Any, table: TrackedTable) -> tuple[str | None, bytes | None]:
        """A touched record's pristine JSON and its dump's ``marshal`` bytes (``envs._records.marshal_of``), from
        its shadow (the table holds the touched record); each written once."""
        at = (name, key)
        found = self._pristine_bytes.get(at, _MISSING)
        if found is _MISSING:
            shadow = table._undo[key]
            dumped = None if shadow is _MISSING else dump_of(shadow)
            found = self._pristine_bytes[at] = None if shadow is _MISSING else marshal_of(dumped)
            if at not in self._pristine:
                self._pristine[at] = None if shadow is _MISSING else json_of(dumped)
        return self._pristine[at], found

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
            # what ``make_tool_call`` runs for the agent (no user tools here): the tool itself; through tau2's
            # chain where it would say something else (an unknown tool, a user's call, an argument named as
            # one of the chain's own parameters)
            tool = self._agent_tools.get(tc.name) if tc.requestor == "assistant" else None
            if tool is not None and not _CHAIN_PARAMETERS & tc.arguments.keys():
                resp = tool(**tc.arguments)
            else:
                resp = self.env.make_tool_call(tc.name, requestor=tc.requestor, **tc.arguments)
            self.env.sync_tools()
        except Exception as exc:  # noqa: BLE001 - tau2 answers every failure as "Error: ..."
            return f"Error: {exc}", True
        return self.env.to_json_str(resp), False

    def _call(self, tc: ToolCall, kind: str) -> tuple[str, bool]:
        """``_respond``; a read tool (tau2's annotation: it changes nothing) reads records in place, untracked
        (set and unset here, not by a context manager: its generator cost more than the flag, on every call)."""
        if kind in ("write", "unknown"):
            return self._respond(tc)
        tables = self.tables.values()
        for table in tables:
            table._reading = True
        try:
            return self._respond(tc)
        finally:
            for table in tables:
                table._reading = False

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

    def replay_writes(
        self, pairs: Iterable[tuple[ToolCall, ToolMessage]], around: Callable[[int, ToolCall, Any], After | None]
    ) -> None:
        """The database at each write of a trajectory: its writes replayed in order on the shared database (a
        read changes nothing and is skipped; a write the run recorded as failed is skipped, as lenient replay
        does), ``around(index, call, db)`` called before each (``db``: the database as it stands, the write
        not made yet; ``index``: the call's among ``pairs``) and what it returns, if anything, after the write,
        with whether the tool failed. The database is put back afterwards."""
        try:
            for index, (tc, expected) in enumerate(pairs):
                if self.tool_kind(tc.name) != "write" or recorded_failure(expected):
                    continue
                after = around(index, tc, self.db)
                _content, error = self._respond(tc)
                if after is not None:
                    after(error)
        finally:
            self._collect_and_restore()

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
        """The gold replay, cached by the content of the action list (scoring asks ``envs._steps.gold_steps``,
        which fills the same cache)."""
        key = actions_key(actions)
        if key not in self._gold_cache:
            self._gold_cache[key] = self.replay_actions(actions)
        return self._gold_cache[key]

    # -- comparison ------------------------------------------------------------------------------

    def pristine(self, key: tuple[str, str]) -> str | None:
        if key not in self._pristine:
            name, record = key
            self._pristine[key] = record_json(dict.get(self.tables[name], record, _MISSING))
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


def pristine_toolkit(domain: str) -> Any:
    """``domain``'s tau2 toolkit over its pristine database, read-only (read tools only): the process's engine's
    (``ReplayEngine.pristine_tools``), which shares the records its database was loaded with."""
    return engine_for(domain).pristine_tools
