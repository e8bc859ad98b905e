"""The record's index of the turns (``_turn_index``, #47) answers as the loops it replaces, on real runs: a call's
reply, the user's last message before a turn, the calls by tool, each tool result parsed once for the states, the
tiers read and a write's details; and the readers that gate each sentence on its lowercase read from the index
pass over no sentence their pattern matches."""

from __future__ import annotations

import json

import pytest
from tau2.data_model.message import Message, ToolMessage

from conversation_reading._conversation_state import _states
from conversation_reading._evidence import read_turns
from conversation_reading._gate import gateable, may_match
from conversation_reading._precondition_facts import compensation_raised_at, tier_reads
from conversation_reading._turn_index import UNPARSED, TurnIndex
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from conversation_reading._write_details import _read_results, listed_by_call, listed_details
from gold_variants.readings._base import write_tools
from tests.conftest import read_conversations

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json"]


def _json(m: Message) -> object:
    try:
        return json.loads(m.content) if isinstance(m.content, str) else UNPARSED
    except json.JSONDecodeError:
        return UNPARSED


@pytest.mark.parametrize("name", RUNS)
def test_the_index_answers_as_the_loops_it_replaces(name):
    replies = parsed = failed = 0
    for turns, messages in read_conversations(name):
        index = TurnIndex(turns, messages)
        assert index.calls == [(t, c) for t in turns for c in t.calls]
        for tool in {c.name for t in turns for c in t.calls} | {"send_certificate"}:
            assert index.named(tool) == [(t, c) for t in turns for c in t.calls if c.name == tool]
        for t, c in index.calls:
            slow = next(((i, m) for i, m in enumerate(messages) if i > t.index and isinstance(m, ToolMessage)
                         and m.id == c.id), None)
            assert index.reply(c.id, t.index) == slow
            replies += slow is not None
            erred = {m.id for m in messages if isinstance(m, ToolMessage) and m.error}  # ``_write_details._failed``
            assert index.failed(c.id) is (c.id in erred)
            failed += c.id in erred
        for i in range(len(turns) + 1):
            assert index.said_before(i) == next(
                (u for u in reversed(turns[:i]) if u.role == "user" and u.text.strip()), None)
        for i, m in enumerate(messages):
            if isinstance(m, ToolMessage):
                got, want = index.parsed(i), _json(m)
                assert got is UNPARSED if want is UNPARSED else got == want
                parsed += got is not UNPARSED
    assert replies > 20 and parsed > 20 and (failed > 0 or "retail" in name)  # the airline runs hold tool errors


@pytest.mark.parametrize("name", RUNS)
def test_the_shared_parse_reads_what_each_reader_parsed_itself(name):
    domain = "retail" if "retail" in name else "airline"
    tools = write_tools(domain)
    is_write = lambda tool: tool in tools  # noqa: E731
    tiers = 0
    for turns, messages in read_conversations(name):
        index = TurnIndex(turns, messages)
        assert _states(turns, messages, domain, index.parsed) == _states(turns, messages, domain)
        assert _read_results(messages, index) == _read_results(messages)
        # the tiers read: each get_user_details call's reply parsed on its own
        slow = []
        for t in turns:
            for c in (c for c in t.calls if c.name == "get_user_details"):
                reply = next((m for m in messages[t.index + 1:] if isinstance(m, ToolMessage) and m.id == c.id), None)
                data = _json(reply) if reply is not None else UNPARSED
                if isinstance(data, dict):
                    tier = data.get("membership")
                    slow.append((t.index, tier if tier is None or isinstance(tier, str) else json.dumps(tier)))
        assert [(r.message_index, r.membership) for r in tier_reads(turns, messages, index)] == slow
        tiers += len(slow)
        # a write's details: read in the agent's words first, the user's answer only where they name none
        full = {(w.message_index, w.call_id): w.listed for w in listed_details(messages, is_write)}
        assert listed_by_call(messages, is_write, turns, index) == full
    assert tiers > 0 or "retail" in name


@pytest.mark.parametrize("name", RUNS)
def test_the_calls_by_tool_read_as_every_turn_read(name):
    v = vocabulary()
    words = v.requests["send_certificate"]
    raised = 0
    for turns, messages in read_conversations(name):
        index = TurnIndex(turns, messages)
        slow = next((t.index for t in turns if t.role == "assistant"
                     and (words.search(t.text) or any(c.name == "send_certificate" for c in t.calls))), None)
        assert compensation_raised_at(turns, index) == slow
        raised += slow is not None
    assert raised > 0


@pytest.mark.parametrize("name", RUNS)
def test_a_sentence_gated_on_its_lowercase_from_the_index_holds_no_match(name):
    """The gate of a sentence reads its lowercase from the index, gated where its message is (a part of a
    gateable text is gateable): a sentence it passes over holds no match of the readers' patterns."""
    v = vocabulary()
    patterns = [v.tier_claim, v.false_cabin_rule, v.compensation_offer, v.requests["send_certificate"],
                *(o.pattern for offers in v.offers.values() for o in offers)]
    skipped = 0
    for turns, messages in read_conversations(name):
        index = TurnIndex(turns, messages)
        for t in turns:
            if t.role not in ("user", "assistant") or not t.text:
                continue
            gated = index.lowered(t.text)[1]
            assert gated == gateable(t.text) and index.lowered(t.text)[0] == t.text.lower()
            for s, low in zip(split_sentences(t.text), index.sentences_lowered(t.text), strict=True):
                assert low == s.lower() and (not gated or gateable(s))
                for p in patterns:
                    if not may_match(p, low, gated):
                        assert p.search(s) is None, (p.pattern[:60], s)
                        skipped += 1
    assert skipped > 100


def test_a_messages_calls_read_by_its_kind_are_the_attribute_or_none():
    """``_message_kinds.calls_of`` (the turns' cache key) reads ``tool_calls`` only where the message's kind has it: on the
    runs' messages of every kind it is ``getattr(m, "tool_calls", None)``, and an edit of a message's calls in place
    is a new conversation to ``read_turns``."""
    from conversation_reading._message_kinds import calls_of

    messages = [m for name in RUNS for _, sim in read_conversations(name) for m in sim]
    assert {type(m).__name__ for m in messages} >= {"AssistantMessage", "UserMessage", "ToolMessage"}
    assert all(calls_of(m) is getattr(m, "tool_calls", None) for m in messages)
    conversation = next(sim for _, sim in read_conversations(RUNS[0]) if any(getattr(m, "tool_calls", None) for m in sim))
    first = read_turns(conversation)
    called = next(m for m in conversation if getattr(m, "tool_calls", None))
    called.tool_calls = called.tool_calls[:0]
    assert read_turns(conversation) != first
