"""Whether the agent listed a write's details to the user before the yes that preceded it (#40 item 1).

The policy of both domains: before any action that updates the database, *list the action details* and obtain
explicit user confirmation (yes). ``_no_write.writes_without_yes`` reads the yes; this module reads the list.

A write's details are its own arguments, read as the domain's tools name them (``_DETAILS``): the record it
changes (``reservation_id``, ``order_id``), the flights, the passengers, the items and the new items, the
payment method, the amounts, the address, the cabin and the cancellation reason. Each is *named* in the agent's
words in the way an agent can name it: an id as written (``#W2378156`` with or without the ``#``); an item by
its id or by the product name or an option value the conversation's tool results gave it; a payment method by
its id, its kind (the id's prefix: ``credit_card_…`` is a card, ``gift_card_…`` a gift card) or the last four
digits a tool result gave; an amount as a number; a passenger by a name; an address by its street, city or
zip code.

The window is the agent's messages up to the user's last message before this write (the confirmation), from
the opening of the request before this one: a request opens after the confirmation of the last write that
changed the database (a write a tool error stopped changed nothing: its retry answers the same listing), and
the first at the conversation's start. Reaching one request back keeps a listing of two actions confirmed
one at a time ("I will exchange … and return …" then "Shall I go on with the return?"); a write made in one
turn with others (no user message between them) shares their window.

The reading is deliberately lenient, so that a careful reader agrees wherever it says "not listed": a write's
details count as listed when the window names *any one* of them. It says "not listed" only where the agent's
messages before the yes name nothing of the action at all ("Shall I proceed?" after a request in the user's
own words). A detail the user named and the agent only echoed in a quote is not the agent's listing
(``_evidence.read_turns`` replaces quotes of the user). One exchange lists the details too: the agent asks the
user to confirm the action (the catalog's ``confirmation_request``, as ``writes_without_yes`` reads it) and the
user's answer states its details ("Please set 445 Maple Drive as my default address"): the user confirmed
what they themselves dictated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from tau2.data_model.message import Message

from conversation_reading._boundary import named_in
from conversation_reading._evidence import TRANSFER_TOOL, Turn, read_turns
from conversation_reading._message_kinds import is_tool_message
from conversation_reading._no_write import Settled, _answers_confirmation
from conversation_reading._turn_index import UNPARSED, TurnIndex

# Arguments that name nothing the user confirms (who the user is, the trip's shape, the address's second line,
# country and state: never alone what tells one address from another), or that only repeat another (bag counts
# are numbers any message holds).
_NOT_DETAILS = frozenset({"user_id", "flight_type", "address2", "country", "state", "total_baggages",
                          "nonfree_baggages", "insurance", "origin", "destination"})


@dataclass(frozen=True)
class ListedDetails:
    """One write call and whether its details were listed before its confirmation."""

    message_index: int
    tool: str
    call_id: str
    listed: bool
    window: tuple[int, int]  # the agent messages read: message indices [start, end)
    named: tuple[str, ...]  # the details the window names (argument: value), at most a few
    details: tuple[str, ...]  # every detail the write has (argument: value)


@dataclass
class _Read:
    """What the conversation's tool results say of records, items and payment methods, to name them as an agent
    does."""

    items: dict[str, set[str]]  # item id -> product name and option values
    payments: dict[str, set[str]]  # payment method id -> its last four digits, brand
    records: dict[str, set[str]]  # reservation or order id -> its flights and airports, or its items' names


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every dict in ``value``, itself first, in document order (a stack, not a generator per level)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            yield v
            stack += reversed(v.values())
        elif isinstance(v, list):
            stack += reversed(v)


def _words(value: Any) -> set[str]:
    if isinstance(value, dict):
        return {str(v).lower() for v in value.values() if isinstance(v, str | int | float) and str(v).strip()}
    return set()


def _read_results(messages: Sequence[Message], index: TurnIndex | None = None) -> _Read:
    """What the tool results say (``index``: the record's, whose one parse of each result this shares)."""
    read = _Read({}, {}, {})
    for i, m in enumerate(messages):
        if not is_tool_message(m) or not isinstance(m.content, str):
            continue
        if index is not None:
            value = index.parsed(i)
            if value is UNPARSED:
                continue
        else:
            try:
                value = json.loads(m.content)
            except json.JSONDecodeError:
                continue
        for d in _walk(value):
            if "item_id" in d:  # an order's item: its product name and options
                names = _words(d.get("options"))
                if isinstance(d.get("name"), str):
                    names.add(d["name"].lower())
                read.items.setdefault(str(d["item_id"]), set()).update(names)
            if isinstance(d.get("variants"), dict):  # a product's variants, by item id
                for item_id, variant in d["variants"].items():
                    names = _words(variant.get("options") if isinstance(variant, dict) else None)
                    if isinstance(d.get("name"), str):
                        names.add(d["name"].lower())
                    read.items.setdefault(str(item_id), set()).update(names)
            record, parts = d.get("reservation_id") or d.get("order_id"), d.get("flights") or d.get("items")
            if record is not None and isinstance(parts, list):
                read.records.setdefault(str(record), set()).update(
                    str(e[k]).lower() for e in parts if isinstance(e, dict)
                    for k in ("flight_number", "origin", "destination", "name") if e.get(k))
            for key in ("payment_methods", "payment_history"):
                methods = d.get(key)
                entries = methods.values() if isinstance(methods, dict) else methods if isinstance(methods, list) else []
                for e in entries:
                    if isinstance(e, dict) and "id" in e:
                        read.payments.setdefault(str(e["id"]), set()).update(
                            str(e[k]).lower() for k in ("last_four", "brand") if e.get(k))
    return read


def _id(value: str) -> list[str]:
    value = value.lower()
    return [value, value.lstrip("#")] if value.startswith("#") else [value]


def _payment(value: str) -> list[str]:
    """A payment method as an agent names it: its id or its kind (``credit_card_1234`` -> "credit card",
    "card"); the last four digits and brand its record gave are ``_RESULT_FORMS``'."""
    kind = re.sub(r"_?\d+$", "", value.lower()).replace("_", " ").strip()
    forms = [value.lower()]
    if kind:
        forms += [kind, kind.split()[-1]]  # "credit card", "card"; "gift card", "card"; "paypal"
    return forms


def _amount(value: Any) -> list[str]:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return []
    whole = f"{number:.0f}" if number == int(number) else None
    forms = [f"{number:.2f}", f"{number:,.2f}"]
    return forms + ([whole, f"{int(number):,}"] if whole is not None else [])


# How each argument's value is named in words: (argument, value) -> the forms its value itself gives ...
_DETAILS: dict[str, Callable[[Any], list[str]]] = {
    "reservation_id": lambda v: _id(str(v)),
    "order_id": lambda v: _id(str(v)),
    "item_ids": lambda v: [str(v).lower()],
    "new_item_ids": lambda v: [str(v).lower()],
    "payment_method_id": lambda v: _payment(str(v)),
    "payment_id": lambda v: _payment(str(v)),
    "amount": _amount,
    "flight_number": lambda v: [str(v).lower()],
    "first_name": lambda v: [str(v).lower()],
    "last_name": lambda v: [str(v).lower()],
    "address1": lambda v: [str(v).lower()],
    "city": lambda v: [str(v).lower()],
    "zip": lambda v: [str(v).lower()],
    "cabin": lambda v: [str(v).lower().replace("_", " ")],
    "reason": lambda v: [str(v).lower().replace("_", " ")],
}
# ... and the forms the conversation's tool results give it (``_read_results``): a record's flights, airports or
# items' names, an item's product name and options, a payment method's last four digits and brand.
_RESULT_FORMS: dict[str, Callable[[Any, _Read], Collection[str]]] = {
    "reservation_id": lambda v, r: r.records.get(str(v), set()),
    "order_id": lambda v, r: r.records.get(str(v), set()),
    "item_ids": lambda v, r: r.items.get(str(v), set()),
    "new_item_ids": lambda v, r: r.items.get(str(v), set()),
    "payment_method_id": lambda v, r: r.payments.get(str(v), set()),
    "payment_id": lambda v, r: r.payments.get(str(v), set()),
}


def _details(arguments: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every (argument name, value) of a call that names a detail (``_DETAILS``), nested lists and entries opened
    (``flights`` -> each ``flight_number``; ``payment_methods`` -> each ``payment_id`` and ``amount``), in order."""
    found: list[tuple[str, Any]] = []
    _collect(arguments, found)
    return found


def _collect(arguments: dict[str, Any], found: list[tuple[str, Any]]) -> None:
    """``_details``' walk: a call per entry opened and a list it appends to (a generator per level, each value
    yielded up through every level above it, cost about twice as much)."""
    for name, value in arguments.items():
        if name in _NOT_DETAILS:
            continue
        if isinstance(value, list):
            for v in value:
                if isinstance(v, dict):
                    _collect(v, found)
                elif name in _DETAILS:
                    found.append((name, v))
        elif isinstance(value, dict):
            _collect(value, found)
        elif name in _DETAILS:
            found.append((name, value))


def _named(form: str, text: str) -> bool:
    form = form.strip()
    return len(form) >= 2 and named_in(form, text)


def _failed(messages: Sequence[Message]) -> set[str]:
    """The ids of tool calls whose result is an error (the write changed nothing)."""
    return {m.id for m in messages if is_tool_message(m) and m.error}


def _windows(
    turns: list[Turn], messages: Sequence[Message], is_write: Callable[[str], bool], index: TurnIndex | None = None
) -> Iterator[tuple[Turn, Any, tuple[int, int]]]:
    failed: set[str] | None = None  # read where a write first needs it: most conversations make none
    opened = 0  # where the current request opens: after the confirmation of the last write made
    before = 0  # where the request before it opened
    last_confirmation: int | None = None  # the confirmation of the last write that changed the database
    for t in turns:
        calls = [c for c in t.calls if c.name != TRANSFER_TOOL and is_write(c.name)] if t.calls else None
        if not calls:
            continue
        said = index.said_before(t.index) if index is not None else next(
            (u for u in reversed(turns[: t.index]) if u.role == "user" and u.text.strip()), None)
        end = said.index if said is not None else t.index
        if said is not None and last_confirmation is not None and said.index != last_confirmation:
            before, opened = opened, last_confirmation + 1  # a new request
        for call in calls:
            yield t, call, (before, end)
        # a write a tool error stopped changed nothing: its retry answers the same listing (a payment the user
        # changed after the error, say)
        if said is not None:
            if index is not None:  # the index's tool messages by call id: the calls' own, not every message read
                stopped = all(index.failed(c.id) for c in calls)
            else:
                failed = _failed(messages) if failed is None else failed
                stopped = all(c.id in failed for c in calls)
            if not stopped:
                last_confirmation = end


class _Results:
    """The conversation's tool results, read (``_read_results``) the first time a form needs them: most writes'
    details are named by their own values, and reading the results is most of the cost."""

    def __init__(self, messages: Sequence[Message], index: TurnIndex | None = None) -> None:
        self._messages = messages
        self._index = index
        self._read: _Read | None = None

    def __call__(self) -> _Read:
        if self._read is None:
            self._read = _read_results(self._messages, self._index)
        return self._read


def _names(name: str, value: Any, said: str, results: _Results | None) -> bool:
    """Whether ``said`` names the detail: by a form of its value (``_DETAILS``), or where ``results`` is given,
    one the tool results gave it (``_RESULT_FORMS``)."""
    for form in _DETAILS[name](value):  # a loop, not ``any`` over a generator: asked of every detail of every write
        if _named(form, said):
            return True
    if results is None:
        return False
    forms = _RESULT_FORMS.get(name)
    return forms is not None and any(_named(f, said) for f in forms(value, results()))


def _confirmed(
    messages: Sequence[Message], is_write: Callable[[str], bool], turns: list[Turn] | None = None,
    index: TurnIndex | None = None,
) -> Iterator[tuple[Turn, Any, tuple[int, int], list[tuple[str, Any]], str, Callable[[], str]]]:
    """Each write call, its window, its details (argument, value), the agent's words in the window (lowercase), and
    what the user's answer adds to them (``_answer``, read when asked: ``index``, the record's, lowercases each
    text once)."""
    turns = read_turns(messages) if turns is None else turns
    for t, call, (start, end) in _windows(turns, messages, is_write, index):
        details = _details(dict(call.arguments or {}))
        said = "\n".join([u.text.lower() if index is None else index.lowered(u.text)[0]
                          for u in turns[start:end] if u.role == "assistant" and u.text.strip()])
        yield t, call, (start, end), details, said, partial(_answer, turns, t, end)


def _answer(turns: list[Turn], t: Turn, end: int) -> str:
    """The user's words the window adds (``"\\n"`` and their lowercase; "" where none): the user states the details,
    asked to confirm the action."""
    return "\n" + turns[end].text.lower() if end < t.index and _answers_confirmation(turns, turns[end]) else ""


def listed_details(messages: Sequence[Message], is_write: Callable[[str], bool]) -> list[ListedDetails]:
    """Each write call (``is_write`` by tool name) and whether the agent's messages before its confirmation
    name any of its details."""
    results = _Results(messages)
    found = []
    for t, call, window, details, said, answer in _confirmed(messages, is_write):
        said += answer()
        named = [f"{name}: {value}" for name, value in details if _names(name, value, said, results)]
        found.append(ListedDetails(
            message_index=t.index, tool=call.name, call_id=call.id, listed=bool(named) or not details, window=window,
            named=tuple(named[:4]), details=tuple(f"{name}: {value}" for name, value in details),
        ))
    return found


def listed_by_call(
    messages: Sequence[Message], is_write: Callable[[str], bool], turns: list[Turn] | None = None,
    index: TurnIndex | None = None,
) -> dict[tuple[int, str], bool]:
    """``listed_details``' ``listed`` by (message index, tool call id): the record's writes read it (``turns``: the
    messages read already; ``index``: the record's). Any detail named lists them, so each value's own forms are
    tried first, every detail's, in the agent's words alone, then with the user's answer, and the tool results
    read only where none is named. A form named in the agent's words is named with the answer after them too
    (``named_in`` reads one character past a form, and the answer opens with a line break): the answer is read
    only where the agent's words name nothing."""
    results = _Results(messages, index)
    found = {}
    for t, call, _, details, said, answer in _confirmed(messages, is_write, turns, index):
        listed = not details
        for n, v in details:  # a loop, not ``any`` over a generator: the first test of every write
            if _names(n, v, said, None):
                listed = True
                break
        if listed:
            found[(t.index, call.id)] = True
            continue
        said += answer()
        found[(t.index, call.id)] = any(_names(n, v, said, None) for n, v in details) or any(
            _names(n, v, said, results) for n, v in details)
    return found


def writes_without_details(messages: Sequence[Message], is_write: Callable[[str], bool]) -> list[Settled]:
    """Each write call whose details the agent never listed before the user's confirmation (the first per
    message, as ``writes_without_yes`` names them)."""
    found: dict[int, Settled] = {}
    for w in listed_details(messages, is_write):
        if not w.listed and w.message_index not in found:
            found[w.message_index] = Settled(
                f"{w.tool} with none of its details ({', '.join(w.details[:3])}) listed by the agent before the "
                f"user's confirmation (messages {w.window[0]}-{w.window[1]})", w.message_index, "")
    return list(found.values())


__all__ = ["ListedDetails", "listed_details", "listed_by_call", "writes_without_details"]
