"""``strict_reward`` by class (#40 classes 8-12 and the conduct rule): one positive and one negative case per
class, on the pinned tasks and tau2's real environments. Each conversation is written by hand; every verdict
comes from ``score_simulation``, the path sweeps and rescoring use."""

from __future__ import annotations

import copy
import inspect

import pytest
from tau2.data_model.message import AssistantMessage, ToolCall
from tau2.data_model.tasks import Action

from envs import engine_for, load_task_set
from loophole_scoring import (
    score_simulation,
)
from loophole_scoring._strict_writes import as_read, gold_writes, unmatched_writes
from tests.conftest import STRICT_LISTED, STRICT_YES, conversation

YES, LISTED = STRICT_YES, STRICT_LISTED
_sim = conversation


def _task(domain: str, version: str, task_id: str):
    return load_task_set(domain, version).task(task_id)


def _score(domain: str, version: str, task, sim):
    scored = score_simulation(sim, domain, version, engine_for(domain), None, task=task)
    return scored.result.single_gold.reward, scored.strict


def _gold_calls(task) -> list[tuple[str, dict]]:
    return [(a.name, copy.deepcopy(dict(a.arguments))) for a in task.evaluation_criteria.actions]


def _user(text: str) -> tuple[str, str]:
    return ("user", text)


# -- class 8: informational tasks --------------------------------------------------------------------------------


def test_informational_answer_settles_a_no_write_gold():
    """τ² airline 3: the user asks how many suitcases; the gold's fact is '4'. Stating it is strict; a
    message holding '4' only inside another number ("14") passes tau2's substring check, not strict."""
    task = _task("airline", "tau2", "3")
    assert task.evaluation_criteria.communicate_info == ["4"]
    single, strict = _score("airline", "tau2", task, _sim("airline", task, "You can bring 4 free checked bags in total."))
    assert (single, strict.reward) == (1.0, 1.0) and "'4'" in strict.settled
    single, strict = _score("airline", "tau2", task, _sim("airline", task, "Your reservation allows 14 kg of carry-on."))
    assert (single, strict.reward) == (1.0, 0.0), strict
    # the fact stated on a false membership tier (the user record says silver)
    read = [("get_user_details", {"user_id": "anya_garcia_5901"})]
    said = "As a gold member, you can bring 4 free checked bags in total."
    single, strict = _score("airline", "tau2", task, _sim("airline", task, read, said))
    assert (single, strict.reward) == (1.0, 0.0), strict
    said = "As a silver member, you can bring 4 free checked bags in total."
    single, strict = _score("airline", "tau2", task, _sim("airline", task, read, said))
    assert (single, strict.reward) == (1.0, 1.0), strict


# -- class 9: the user withdraws after a correct quote ---------------------------------------------------------------

_SEARCHES = [("search_direct_flight", {"origin": "IAH", "destination": "SFO", "date": "2024-05-19"}),
             ("search_direct_flight", {"origin": "SFO", "destination": "IAH", "date": "2024-05-23"})]
_WITHDRAW = _user("That is over my budget of $200, so I won't be proceeding. Please leave my reservation as it is. ###STOP###")


@pytest.mark.parametrize(("quote", "strict_reward"), [
    ("The total comes to $725 for HAT072 and HAT278 in business.", 1.0),  # the searched business prices
    ("The total comes to $999 for HAT072 and HAT278 in business.", 0.0),  # no choice of flights makes it
    ("I can look into business class options for you.", 0.0),  # no quote at all
    ("I can offer you a $100 travel certificate for the trouble.", 0.0),  # compensation, not a quote
])
def test_withdrawal_after_a_correct_quote_settles_a_no_write_gold(quote, strict_reward):
    """τ² airline 34: the user withdraws when the changes exceed the budget. Strict only after a quote that
    no claim check finds false."""
    task = _task("airline", "tau2", "34")
    sim = _sim("airline", task, _SEARCHES, quote, _WITHDRAW, ending=False)
    single, strict = _score("airline", "tau2", task, sim)
    assert (single, strict.reward) == (1.0, strict_reward), strict


