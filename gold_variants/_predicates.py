"""Evaluate outcome predicates on the records a replay touched (see ``_model`` for the predicates)."""

from __future__ import annotations

import json
from typing import Any

from envs import ReplayEngine, State
from gold_variants._model import CertificatePredicate, RebookPredicate, UpgradeModifyPredicate


class _View:
    def __init__(self, engine: ReplayEngine, state: State) -> None:
        self.engine, self.state = engine, state

    def before(self, table: str, key: str) -> Any:
        text = self.engine.pristine((table, key))
        return None if text is None else json.loads(text)

    def after(self, table: str, key: str) -> Any:
        text = self.state[(table, key)] if (table, key) in self.state else self.engine.pristine((table, key))
        return None if text is None else json.loads(text)

    def changed(self) -> list[tuple[str, str]]:
        return [k for k, v in self.state.items() if v != self.engine.pristine(k)]


def _only_changed(view: _View, allowed: Any) -> str | None:
    stray = [f"{t}/{k}" for t, k in view.changed() if not allowed(t, k)]
    return f"unrelated records changed: {', '.join(sorted(stray)[:4])}" if stray else None


def check_rebook(p: RebookPredicate, view: _View) -> tuple[bool, str]:
    new_ids = [k for t, k in view.changed() if t == "reservations" and view.before(t, k) is None]
    stray = _only_changed(
        view,
        lambda t, k: (t, k) in {("reservations", p.reservation_id), ("users", p.user_id)}
        or (t == "reservations" and k in new_ids) or t == "flights",
    )
    if stray:
        return False, stray
    original, now = view.before("reservations", p.reservation_id), view.after("reservations", p.reservation_id)
    cancelled = now.get("status") == "cancelled"
    if p.original == "cancelled" and not cancelled:
        return False, f"{p.reservation_id} not cancelled"
    if p.original == "cancelled_or_kept" and not (cancelled or now == original):
        return False, f"{p.reservation_id} modified rather than cancelled or kept"
    for rid in new_ids:
        booked = view.after("reservations", rid)
        if booked is None or booked.get("user_id") != p.user_id or booked.get("status") == "cancelled":
            continue
        if booked.get("passengers") != original.get("passengers"):
            continue
        legs = [(f["flight_number"], f["date"]) for f in booked["flights"]]
        if p.flights is not None and sorted(legs) == sorted(map(tuple, p.flights)):
            return True, f"rebooked as {rid}"
        if p.segment is not None and any((f["origin"], f["destination"]) == tuple(p.segment) for f in booked["flights"]):
            return True, f"rebooked as {rid}"
    return False, "no new reservation for the same passengers with the wanted flights"


def check_upgrade_modify(p: UpgradeModifyPredicate, view: _View) -> tuple[bool, str]:
    stray = _only_changed(view, lambda t, k: (t, k) in {("reservations", p.reservation_id), ("users", p.user_id)})
    if stray:
        return False, stray
    before, after = view.before("reservations", p.reservation_id), view.after("reservations", p.reservation_id)
    if after.get("status") == "cancelled" or after["cabin"] == "basic_economy":
        return False, "not upgraded (or cancelled)"
    if any(after[k] != before[k] for k in ("origin", "destination", "flight_type")):
        return False, "origin, destination or trip type changed"
    legs = [(f["flight_number"], f["date"]) for f in after["flights"]]
    if legs == [(f["flight_number"], f["date"]) for f in before["flights"]]:
        return False, "flights not changed"
    if p.date is not None and any(d != p.date for _, d in legs):
        return False, f"new flights not all on {p.date}"
    added = len(after["payment_history"]) - len(before["payment_history"])
    if added != p.calls:
        return False, f"{added} payment entries added, the reading implies {p.calls}"
    return True, "upgraded and modified"


def check_certificate(p: CertificatePredicate, view: _View) -> tuple[bool, str]:
    stray = _only_changed(
        view, lambda t, k: (t, k) in {("reservations", p.reservation_id), ("users", p.user_id)} or t == "flights"
    )
    if stray:
        return False, stray
    before, after = view.before("users", p.user_id), view.after("users", p.user_id)
    added = {k: v for k, v in after["payment_methods"].items() if k not in before["payment_methods"]}
    certificates = [v for v in added.values() if v.get("source") == "certificate"]
    if len(added) != 1 or len(certificates) != 1 or certificates[0].get("amount") != p.amount:
        return False, f"not exactly one new certificate of {p.amount} (added: {sorted(added)})"
    # Refunds of a change or cancellation may move balances; nothing else about the user may change.
    kept = {k: v for k, v in after.items() if k != "payment_methods"}
    if kept != {k: v for k, v in before.items() if k != "payment_methods"} or any(
        after["payment_methods"][k].get("source") != v.get("source") for k, v in before["payment_methods"].items()
    ):
        return False, f"user {p.user_id} changed beyond the certificate and refunds"
    return True, f"certificate of {p.amount} sent to {p.user_id}"


def predicate_holds(predicate: Any, engine: ReplayEngine, state: State) -> tuple[bool, str]:
    view = _View(engine, state)
    if isinstance(predicate, CertificatePredicate):
        return check_certificate(predicate, view)
    if isinstance(predicate, RebookPredicate):
        return check_rebook(predicate, view)
    if isinstance(predicate, UpgradeModifyPredicate):
        return check_upgrade_modify(predicate, view)
    raise TypeError(f"unknown predicate {type(predicate).__name__}")
