"""#40 item 1: whether the agent listed a write's details before the user's yes (``_write_details``), read from
the messages alone: lenient, so that it says "not listed" only where a careful reader agrees."""

from __future__ import annotations

import json

import pytest
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage

from conversation_reading._evidence import read_turns
from conversation_reading._turn_index import TurnIndex
from conversation_reading._write_details import listed_by_call, listed_details
from gold_variants.readings._base import write_tools
from tests.conftest import _raw_run, real_simulation

RETAIL = write_tools("retail")
ORDER_A = {"order_id": "#W1111111", "items": [{"item_id": "111", "name": "Desk Lamp", "options": {"color": "black"}}]}
ORDER_B = {"order_id": "#W2222222", "items": [{"item_id": "222", "name": "Jigsaw Puzzle", "options": {"pieces": "500"}}]}


def _agent(text: str) -> AssistantMessage:
    return AssistantMessage(role="assistant", content=text)


def _user(text: str) -> UserMessage:
    return UserMessage(role="user", content=text)


def _call(n: int, name: str, args: dict, result: object, error: bool = False) -> list:
    return [AssistantMessage(role="assistant", content=None, tool_calls=[ToolCall(id=f"c{n}", name=name, arguments=args)]),
            ToolMessage(role="tool", id=f"c{n}", content=json.dumps(result), error=error)]


def _listed(messages: list) -> list[tuple[str, bool]]:
    return [(w.tool, w.listed) for w in listed_details(messages, lambda name: name in RETAIL)]


_EXCHANGE = {"order_id": "#W1111111", "item_ids": ["111"], "new_item_ids": ["112"], "payment_method_id": "paypal_1"}
_RETURN = {"order_id": "#W2222222", "item_ids": ["222"], "payment_method_id": "gift_card_9"}


def _two_requests(second_asked: str) -> list:
    return [_user("I want to exchange my lamp and return my puzzle."),
            *_call(1, "get_order_details", {"order_id": "#W1111111"}, ORDER_A),
            *_call(2, "get_order_details", {"order_id": "#W2222222"}, ORDER_B),
            _agent("I will exchange the black Desk Lamp in order #W1111111 for the white one, paid with PayPal. "
                   "Shall I proceed?"), _user("Yes."),
            *_call(3, "exchange_delivered_order_items", _EXCHANGE, {}),
            _agent(second_asked), _user("Yes, go ahead."),
            *_call(4, "return_delivered_order_items", _RETURN, {})]


def test_each_write_is_listed_by_its_own_details_within_its_request():
    """The exchange's listing names the lamp and the order; the return, asked and confirmed after the exchange
    was made, is listed only where the agent names it (the puzzle, its order or the gift card)."""
    assert _listed(_two_requests("Now, shall I proceed with the other one?")) == [
        ("exchange_delivered_order_items", True), ("return_delivered_order_items", False)]
    assert _listed(_two_requests("Shall I return the Jigsaw Puzzle to your gift card?")) == [
        ("exchange_delivered_order_items", True), ("return_delivered_order_items", True)]


def test_a_listing_of_two_actions_confirmed_one_at_a_time_counts_for_both():
    """The request before is read too: both actions listed together, then a second yes for the second."""
    both = _two_requests("Shall I go on with the return?")
    both[5] = _agent("I will exchange the Desk Lamp in order #W1111111 and return the Jigsaw Puzzle of order "
                     "#W2222222 to your gift card. Shall I start with the exchange?")
    assert _listed(both) == [("exchange_delivered_order_items", True), ("return_delivered_order_items", True)]


def test_a_retry_after_a_tool_error_answers_the_same_listing():
    """A write a tool error stopped changed nothing: the user's new payment choices and the retries keep the
    listing made before the first try, however many tries it takes."""
    def retry(n: int, method: str, error: bool) -> list:
        return [_agent("That did not go through. Which payment method should receive the refund?"),
                _user(f"My {method} then."),
                *_call(n, "return_delivered_order_items", {**_RETURN, "payment_method_id": f"{method}_1"},
                       "Error: not found" if error else {}, error=error)]

    messages = [_user("Return the puzzle, please."), *_call(1, "get_order_details", {"order_id": "#W2222222"}, ORDER_B),
                _agent("I will return the Jigsaw Puzzle of order #W2222222 to your gift card. Shall I proceed?"),
                _user("Yes."), *_call(2, "return_delivered_order_items", _RETURN, "Error: not found", error=True),
                *retry(3, "paypal", True), *retry(4, "credit_card", False)]
    assert _listed(messages) == [("return_delivered_order_items", True)] * 3
    turns = read_turns(messages)  # the record's reading, its index's errors by call id, reads the same
    assert list(listed_by_call(messages, lambda name: name in RETAIL, turns, TurnIndex(turns, messages)).values()) == [True] * 3


def test_a_real_swap_made_straight_after_the_request_is_not_listed():
    """Retail 61 (toolorchestra): the earbuds swapped right after the user's request, the agent silent."""
    sim = real_simulation("toolorchestra_retail_tau2_1trial.json", "101")
    assert _listed(sim.messages) == [("modify_pending_order_items", False)]


def _by_call(messages: list, is_write) -> dict[tuple[int, str], bool]:
    return {(w.message_index, w.call_id): w.listed for w in listed_details(messages, is_write)}


def test_the_record_reads_a_listing_by_the_results_only_where_no_value_names_it():
    """``listed_by_call`` (the record's) tries each value's own forms first and reads the tool results only where
    none is named: the puzzle named only by the name its order's result gave still lists the return."""
    is_write = lambda name: name in RETAIL  # noqa: E731
    by_result = _two_requests("Shall I return the Jigsaw Puzzle now?")
    unnamed = _two_requests("Now, shall I proceed with the other one?")
    assert list(listed_by_call(by_result, is_write).values()) == [True, True]
    assert list(listed_by_call(unnamed, is_write).values()) == [True, False]
    for messages in (by_result, unnamed):
        assert listed_by_call(messages, is_write) == _by_call(messages, is_write)


@pytest.mark.parametrize("name", ["toolorchestra_retail_tau2_1trial.json", "aide_claude-sonnet-4-5_airline_tau2_1trial.json"])
def test_the_record_reads_every_real_write_as_the_full_listing_does(name):
    from tau2.data_model.simulation import SimulationRun

    domain = "retail" if "retail" in name else "airline"
    tools = write_tools(domain)
    is_write = lambda tool: tool in tools  # noqa: E731
    writes = 0
    for raw in _raw_run(name)["simulations"]:
        messages = SimulationRun.model_validate(raw).messages
        listed = listed_by_call(messages, is_write)
        assert listed == _by_call(messages, is_write), raw["task_id"]
        writes += len(listed)
    assert writes > 20