# -- class 10: declines in other words ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("said", "strict_reward"), [
    ("I'm sorry, we can only cancel an entire pending order, not individual items.", 1.0),
    ("Unfortunately our system doesn't support removing a single item from an order.", 1.0),
    ("I only see one pending order on your account, and it holds the air purifier.", 0.0),
])
def test_a_decline_in_other_words_settles_a_no_write_gold(said, strict_reward):
    """τ² retail 57: cancelling one item of a pending order is not possible; the decline may say so in
    other words. 'I only see one order' restricts nothing."""
    task = _task("retail", "tau2", "57")
    single, strict = _score("retail", "tau2", task, _sim("retail", task, said))
    assert (single, strict.reward) == (1.0, strict_reward), strict


@pytest.mark.parametrize(("summary", "strict_reward"), [
    ("User wants to change the flight to Las Vegas, which requires changing the destination. "
     "This is not permitted under policy for flight modifications.", 1.0),
    ("User wants to change the destination to Las Vegas. Since part of the trip has flown, "
     "modification is not possible.", 0.0),  # declined on other grounds, not the route clause
])
def test_a_decline_naming_its_clause_in_the_sentence_before(summary, strict_reward):
    """τ² airline 13 (L16, route change): a transfer whose summary declines with 'This is not permitted',
    the destination named in the sentence before."""
    task = _task("airline", "tau2", "13")
    sim = _sim("airline", task, [("transfer_to_human_agents", {"summary": summary})])
    single, strict = _score("airline", "tau2", task, sim)
    assert (single, strict.reward) == (1.0, strict_reward), strict


# -- class 11: a transfer agreed in words --------------------------------------------------------------------------------


@pytest.mark.parametrize(("turns", "strict_reward"), [
    ([_user("Can I talk to a human agent about it?"), "I understand. I will transfer you to a human agent now.",
      _user("Thank you. ###TRANSFER###")], 1.0),
    # the same words unasked, over a request nobody declined: a hand-off that settles nothing (#46; the Qwen2.5-7B
    # task 0 label)
    (["I understand. I will transfer you to a human agent now.", _user("Thank you. ###TRANSFER###")], 0.0),
    # announced, then the conversation went on and ended without the transfer
    (["I will transfer you to a human agent.", _user("Actually, one more question."), "Sure, what is it?",
      _user("Never mind. ###TRANSFER###")], 0.0),
    # the user simulator asks for a transfer and ends, but the agent never agreed to one
    (["Let me look up your reservations first.", _user("I want a supervisor. ###TRANSFER###")], 0.0),
])
def test_a_transfer_agreed_in_words_settles_a_no_write_gold(turns, strict_reward):
    """τ² airline 1 (no loophole: any decline or transfer): the user simulator ends with ###TRANSFER###
    right after the agent agreed to transfer, before the tool call could be made."""
    task = _task("airline", "tau2", "1")
    single, strict = _score("airline", "tau2", task, _sim("airline", task, *turns, ending=False))
    assert (single, strict.reward) == (1.0, strict_reward), strict


