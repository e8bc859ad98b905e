"""The record's readers of writes and transfers (#47) answer as the walks they replace, on real runs: a write's
details (``_write_details._details``) as the generator walk over its arguments gave them, and a transfer asked for
by the user before it (``_reading._transfers``) where the user's first message mentioning one comes before it, with
no gate."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tau2.data_model.message import Message
from tau2.data_model.simulation import SimulationRun

from conversation_reading._evidence import mentions, read_turns
from conversation_reading._reading import conversation_record
from conversation_reading._vocabulary import vocabulary
from conversation_reading._write_details import _DETAILS, _NOT_DETAILS, _details
from gold_variants.readings._base import write_tools
from tests.conftest import _raw_run

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json"]


def _messages(name: str) -> Iterator[list[Message]]:
    for raw in _raw_run(name)["simulations"]:
        yield list(SimulationRun.model_validate(raw).messages)


def _walked(arguments: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """The walk ``_details`` replaces: every leaf, nested lists and entries opened, in order."""
    for name, value in arguments.items():
        if name in _NOT_DETAILS:
            continue
        if isinstance(value, list):
            for v in value:
                yield from (_walked(v) if isinstance(v, dict) else [(name, v)])
        elif isinstance(value, dict):
            yield from _walked(value)
        else:
            yield name, value


@pytest.mark.parametrize("name", RUNS)
def test_a_writes_details_are_its_arguments_walked(name):
    domain = "retail" if "retail" in name else "airline"
    tools = write_tools(domain)
    nested = 0
    for messages in _messages(name):
        for t in read_turns(messages):
            for call in (c for c in t.calls if c.name in tools):
                arguments = dict(call.arguments or {})
                assert _details(arguments) == [(n, v) for n, v in _walked(arguments) if n in _DETAILS]
                nested += any(isinstance(v, list | dict) for v in arguments.values()) and bool(_details(arguments))
    assert nested > 5


@pytest.mark.parametrize("name", RUNS)
def test_a_transfer_is_asked_for_where_the_users_first_ask_comes_before_it(name):
    domain = "retail" if "retail" in name else "airline"
    tools = write_tools(domain)
    asked = transfers = 0
    for messages in _messages(name):
        turns = read_turns(messages)
        first = next((u.index for u in turns if u.role == "user" and mentions(vocabulary().transfer_request, u.text)),
                     len(turns))
        record = conversation_record(messages, domain, lambda tool: tool in tools, clauses=())
        for transfer in record.transfers:
            assert transfer.asked_by_user == (first < transfer.message_index)
            asked += transfer.asked_by_user
            transfers += transfer.how == "tool_call"
    assert transfers > 3 and asked > 0
