"""An independent oracle for the policy model's figures (#46 item 1): every write of the shared runs and the dev
corpus is replayed with tau2's real tools on the replay engine's database, in order (``replay_writes``). Before each write the
policy model computes its figure from the database as it stands and the write's arguments; after it, the oracle
reads what tau2's tool wrote (the payments appended, the certificate added, the exchange's difference, the gift
card's balance). Two code paths: the model never sees the write's result, the oracle never asks the model.

One test per rule kind; each has cases, and each was broken by hand once (docs/policy_model.md). A return
writes no amount (tau2 records the items and the refund's method only), so its oracle is the method and the
verdict on it."""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from tau2.data_model.message import ToolCall, ToolMessage

from envs import engine_for
from policy_model import AirlinePolicy, RetailPolicy
from tests.conftest import REAL_RUNS, SHARED

FILES = sorted([*REAL_RUNS.glob("*.json"), *(SHARED / "dev-corpus" / "runs").glob("*.json"),
                *(SHARED / "dev-corpus" / "other-families" / "runs").glob("*.json")])
KINDS = ("fare_difference", "airline_cancellation_refund", "bag_fee", "booking_price", "certificate",
         "retail_cancellation_refund", "return_refund_method", "exchange_difference", "modify_items_difference",
         "payment_change", "gift_card_balance")


@dataclass(frozen=True)
class Case:
    where: str
    model: Any  # the policy model's figure, from the database before the write
    wrote: Any  # what tau2's tool wrote


Observe = Callable[[], Any]  # reads the database after the write
Predictions = list[tuple[str, Any, Observe]]


def _legs(args: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(f["flight_number"]), str(f["date"])) for f in args.get("flights") or []]


def _added(history: list[Any], before: int) -> Observe:
    return lambda: history[before:]


def _signed(entries: list[Any]) -> list[tuple[str, float]]:
    """Retail payment entries as movements: a payment charges (+), a refund returns (−)."""
    return [(e.payment_method_id, round(e.amount if e.transaction_type == "payment" else -e.amount, 2)) for e in entries]


def _gift_cards(methods: dict[str, Any], field: str, moves: list[tuple[str, float]], policy_balance) -> Predictions:
    """The balance after the write of every gift card the model moves money on: the model's balance before less
    what the model moves (a charge takes, a refund gives)."""
    out: Predictions = []
    for pid in dict.fromkeys(p for p, _ in moves):
        method = methods.get(pid)
        if method is None or method.source != "gift_card":
            continue
        expected = round(policy_balance(pid) - sum(a for p, a in moves if p == pid), 2)
        out.append(("gift_card_balance", expected, lambda m=method: round(getattr(m, field), 2)))
    return out


def _airline(db: Any, name: str, args: dict[str, Any], task_certificates: set[int]) -> Predictions:
    p = AirlinePolicy(db)
    if name in ("update_reservation_flights", "update_reservation_baggages", "cancel_reservation"):
        res = db.reservations.get(args.get("reservation_id"))
        if res is None:
            return []
        history, before = res.payment_history, len(res.payment_history)
        methods = db.users[res.user_id].payment_methods

        def balance(pid: str) -> float:
            return float(p.payment_methods(res.user_id)[pid].amount)

        if name == "cancel_reservation":
            refund = p.cancellation_refund(res.reservation_id)
            return [("airline_cancellation_refund", [(t.payment_id, t.amount) for t in refund.transfers],
                     lambda: [(e.payment_id, e.amount) for e in history[before:]])]
        if name == "update_reservation_flights":
            charge = p.fare_difference(res.reservation_id, args["cabin"], _legs(args)).total
            kind = "fare_difference"
        else:
            charge = p.bag_change(res.reservation_id, args["total_baggages"], args["nonfree_baggages"]).fee
            kind = "bag_fee"
        wrote = _added(history, before)
        return [(kind, charge, lambda: sum(e.amount for e in wrote())),
                *_gift_cards(methods, "amount", [(args["payment_id"], charge)], balance)]
    if name == "book_reservation":
        user = db.users.get(args.get("user_id"))
        if user is None:
            return []
        price = p.booking_price(args["cabin"], _legs(args), len(args.get("passengers") or []), args["insurance"],
                                args["nonfree_baggages"]).total
        return [("booking_price", price, lambda: sum(e.amount for e in db.reservations[user.reservations[-1]].payment_history))]
    if name == "send_certificate" and task_certificates:
        user = db.users.get(args.get("user_id"))
        if user is None:
            return []
        # what the policy lets the agent offer this user: a cancelled flight's or (after a change) a delayed
        # flight's certificate, on any of their reservations
        amounts = {c.amount for rid in user.reservations for cause in ("cancelled", "delayed")
                   for c in [p.compensation(rid, cause, changed_or_cancelled=True)] if c.verdict}
        before = set(user.payment_methods)
        return [("certificate", AmountIn(amounts), lambda: AmountIn(
            {m.amount for k, m in user.payment_methods.items() if k not in before}))]
    return []


@dataclass(frozen=True)
class AmountIn:
    """Amounts that equal others where the two share one: a certificate written is one of those the model allows."""

    amounts: frozenset[float] | set[float]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AmountIn) and bool(set(self.amounts) & set(other.amounts))

    def __hash__(self) -> int:
        return 0


