"""The database as a conversation had read it before each message (#36 item 4): the records its tool results
returned, the user, the flights searched and their statuses, the domain's current time (the policy model's
``domain_now``) and what was said. Claim checkers (``_claims``, ``_policy_claims``) judge a sentence against the
state before its message: what the agent could know when it spoke."""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from tau2.data_model.message import Message

from conversation_reading._evidence import Turn
from conversation_reading._message_kinds import is_tool_message
from conversation_reading._turn_index import UNPARSED
from policy_model import RESERVATION_UPDATES, booking_age, domain_now


@dataclass(slots=True, eq=False, repr=False)  # one a message: slots build and read faster
class _State:
    """The database as the conversation read it before one message: records by id, the user, searches."""

    reservations: dict[str, dict[str, Any]]
    last_reservation: dict[str, Any] | None
    user: dict[str, Any] | None
    flights: dict[str, dict[str, Any]]  # flight number -> a search result (its prices by cabin)
    now: datetime | None
    statuses: dict[tuple[str, str], str] = field(default_factory=dict)  # (flight, date) -> status read
    domain: str = ""
    said: str = ""  # what the user and the agent said before the message
    earlier: tuple[dict[str, Any], ...] = ()  # reservations as read before a write changed them (their figures hold)

    def _fields(self) -> tuple[Any, ...]:
        return (self.reservations, self.last_reservation, self.user, self.flights, self.now, self.statuses,
                self.domain, self.said, self.earlier)

    # equal and written as the dataclass's own, whichever class of state (``_Read``) each is
    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, _State) else NotImplemented

    def __repr__(self) -> str:
        return ("_State(reservations={!r}, last_reservation={!r}, user={!r}, flights={!r}, now={!r}, statuses={!r}, "
                "domain={!r}, said={!r}, earlier={!r})").format(*self._fields())


class _Read(_State):
    """A state as ``_states`` reads it. ``said`` is read by few checkers of few messages: the state holds the spoken
    texts (one list, shared by every state, each seeing its first ``heard``) and joins them when first read, where
    each message's state was built with the whole conversation so far copied into it (a third of the states' cost).
    A state built with ``said`` given (``dataclasses.replace``) holds it as it is."""

    __slots__ = ("_said", "_texts", "_heard")

    def __init__(  # every argument given, in order, by ``_states``: a message's state built with no test of them
        self, reservations: dict[str, dict[str, Any]], last_reservation: dict[str, Any] | None,
        user: dict[str, Any] | None, flights: dict[str, dict[str, Any]], now: datetime | None,
        statuses: dict[tuple[str, str], str], domain: str, said: str | None, earlier: tuple[dict[str, Any], ...],
        texts: list[str] | None = None, heard: int = 0,
    ) -> None:
        self.reservations = reservations
        self.last_reservation = last_reservation
        self.user = user
        self.flights = flights
        self.now = now
        self.statuses = statuses
        self.domain = domain
        self.earlier = earlier
        self._said = said
        self._texts = texts
        self._heard = heard

    @property  # the field, read as the dataclass's
    def said(self) -> str:
        """What the user and the agent said before the message, each text after a line break."""
        if self._said is None:
            assert self._texts is not None
            self._said = "\n" + "\n".join(self._texts[: self._heard]) if self._heard else ""
        return self._said

    @said.setter
    def said(self, value: str) -> None:
        self._said = value


def _json(text: str | None) -> Any:
    try:
        return json.loads(text or "")
    except (json.JSONDecodeError, TypeError):
        return None


_READ = frozenset(("get_reservation_details", "get_user_details", "get_flight_status"))


def _read_by_state(name: str) -> bool:
    """The tool results ``_states`` reads (the branches below): another's is not parsed."""
    return name in _READ or name in RESERVATION_UPDATES or name.startswith("search_")


def _states(
    turns: list[Turn], messages: Sequence[Message], domain: str, parsed: Callable[[int], Any] | None = None
) -> list[_State]:
    """The state before each message (``parsed``: message index -> its content as JSON, ``_turn_index.UNPARSED``
    where it is none: the record's one parse of each tool result, shared with its other readers)."""
    seen: list[_Seen] = []
    walk = _walk(turns, messages, domain, parsed, seen)
    if messages:
        next(walk)
        if len(messages) > 1:
            walk.send(len(messages) - 1)
    return [_Read(*fields, heard) for fields, heard in seen]


class States:
    """``_states``, each state built when first asked (``states[i]``), the conversation read only as far as the
    last message asked: a record asks for a few states (78 of 933 messages on the benchmark's file), and building
    the others and parsing the tool results after the last asked were a third of the states' cost (#47)."""

    __slots__ = ("_walk", "_seen", "_built", "_length")

    def __init__(self, turns: list[Turn], messages: Sequence[Message], domain: str, parsed: Callable[[int], Any]
                 ) -> None:
        self._seen: list[_Seen] = []  # each message's state's fields, as far as read
        self._walk = _walk(turns, messages, domain, parsed, self._seen)
        self._built: dict[int, _State] = {}
        self._length = len(messages)

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, index: int) -> _State:
        state = self._built.get(index)
        if state is None:
            if not 0 <= index < self._length:
                raise IndexError(index)
            seen = self._seen
            if not seen:
                next(self._walk)  # the walk started: the state before the first message seen
            if len(seen) <= index:
                self._walk.send(index)
            fields, heard = seen[index]
            state = self._built[index] = _Read(*fields, heard)
        return state