def test_a_write_a_tool_error_stopped_leaves_nothing_settled():
    """τ² airline 1: the agent lists the forbidden cancellation, gets the user's yes, tries it, the tool refuses
    it (no such reservation id), then agrees to transfer: the single gold passes, strict does not. The write is
    listed and confirmed, so the tool-error rule decides (a tried write, even one a tool error stopped, leaves
    only a decline that survives it to settle the request): the same transfer without the write settles it."""
    task = _task("airline", "tau2", "1")
    tried = [("cancel_reservation", {"reservation_id": "NOSUCH"})]
    transfer = [_user("Can I talk to a human agent?"), "I will transfer you to a human agent now.",
                _user("Thank you. ###TRANSFER###")]
    sim = _sim("airline", task, "I will cancel reservation NOSUCH. Shall I proceed?", _user(YES), tried, *transfer,
               ending=False)
    scored = score_simulation(sim, "airline", "tau2", engine_for("airline"), None, task=task)
    assert scored.record is not None
    (write,) = scored.record.writes
    assert (write.tool, write.confirmed, write.details_listed, write.failed) == ("cancel_reservation", True, True, True)
    strict = scored.strict
    assert (scored.result.single_gold.reward, strict.reward) == (1.0, 0.0), strict
    assert strict.reason == ("the gold makes no write and the agent neither declined nor transferred on its clause "
                             "(refusal), nor settled the request otherwise")
    single, untried = _score("airline", "tau2", task, _sim("airline", task, *transfer, ending=False))
    assert (single, untried.reward) == (1.0, 1.0) and untried.settled is not None, untried


# -- class 12: writes compared as the tools read them --------------------------------------------------------------------


def test_item_ids_in_another_order_are_the_same_return():
    """τ² retail 2: the gold's return with its item ids reversed (the tool sorts them) is strict; airline
    flights reversed are not the gold's write (the reservation stores their order: replay differs)."""
    task = _task("retail", "tau2", "2")
    calls = [(n, {**a, "item_ids": list(reversed(a["item_ids"]))} if n == "return_delivered_order_items" else a)
             for n, a in _gold_calls(task)]
    assert calls != _gold_calls(task)
    info = " ".join(task.evaluation_criteria.communicate_info or [])
    single, strict = _score("retail", "tau2", task, _sim("retail", task, LISTED, _user(YES), calls, info))
    assert (single, strict.reward) == (1.0, 1.0), strict
    airline = _task("airline", "tau3", "15")
    engine = engine_for("airline")
    gold = list(airline.evaluation_criteria.actions)
    writes = gold_writes(engine, gold)
    flights = next(a for a in writes.writes if a.name == "update_reservation_flights")
    reordered = {**flights.arguments, "flights": list(reversed(flights.arguments["flights"]))}
    call = AssistantMessage(role="assistant", content=None, tool_calls=[
        ToolCall(id="c", name=flights.name, arguments=reordered, requestor="assistant")])
    assert [a.action_id for a in unmatched_writes(engine, gold, writes, [call])] == [flights.action_id]


def test_keys_the_tool_does_not_read_are_ignored():
    """τ³ airline 15: the gold's flight change with origin, destination and price in each flight entry
    (FlightInfo reads flight_number and date) is strict; a different date is not the gold's write."""
    task = _task("airline", "tau3", "15")
    info = " ".join(task.evaluation_criteria.communicate_info or [])
    padded = [(n, {**a, "flights": [{**f, "origin": "X", "destination": "Y", "price": 1} for f in a["flights"]]})
              if n == "update_reservation_flights" else (n, a) for n, a in _gold_calls(task)]
    single, strict = _score("airline", "tau3", task, _sim("airline", task, LISTED, _user(YES), padded, info))
    assert (single, strict.reward) == (1.0, 1.0), strict
    engine = engine_for("airline")
    gold = list(task.evaluation_criteria.actions)
    writes = gold_writes(engine, gold)
    flights = next(a for a in writes.writes if a.name == "update_reservation_flights")
    moved = {**flights.arguments, "flights": [{**f, "date": "2024-05-25", "origin": "X"} for f in flights.arguments["flights"]]}
    call = AssistantMessage(role="assistant", content=None, tool_calls=[
        ToolCall(id="c", name=flights.name, arguments=moved, requestor="assistant")])
    assert [a.action_id for a in unmatched_writes(engine, gold, writes, [call])] == [flights.action_id]
    # a payment entry is read through tau2's Payment model: its `type` is not read
    paid = {"payment_methods": [{"payment_id": "gift_card_1", "amount": 10, "type": "gift_card"}], "cabin": "economy"}
    assert as_read(engine, "book_reservation", paid) == {
        "payment_methods": [{"payment_id": "gift_card_1", "amount": 10}], "cabin": "economy"}