def _retail(db: Any, name: str, args: dict[str, Any]) -> Predictions:
    p = RetailPolicy(db)
    order = db.orders.get(args.get("order_id"))
    if order is None:
        return []
    history, before = order.payment_history, len(order.payment_history)
    methods = db.users[order.user_id].payment_methods

    def balance(pid: str) -> float:
        return float(p.gift_card_balance(order.user_id, pid) or 0.0)

    if name == "cancel_pending_order":
        moves = [(t.payment_id, round(t.amount, 2)) for t in p.cancellation_refund(order.order_id).transfers]
        return [("retail_cancellation_refund", moves, lambda: _signed(history[before:])),
                *_gift_cards(methods, "balance", moves, balance)]
    if name == "return_delivered_order_items":
        refund = p.return_refund(order.order_id, args["item_ids"], args["payment_method_id"])
        # the refund's method, and whether the policy allows it (the original method or a gift card), against
        # the method tau2 recorded and whether it accepted the return
        return [("return_refund_method", (refund.transfers[0].payment_id, bool(refund.verdict)),
                 lambda: (order.return_payment_method_id, order.status == "return requested"))]
    if name == "exchange_delivered_order_items":
        diff = p.price_difference(order.order_id, args["item_ids"], args["new_item_ids"], exchange=True).total
        return [("exchange_difference", diff, lambda: order.exchange_price_difference)]
    if name == "modify_pending_order_items":
        diff = p.price_difference(order.order_id, args["item_ids"], args["new_item_ids"], exchange=False).total
        moves = [(args["payment_method_id"], diff)]
        return [("modify_items_difference", moves, lambda: _signed(history[before:])),
                *_gift_cards(methods, "balance", moves, balance)]
    if name == "modify_pending_order_payment":
        moves = [(t.payment_id, round(t.amount, 2)) for t in p.payment_change(order.order_id, args["payment_method_id"]).transfers]
        return [("payment_change", moves, lambda: _signed(history[before:])),
                *_gift_cards(methods, "balance", moves, balance)]
    return []


def _calls(sim: dict[str, Any]) -> list[tuple[ToolCall, ToolMessage]]:
    """Every tool call with its recorded answer, in order."""
    answers = {m.get("id"): m for m in sim.get("messages") or [] if m.get("role") == "tool"}
    out = []
    for tc in (tc for m in sim.get("messages") or [] if m.get("role") == "assistant" for tc in m.get("tool_calls") or []):
        answer = answers.get(tc.get("id")) or {}
        out.append((ToolCall(id=str(tc.get("id") or ""), name=tc["name"], arguments=tc.get("arguments") or {}),
                    ToolMessage(id=str(tc.get("id") or ""), role="tool", content=str(answer.get("content") or ""),
                                error=bool(answer.get("error")))))
    return out


def _certificate_tasks(data: dict[str, Any]) -> dict[str, set[int]]:
    out: dict[str, set[int]] = {}
    for task in data.get("tasks") or []:
        actions = ((task.get("evaluation_criteria") or {}).get("actions")) or []
        out[str(task.get("id"))] = {a["arguments"].get("amount") for a in actions if a.get("name") == "send_certificate"}
    return out


def _around(found: list[tuple[str, Case]], domain: str, where: str, certificates: set[int]):
    """Before a write: the model's figures from the database as it stands; after it: what the tool wrote."""

    def around(index: int, call: ToolCall, db: Any):
        args = copy.deepcopy(call.arguments)
        predictions = _airline(db, call.name, args, certificates) if domain == "airline" else _retail(db, call.name, args)

        def after(error: bool) -> None:
            if not error:  # a write that failed on replay wrote nothing to compare
                found.extend((kind, Case(f"{where} call {index} {call.name}", model, observe()))
                             for kind, model, observe in predictions)

        return after

    return around


@functools.cache
def _cases() -> dict[str, list[Case]]:
    """Every write of every file replayed once; the cases by rule kind."""
    found: list[tuple[str, Case]] = []
    for path in FILES:
        data = json.loads(path.read_text())
        domain = str(((data.get("info") or {}).get("environment_info") or {}).get("domain_name"))
        certificates = _certificate_tasks(data)
        for number, sim in enumerate(data.get("simulations") or []):
            rewarded = ((sim.get("reward_info") or {}).get("reward") or 0) == 1
            wanted = certificates.get(str(sim.get("task_id")), set()) if rewarded else set()
            engine_for(domain).replay_writes(_calls(sim), _around(found, domain, f"{path.name} simulation {number}", wanted))
    return {kind: [case for k, case in found if k == kind] for kind in KINDS}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(a - b) < 0.005
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@pytest.mark.parametrize("kind", KINDS)
def test_the_model_figure_is_what_tau2_wrote(kind):
    cases = _cases().get(kind, [])
    assert cases, f"no write of kind {kind} in the shared runs and the dev corpus"
    wrong = [c for c in cases if not _same(c.model, c.wrote)]
    assert not wrong, f"{len(wrong)} of {len(cases)} {kind} figures differ; first: {wrong[:3]}"


def test_the_replayed_writes_leave_the_shared_database_as_it_was():
    """``replay_writes`` puts the shared database back: after every write of the corpus, nothing is touched."""
    counts = {kind: len(cases) for kind, cases in _cases().items()}
    assert sum(counts.values()) > 1000, counts
    for domain in ("airline", "retail"):
        assert engine_for(domain).replay_actions([]).state == {}
