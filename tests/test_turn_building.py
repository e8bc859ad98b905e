"""``_evidence._read_turns`` builds each turn with its slots set in place, not by calling ``Turn(...)`` or
``UnreadTurn(...)`` (whose ``__init__`` runs in an interpreter loop of its own, #47): on real runs, every turn is of the
class, and holds the slots, that the constructors give it from the same message (the reading before the change, kept
here as the reference); an ``UnreadTurn``'s text is still unset until first read, and then its raw text normalised."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import pytest
from tau2.data_model.simulation import SimulationRun

from conversation_reading._evidence import (
    _ORIGIN_MAPS,
    _QUOTED,
    Turn,
    UnreadTurn,
    _norm,
    _read_turns,
)
from conversation_reading._message_kinds import is_assistant_message
from conversation_reading._normalise import _apply, normalise, normalised, speech
from conversation_reading._vocabulary import vocabulary
from tests.conftest import _raw_run

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json"]


def _reference(messages: Sequence[Any]) -> list[Turn]:
    """``_read_turns`` as it was, each turn built by its class's constructor."""
    out: list[Turn] = []
    users: list[str] = []
    heard = ""
    heard_of = 0
    v = vocabulary()
    for i, m in enumerate(messages):
        role, content = m.role, m.content
        raw = content if isinstance(content, str) else ""
        calls = tuple(m.tool_calls or []) if is_assistant_message(m) else ()
        if role != "user" and role != "assistant":
            out.append(UnreadTurn(i, role, calls, raw))
            continue
        if not raw and role == "assistant":
            out.append(Turn(i, role, raw, calls, raw, range(1)))
            continue
        text, origin = normalised(raw)
        if role == "assistant":
            text, origin = speech(text, origin, v.reasoning, v.aside, v.second_person)
        if role == "user":
            users.append(text)
        elif users and ('"' in text or "\u201c" in text):
            heard += "".join(" " + _norm(u) for u in users[heard_of:])
            heard_of = len(users)

            def unquote(q: re.Match[str], said: str = heard) -> str:
                return "\u2026" if _norm(q.group(1)) in said else q.group(0)
            text, origin = _apply(text, origin, _QUOTED, unquote)
        out.append(Turn(i, role, text, calls, raw, origin if isinstance(origin, _ORIGIN_MAPS) else tuple(origin)))
    return out


def _set_slots(t: Turn) -> dict[str, Any]:
    """Each slot of ``t`` that is set, read from the slot itself (not through ``UnreadTurn.__getattr__``)."""
    out = {}
    for name in Turn.__slots__:
        try:
            out[name] = getattr(Turn, name).__get__(t, type(t))
        except AttributeError:
            pass
    return out


@pytest.mark.parametrize("name", RUNS)
def test_each_turn_is_the_one_its_constructor_builds(name):
    unread = spoken = 0
    for raw in _raw_run(name)["simulations"]:
        messages = list(SimulationRun.model_validate(raw).messages)
        built, reference = _read_turns(messages), _reference(messages)
        assert len(built) == len(reference)
        for t, r in zip(built, reference, strict=True):
            assert type(t) is type(r)
            assert _set_slots(t).keys() == _set_slots(r).keys()
            if type(t) is UnreadTurn:
                unread += 1
                assert set(_set_slots(t)) == {"index", "role", "calls", "raw"}  # text and origin: when first read
                assert (t.index, t.role, t.calls, t.raw) == (r.index, r.role, r.calls, r.raw)
                said = normalise(t.raw)
                assert (t.text, tuple(t.origin)) == (said.text, tuple(said.origin))
            else:
                spoken += 1
                assert _set_slots(t).keys() == set(Turn.__slots__)
                assert t == r and type(t.origin) is type(r.origin)
    assert unread > 50 and spoken > 200