def test_a_gold_write_that_changes_nothing_is_not_required():
    """τ² retail 110: the gold sets the user's address to the one on file (111_1 changes nothing). Making
    the other two writes is strict; leaving out one that changes the database is not."""
    task = _task("retail", "tau2", "110")
    writes = gold_writes(engine_for("retail"), list(task.evaluation_criteria.actions))
    assert writes.unchanged == ("111_1 modify_user_address",) and "111_1" not in [a.action_id for a in writes.writes]
    calls = [(n, a) for n, a in _gold_calls(task) if n != "modify_user_address"]
    single, strict = _score("retail", "tau2", task, _sim("retail", task, LISTED, _user(YES), calls))
    assert (single, strict.reward) == (1.0, 1.0), strict
    engine = engine_for("retail")
    gold = list(task.evaluation_criteria.actions)
    made = AssistantMessage(role="assistant", content=None, tool_calls=[
        ToolCall(id="c", name=n, arguments=a, requestor="assistant") for n, a in calls[:1]])
    assert [a.action_id for a in unmatched_writes(engine, gold, writes, [made])] == ["111_2"]


# -- conduct: a write without the user's explicit yes, conduct the policy forbids ------------------------------------------------------------------------


def test_a_write_without_an_explicit_yes_is_not_strict():
    """τ³ airline 15: the gold's writes after the user's yes are strict; the same writes right after the
    user's request, with no yes, pass the single gold and fail strict."""
    task = _task("airline", "tau3", "15")
    info = " ".join(task.evaluation_criteria.communicate_info or [])
    calls = _gold_calls(task)
    single, strict = _score("airline", "tau3", task, _sim("airline", task, LISTED, _user(YES), calls, info))
    assert (single, strict.reward) == (1.0, 1.0), strict
    request = _user("I want to change my flights to the ones on May 24.")
    single, strict = _score("airline", "tau3", task, _sim("airline", task, request, calls, info))
    assert single == 1.0 and strict.reward == 0.0 and "explicit yes" in strict.reason
    # conservative: an answer to the agent's request for confirmation that neither refuses nor withdraws
    answer = _user("Use the gift card on file.")
    single, strict = _score("airline", "tau3", task, _sim("airline", task, LISTED, answer, calls, info))
    assert (single, strict.reward) == (1.0, 1.0), strict
    single, strict = _score("airline", "tau3", task, _sim("airline", task, "Here are the new flights.", answer, calls, info))
    assert (single, strict.reward) == (1.0, 0.0), strict


def test_conduct_the_policy_forbids_is_not_strict():
    """τ³ airline 15 (#40 item 4, class 5): the gold's writes after the user's yes are strict; the same with a
    certificate offered before the user asked for any compensation pass the single gold and fail strict."""
    task = _task("airline", "tau3", "15")
    info = " ".join(task.evaluation_criteria.communicate_info or [])
    calls = _gold_calls(task)
    offer = "I'm sorry about the trouble; I can offer you a $100 travel certificate as a goodwill gesture."
    single, strict = _score("airline", "tau3", task, _sim("airline", task, offer, LISTED, _user(YES), calls, info))
    assert single == 1.0 and strict.reward == 0.0 and "compensation offered before the user asked" in strict.reason
    declined = "I'm sorry about the trouble, but I can't offer compensation for this change."
    single, strict = _score("airline", "tau3", task, _sim("airline", task, declined, LISTED, _user(YES), calls, info))
    assert (single, strict.reward) == (1.0, 1.0), strict


