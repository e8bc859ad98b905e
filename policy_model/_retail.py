"""The retail policy over a database at a moment: which orders and items may be cancelled, modified, returned
or exchanged, the refund and where it goes, the price difference of an exchange or modification, gift card
balances. Tau2's ``RetailDB`` or its dict form; a record missing makes the answer ``Undecided``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from policy_model._clauses import RETAIL, Clause
from policy_model._records import get, items, number, table
from policy_model._verdicts import (
    Allowed,
    Forbidden,
    PaymentLine,
    PolicyVerdict,
    PriceDifference,
    Refund,
    Undecided,
)

CANCEL_REASONS = frozenset({"no longer needed", "ordered by mistake"})


def _c(clause_id: str) -> Clause:
    return RETAIL[clause_id]


class RetailPolicy:
    """The retail policy's verdicts and figures over ``db``. Orders by id or as records."""

    def __init__(self, db: Any) -> None:
        self.db = db

    def order(self, order: str | Any) -> Any:
        return table(self.db, "orders").get(order) if isinstance(order, str) else order

    def payment_method(self, order: Any, payment_id: str) -> Any:
        user = table(self.db, "users").get(str(get(order, "user_id") or ""))
        return (get(user, "payment_methods") or {}).get(payment_id) if user is not None else None

    def gift_card_balance(self, user_id: str, payment_id: str) -> float | None:
        user = table(self.db, "users").get(user_id)
        method = (get(user, "payment_methods") or {}).get(payment_id) if user is not None else None
        return number(get(method, "balance")) if method is not None and get(method, "source") == "gift_card" else None

    def _status_is(self, order: str | Any, wanted: str, clause_id: str) -> PolicyVerdict:
        found = self.order(order)
        if found is None:
            return Undecided(_c(clause_id), f"order {order} not in the database")
        status = get(found, "status")
        if status != wanted:
            return Forbidden(_c(clause_id), f"{get(found, 'order_id')} is {status!r}, not {wanted!r}")
        return Allowed(_c(clause_id), f"{get(found, 'order_id')} is {wanted!r}")

    def may_cancel(self, order: str | Any, reason: str | None = None) -> PolicyVerdict:
        verdict = self._status_is(order, "pending", "cancel.pending")
        if verdict and reason is not None and reason not in CANCEL_REASONS:
            return Forbidden(_c("cancel.reason"), f"{reason!r} is not an accepted reason")
        return verdict

    def may_modify(self, order: str | Any) -> PolicyVerdict:
        """Address, payment or items of a pending order (not once its items were modified)."""
        return self._status_is(order, "pending", "modify.pending")

    def may_return(self, order: str | Any) -> PolicyVerdict:
        return self._status_is(order, "delivered", "return.delivered")

    def may_exchange(self, order: str | Any) -> PolicyVerdict:
        return self._status_is(order, "delivered", "exchange.delivered")

    def may_write(self, tool: str, arguments: Any) -> PolicyVerdict | None:
        """Whether the policy allows the write ``tool(arguments)`` on its order as ``db`` holds it: the order's
        status for the act, an accepted cancellation reason, and an item swapped only for an option of its own
        product (an id no product lists is left undecided: a typo is no breach). None: a tool the policy does
        not judge here (the user's address), or no order named."""
        order = str(get(arguments, "order_id") or "")
        if not order:
            return None
        if tool == "cancel_pending_order":
            return self.may_cancel(order, get(arguments, "reason"))
        if tool in ("modify_pending_order_address", "modify_pending_order_payment"):
            return self.may_modify(order)
        if tool == "return_delivered_order_items":
            return self.may_return(order)
        if tool not in ("modify_pending_order_items", "exchange_delivered_order_items"):
            return None
        exchange = tool == "exchange_delivered_order_items"
        verdict = self.may_exchange(order) if exchange else self.may_modify(order)
        found = self.order(order)
        if not verdict or found is None:
            return verdict
        product_of = {str(v): str(pid) for pid, p in table(self.db, "products").items()
                      for v in (get(p, "variants") or {})}
        ordered = {str(get(i, "item_id")): str(get(i, "product_id")) for i in items(found, "items")}
        for old, new in zip(get(arguments, "item_ids") or [], get(arguments, "new_item_ids") or [], strict=False):
            if str(new) in product_of and str(old) in ordered and product_of[str(new)] != ordered[str(old)]:
                return Forbidden(_c("exchange.same_product" if exchange else "modify.same_product"),
                                 f"{new} is an item of another product than {old}")
        return verdict

    def cancellation_refund(self, order: str | Any) -> Refund:
        """Every payment of a pending order back to its method (a gift card at once, else in 5 to 7 days)."""
        found = self.order(order)
        if found is None:
            return Refund(Undecided(_c("cancel.refund"), f"order {order}"), 0.0, (), "")
        transfers = tuple(PaymentLine(str(get(p, "payment_method_id")), -(number(get(p, "amount")) or 0.0))
                          for p in items(found, "payment_history"))
        return Refund(self.may_cancel(found), -sum(t.amount for t in transfers), transfers, "original payment methods")

    def return_refund(self, order: str | Any, item_ids: Sequence[str], payment_id: str) -> Refund:
        """The returned items' prices, to ``payment_id``: the original method or an existing gift card."""
        found = self.order(order)
        if found is None:
            return Refund(Undecided(_c("return.refund_method"), f"order {order}"), 0.0, (), "")
        prices = {str(get(i, "item_id")): number(get(i, "price")) or 0.0 for i in items(found, "items")}
        total = round(sum(prices.get(i, 0.0) for i in item_ids), 2)
        original = next((str(get(p, "payment_method_id")) for p in items(found, "payment_history")), None)
        method = self.payment_method(found, payment_id)
        verdict: PolicyVerdict = self.may_return(found)
        if verdict and method is None:
            verdict = Forbidden(_c("return.refund_method"), f"{payment_id} is not the user's")
        elif verdict and payment_id != original and get(method, "source") != "gift_card":
            verdict = Forbidden(_c("return.refund_method"), f"{payment_id} is neither the original method ({original}) "
                                "nor a gift card")
        where = "original payment method" if payment_id == original else "gift card"
        return Refund(verdict, total, (PaymentLine(payment_id, -total),), where)

    def price_difference(self, order: str | Any, item_ids: Sequence[str], new_item_ids: Sequence[str],
                         payment_id: str | None = None, *, exchange: bool) -> PriceDifference:
        """New prices − old prices of an exchange (``exchange``) or a modification of items: each new item of the
        same product, another option, available; a gift card paying must cover the difference."""
        found = self.order(order)
        if found is None:
            return PriceDifference(Undecided(_c("difference.payment"), f"order {order}"), 0.0, ())
        verdict: PolicyVerdict = self.may_exchange(found) if exchange else self.may_modify(found)
        products = table(self.db, "products")
        ordered = {str(get(i, "item_id")): i for i in items(found, "items")}
        per_item = []
        for old, new in zip(item_ids, new_item_ids, strict=False):
            item = ordered.get(old)
            variant = (get(products.get(str(get(item, "product_id"))), "variants") or {}).get(new) if item else None
            same = "exchange.same_product" if exchange else "modify.same_product"
            if item is None or variant is None:
                verdict = Forbidden(_c(same), f"{new} is no option of {old}'s product") if verdict else verdict
                continue
            if (not get(variant, "available") or old == new) and verdict:
                verdict = Forbidden(_c(same), f"{new} is {'the same item' if old == new else 'not available'}")
            per_item.append((old, new, (number(get(variant, "price")) or 0.0) - (number(get(item, "price")) or 0.0)))
        total = round(sum(d for _o, _n, d in per_item), 2)
        method = self.payment_method(found, payment_id) if payment_id else None
        if verdict and payment_id and method is None:
            verdict = Forbidden(_c("difference.payment"), f"{payment_id} is not the user's")
        balance = number(get(method, "balance")) if method is not None and get(method, "source") == "gift_card" else None
        if verdict and balance is not None and balance < total:
            verdict = Forbidden(_c("difference.payment"), f"{payment_id} holds {balance:g}, less than {total:g}")
        return PriceDifference(verdict, total, tuple(per_item))

    def payment_change(self, order: str | Any, payment_id: str) -> Refund:
        """Paying a pending order with ``payment_id`` instead: its one payment charged there and refunded to the
        original method."""
        found = self.order(order)
        if found is None:
            return Refund(Undecided(_c("modify.payment_single"), f"order {order}"), 0.0, (), "")
        payments = items(found, "payment_history")
        verdict = self.may_modify(found)
        if verdict and (len(payments) != 1 or get(payments[0], "transaction_type") != "payment"):
            verdict = Forbidden(_c("modify.payment_single"), "the order has more than its one payment")
        if not payments:
            return Refund(verdict, 0.0, (), "")
        original, amount = str(get(payments[0], "payment_method_id")), number(get(payments[0], "amount")) or 0.0
        method = self.payment_method(found, payment_id)
        balance = number(get(method, "balance")) if method is not None and get(method, "source") == "gift_card" else None
        if verdict and payment_id == original:
            verdict = Forbidden(_c("modify.payment_single"), f"{payment_id} is the original method")
        elif verdict and method is None:
            verdict = Forbidden(_c("modify.payment_single"), f"{payment_id} is not the user's")
        elif verdict and balance is not None and balance < amount:
            verdict = Forbidden(_c("modify.gift_card_covers"), f"{payment_id} holds {balance:g}, less than {amount:g}")
        return Refund(verdict, amount, (PaymentLine(payment_id, amount), PaymentLine(original, -amount)), "original payment method")
