"""A flight's status as a conversation had read it (``_claims._status``), the domain database's answer kept for the
conversation: the policy model asks the status of each leg of a reservation in every verdict and refund it gives
(whether flown, whether cancelled by the airline), and the database's answer (a lookup through the pristine toolkit,
several microseconds) is the same in every message, no tool changing a flight's status (#47)."""

from __future__ import annotations

from collections.abc import Callable

from conversation_reading._claims import _status
from conversation_reading._conversation_state import _State

_UNSEEN = object()


def held_status(state: _State, held: dict[tuple[str, str], object]) -> Callable[[str, str], str | None]:
    """``partial(_status, state)``; ``held``: the database's statuses by (flight, date), kept across one
    conversation's states (its own dict: dropped with the conversation's reading)."""
    statuses, domain = state.statuses, state.domain

    def status(number: str, date: str) -> str | None:
        read = statuses.get((number, date))
        if read is not None or not domain:
            return read
        found = held.get((number, date), _UNSEEN)
        if found is _UNSEEN:
            found = held[(number, date)] = _status(state, number, date)
        return found  # type: ignore[return-value]

    return status


__all__ = ["held_status"]