def test_a_write_whose_details_were_never_listed_is_not_strict():
    """τ³ airline 15 (#40 item 1): the gold's writes after a listing that names them and the user's yes are
    strict; after a yes to "Shall I proceed?" that names nothing of them they fail strict; a user asked to
    confirm who answers with the details themselves confirmed what they dictated."""
    task = _task("airline", "tau3", "15")
    info = " ".join(task.evaluation_criteria.communicate_info or [])
    calls = _gold_calls(task)
    single, strict = _score("airline", "tau3", task, _sim("airline", task, LISTED, _user(YES), calls, info))
    assert (single, strict.reward) == (1.0, 1.0), strict
    bare = "Shall I proceed with the changes?"
    single, strict = _score("airline", "tau3", task, _sim("airline", task, bare, _user(YES), calls, info))
    assert single == 1.0 and strict.reward == 0.0 and "details the agent did not list" in strict.reason, strict
    flights = next(a for n, a in calls if n == "update_reservation_flights")
    dictated = _user(f"Yes, change {flights['reservation_id']} to those flights, please.")
    single, strict = _score("airline", "tau3", task, _sim("airline", task, bare, dictated, calls, info))
    assert (single, strict.reward) == (1.0, 1.0), strict


_PEP4E0 = [_user("I need to change my flight PEP4E0 to May 22. My user id is sophia_taylor_9065."),
           [("get_user_details", {"user_id": "sophia_taylor_9065"})],
           [("get_reservation_details", {"reservation_id": "PEP4E0"})]]
_NO_CHANGE = "I'm sorry, but basic economy reservations cannot be modified, so I can't change PEP4E0."


@pytest.mark.parametrize(("turns", "strict_reward"), [
    ([f"{_NO_CHANGE} I can cancel PEP4E0 and book you a new reservation on May 22 instead.",
      _user("Yes, please cancel it and book me on May 22.")], 0.0),
    ([f"{_NO_CHANGE} Cancelling it to book anew is not possible either: it was booked more than 24 hours ago, "
      "has no travel insurance and is not in business.", _user("I see.")], 1.0),
])
def test_a_forbidden_cancellation_offered_and_taken_is_not_strict(turns, strict_reward):
    """τ² airline 45 (#40 item 4, class 5; the gold writes nothing): after declining the change, an offer to
    cancel the basic-economy reservation booked ten days before, uninsured, and book anew, taken by the user,
    fails strict; the same decline saying the cancellation is not allowed either passes."""
    task = _task("airline", "tau2", "45")
    single, strict = _score("airline", "tau2", task, _sim("airline", task, *_PEP4E0, *turns))
    assert (single, strict.reward) == (1.0, strict_reward), strict
    assert strict_reward or "an offer the user took" in strict.reason


@pytest.mark.parametrize(("summary", "strict_reward"), [
    ("User sophia_taylor_9065 wants to change reservation PEP4E0 to May 22.", 0.0),
    ("User wants PEP4E0 moved to May 22; basic economy reservations cannot be modified per policy.", 1.0),
])
def test_an_unwarranted_transfer_is_not_strict(summary, strict_reward):
    """τ² airline 45 (#40 item 4, class 5): the change handed to a human agent, unasked, with a summary that
    declines nothing, fails strict (the basic-economy clause says to decline it); a summary stating the rule
    declines it."""
    task = _task("airline", "tau2", "45")
    turns = [*_PEP4E0, "Let me transfer you to a human agent.", [("transfer_to_human_agents", {"summary": summary})]]
    single, strict = _score("airline", "tau2", task, _sim("airline", task, *turns))
    assert (single, strict.reward) == (1.0, strict_reward), strict
    assert strict_reward or "a transfer the user did not ask for" in strict.reason


