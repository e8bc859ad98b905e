"""Questions, requests and grounding as rules of the evidence machinery (#36 item 3): a sentence that asks
is not a decline; what the user asked is read up to the decision that matters; a refusal credits only a
conversation about the task's user and the records its gold touches. Conversations written by hand."""

from __future__ import annotations

from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage

from conversation_reading._evidence import find_declines, read_turns
from gold_variants import explain_variant, variant_record, variants_for


def _variant(task_id: str, gold_id: str):
    return next(v for v in variants_for("airline", "tau2", task_id) if v.gold_id == gold_id)


def _pre(explanation, name: str):
    return next(p for p in explanation.preconditions if p.name == name)


def _read(name: str, args: dict, result: str, n: int) -> list:
    call = ToolCall(id=f"c{n}", name=name, arguments=args)
    return [AssistantMessage(role="assistant", content=None, tool_calls=[call]),
            ToolMessage(role="tool", id=f"c{n}", content=result)]


def test_a_question_is_not_a_decline():
    asked = [AssistantMessage(role="assistant", content=(
        "I'm sorry about the delay. Would you like me to change or cancel the reservation, "
        "or are you only seeking compensation?"))]
    assert find_declines("declines_compensation", read_turns(asked)) == []
    stated = [AssistantMessage(role="assistant", content=(
        "Compensation is only available if you change or cancel the reservation, "
        "so would you like to change it?"))]
    assert [e.message_index for e in find_declines("declines_compensation", read_turns(stated))] == [0]


def test_the_request_is_read_up_to_the_decline_the_credit_rests_on():
    variant = _variant("27", "L3L4.strict")
    messages = [
        UserMessage(role="user", content="Hi, my flight HAT039 was delayed and I'm really upset. My user id is ethan_martin_2396."),
        *_read("get_user_details", {"user_id": "ethan_martin_2396"}, '{"membership": "silver"}', 1),
        *_read("get_flight_status", {"flight_number": "HAT039", "date": "2024-05-15"}, "delayed", 2),
        AssistantMessage(role="assistant", content=(
            "I see the delay. A certificate is only offered if you change or cancel the reservation.")),
        UserMessage(role="user", content="Can you do something to make up for this inconvenience?"),
        AssistantMessage(role="assistant", content=(
            "I understand. Compensation is only available when the reservation is changed or cancelled, "
            "so I cannot issue a certificate.")),
    ]
    out = explain_variant(variant, variant_record(variant, messages))
    assert _pre(out, "request_known").held, out.preconditions
    # the first decline alone came before any request: the same conversation cut there has none
    assert not _pre(explain_variant(variant, variant_record(variant, messages[:6])), "request_known").held


def test_a_refusal_credits_only_a_conversation_about_the_task_and_its_records():
    variant = _variant("32", "L6.refuse")  # the gold reads user ivan_rossi_8555 and reservation OWZ4XL
    decline = AssistantMessage(role="assistant", content=(
        "I'm sorry, but basic economy reservations cannot be modified under our policy."))
    about_it = [
        UserMessage(role="user", content="I need to change the flights on reservation OWZ4XL."),
        *_read("get_user_details", {"user_id": "ivan_rossi_8555"}, "{}", 1),
        *_read("get_reservation_details", {"reservation_id": "OWZ4XL"}, "{}", 2),
        decline,
    ]
    assert _pre(explain_variant(variant, variant_record(variant, about_it)), "grounded").held
    elsewhere = [
        UserMessage(role="user", content="I have a question about my trip."),
        *_read("get_user_details", {"user_id": "ivan_rossi_8555"}, "{}", 1),
        decline,
    ]
    grounded = _pre(explain_variant(variant, variant_record(variant, elsewhere)), "grounded")
    assert not grounded.held and "OWZ4XL" in grounded.detail
    other_user = [
        UserMessage(role="user", content="Please change reservation OWZ4XL."),
        *_read("get_user_details", {"user_id": "mia_li_3668"}, "{}", 1),
        decline,
    ]
    assert not _pre(explain_variant(variant, variant_record(variant, other_user)), "grounded").held