# a state's fields as ``_Read`` takes them, but how many texts it heard (shared by the messages no tool result
# between them changed) ...
_Fields = tuple[dict[str, dict[str, Any]], dict[str, Any] | None, dict[str, Any] | None, dict[str, dict[str, Any]],
                datetime | None, dict[tuple[str, str], str], str, None, tuple[dict[str, Any], ...], list[str]]
# ... and those fields with how many it heard: a message's state as ``_walk`` records it
_Seen = tuple[_Fields, int]


def _walk(
    turns: list[Turn], messages: Sequence[Message], domain: str, parsed: Callable[[int], Any] | None,
    seen: list[_Seen],
) -> Generator[None, int, None]:
    """The state before each message, in order, appended to ``seen`` as far as the index last sent (``_states``):
    started (``next``), it has seen the first message's; each index sent (one not seen yet), it walks on to that
    message's state and waits, its own message unread (a tool result read only when a later state is asked). One
    resume per state asked, not one per message, and the fields shared by the messages no tool result changed."""
    now = domain_now(domain)
    calls: dict[str, Any] = {}
    # the state being read, in locals (a state's fields read and written as attributes cost most of the loop); the
    # dicts are shared between messages until a tool result changes them (copied then): readers never write to one
    reservations: dict[str, dict[str, Any]] = {}
    last_reservation: dict[str, Any] | None = None
    user: dict[str, Any] | None = None
    flights: dict[str, dict[str, Any]] = {}
    statuses: dict[tuple[str, str], str] = {}
    texts: list[str] = []  # what was said so far (``_State.said``)
    earlier: tuple[dict[str, Any], ...] = ()
    fields: _Fields = (reservations, last_reservation, user, flights, now, statuses, domain, None, earlier, texts)
    asked = -1
    for i, (t, m) in enumerate(zip(turns, messages, strict=True)):
        seen.append((fields, len(texts)))
        if i >= asked:
            asked = yield
        role = t.role
        for c in t.calls:
            calls[c.id] = c
        if role == "user" or role == "assistant":
            texts.append(t.text)
            continue  # no tool's result: a ``ToolMessage``'s role is "tool" (pydantic holds it to that literal)
        if not is_tool_message(m):
            continue
        call = calls.get(m.id)  # the message's id read once: a pydantic field, read through its ``__getattr__`` hook
        if call is None:
            continue
        name = call.name
        if not _read_by_state(name):
            continue
        # parsed only for a tool whose result the state reads
        value = _json(m.content) if parsed is None else None if (got := parsed(i)) is UNPARSED else got
        if name == "get_reservation_details" and isinstance(value, dict) and "reservation_id" in value:
            reservations = {**reservations, str(value["reservation_id"]): value}
            last_reservation = value
        elif name in RESERVATION_UPDATES and isinstance(value, dict) and "reservation_id" in value:
            # a change returns the reservation as it left it: read since; its figures before stay known
            rid = str(value["reservation_id"])
            earlier = (*earlier, *([reservations[rid]] if rid in reservations else []))
            reservations = {**reservations, rid: value}
            last_reservation = value
        elif name == "get_user_details" and isinstance(value, dict):
            user = value
        elif name == "get_flight_status":
            args = call.arguments
            status = value if isinstance(value, str) else (m.content or "").strip().strip('"')
            statuses = {**statuses, (str(args.get("flight_number")), str(args.get("date"))): status.lower()}
        elif name.startswith("search_") and isinstance(value, list):
            flights, statuses = dict(flights), dict(statuses)
            for item in value:
                legs = item if isinstance(item, list) else [item]
                for leg in legs:
                    if isinstance(leg, dict) and leg.get("flight_number"):
                        flights[str(leg["flight_number"])] = leg
                        if leg.get("date") and leg.get("status"):
                            statuses[(str(leg["flight_number"]), str(leg["date"]))] = str(leg["status"])
        fields = (reservations, last_reservation, user, flights, now, statuses, domain, None, earlier, texts)


def _reservation(sentence: str, state: _State) -> dict[str, Any] | None:
    named = [r for rid, r in state.reservations.items() if rid in sentence]
    return named[0] if len(named) == 1 else state.last_reservation


def _reservation_age(sentence: str, state: _State) -> tuple[dict[str, Any], timedelta, datetime] | None:
    """The reservation ``sentence`` is about, how long before the conversation's "now" it was booked, and that
    "now" (None: no reservation, no "now", or no readable booking time)."""
    res = _reservation(sentence, state)
    if res is None or state.now is None:
        return None
    age = booking_age(res, state.now)
    return None if age is None else (res, age, state.now)