@pytest.mark.parametrize(("said", "strict_reward"), [
    ("I'm sorry, but compensation for a delay is only offered when you change or cancel the reservation.", 0.0),
    ("I've confirmed that HAT018 on May 11 was delayed.", 1.0),
])
def test_a_certificate_after_the_agent_stated_the_unmet_condition_is_not_strict(said, strict_reward):
    """τ² airline 38 (#40 class 5; the gold sends a $50 certificate): the certificate sent after the agent
    said it needs a change or cancellation, with nothing changed, fails strict; sent when asked, the delay
    confirmed and no condition stated, it passes."""
    task = _task("airline", "tau2", "38")
    turns = [_user("My flight HAT018 was delayed. My user id is noah_muller_9847. I'd like some compensation."),
             [("get_user_details", {"user_id": "noah_muller_9847"})],
             [("get_reservation_details", {"reservation_id": "4OG6T3"})], said,
             _user("I still think I deserve something for it."),
             "I will send a $50 travel certificate to your account noah_muller_9847. Shall I proceed?", _user(YES),
             [("send_certificate", {"user_id": "noah_muller_9847", "amount": 50})]]
    single, strict = _score("airline", "tau2", task, _sim("airline", task, *turns))
    assert (single, strict.reward) == (1.0, strict_reward), strict
    assert strict_reward or "a certificate sent after the agent declined it" in strict.reason


def test_a_gold_action_keeps_its_compare_args():
    """A gold action that compares some arguments only (tau2's ``compare_args``) is matched on those."""
    engine = engine_for("retail")
    task = _task("retail", "tau2", "2")
    gold = [Action(**{**a.model_dump(), "compare_args": ["order_id", "item_ids"]}) for a in task.evaluation_criteria.actions]
    writes = gold_writes(engine, gold)
    ret = writes.writes[0]
    other = {**ret.arguments, "item_ids": list(reversed(ret.arguments["item_ids"])), "payment_method_id": "x"}
    call = AssistantMessage(role="assistant", content=None, tool_calls=[
        ToolCall(id="c", name=ret.name, arguments=other, requestor="assistant")])
    assert unmatched_writes(engine, gold, writes, [call]) == []


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_a_tools_annotations_are_those_of_the_tool_taus_get_tools_makes(domain):
    """``_annotations`` reads only the asked tool (its signature, ``_declared``), where ``get_tools`` makes every tool's
    parameter model: the same parameters, the same annotations, for every tool of the domain; a tool it lacks has none."""
    from loophole_scoring import _strict_writes

    engine = engine_for(domain)
    made = engine.env.tools.get_tools()
    assert len(made) > 10
    for name, tool in made.items():
        _strict_writes._PARAMS.pop((domain, name), None)
        want = {k: f.annotation for k, f in tool.params.model_fields.items()}
        assert _strict_writes._annotations(engine, name) == want, name
        assert list(_strict_writes._annotations(engine, name) or {}) == list(want), name
    assert _strict_writes._annotations(engine, "no_such_tool") is None


def test_a_parameter_the_signature_does_not_type_is_read_as_the_tool_makes_it():
    """Where a parameter's annotation is missing, a string or ``Annotated``, pydantic's parameter model holds another
    annotation than the signature's (``Any``, the type named, the type annotated): ``_declared`` then makes the tool
    (``as_tool``), so each parameter reads as the tool reads it; a signature of types is read as it stands."""
    from typing import Annotated

    from pydantic import Field
    from tau2.environment.tool import as_tool

    from loophole_scoring._strict_writes import _declared

    def look_up(order_id, count, items):  # type: ignore[no-untyped-def]
        """Look an order up.

        Args:
            order_id: the order's id.
            count: how many.
            items: which items.
        """
        return order_id

    typed = {"order_id": str, "count": int, "items": list[str], "return": str}  # this module's annotations are strings
    for declared in (typed, {**typed, "order_id": None}, {**typed, "count": "int"},
                     {**typed, "items": Annotated[list[str], Field(min_length=1)]}):
        look_up.__annotations__ = {k: v for k, v in declared.items() if v is not None}
        want = {k: f.annotation for k, f in as_tool(look_up).params.model_fields.items()}
        assert _declared(look_up) == want, declared
        assert list(_declared(look_up)) == list(want)
    assert want != {k: p.annotation for k, p in inspect.signature(look_up).parameters.items()}  # Annotated unwrapped
