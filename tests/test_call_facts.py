"""The record's facts of the calls (``_precondition_facts``: the acts, the users authenticated, where each record is
first named) read from the record's index of the calls (#47) answer as the walk over every turn they replaced, on
the shared runs' conversations."""

from __future__ import annotations

import json

from tau2.data_model.simulation import Results

from conversation_reading._evidence import TRANSFER_TOOL, Turn, excerpt_of, is_read_tool, read_turns
from conversation_reading._precondition_facts import acts, authenticated_users, records_named
from conversation_reading._turn_index import TurnIndex
from tests.conftest import SHARED


def _named(turns: list[Turn], record_ids: list[str]) -> list[tuple[str, int | None]]:
    first: dict[str, int] = {}
    for t in turns:
        if len(first) == len(set(record_ids)):
            break
        said = [t.text] if t.role in ("user", "assistant") else []
        said += [json.dumps(c.arguments, ensure_ascii=False) for c in t.calls]
        read = {str(c.arguments.get(k)) for c in t.calls for k in ("reservation_id", "order_id") if c.arguments.get(k)}
        for r in record_ids:
            if r not in first and (r in read or any(r in text for text in said)):
                first[r] = t.index
    return [(r, first.get(r)) for r in sorted(record_ids)]


def test_the_call_facts_from_the_index_answer_as_the_walk_over_every_turn():
    checked = named = 0
    for f in sorted((SHARED / "real-runs").glob("*.json")):
        for sim in Results.model_validate_json(f.read_text(encoding="utf-8")).simulations:
            turns = read_turns(sim.messages)
            index = TurnIndex(turns, sim.messages)
            ids = sorted({str(c.arguments["reservation_id"]) for t in turns for c in t.calls
                          if c.arguments.get("reservation_id")})
            for asked in ([], ids, ids[:1] + ["ZZZZZZ"], ["ZZZZZZ"]):
                got = [(r.record_id, r.named_at) for r in records_named(turns, asked)]
                assert got == _named(turns, asked)
                named += sum(at is not None for _, at in got)
            assert [(a.message_index, a.call) for a in acts(turns, index)] == [
                (t.index, f"{c.name}({excerpt_of(json.dumps(c.arguments, ensure_ascii=False), 200)})")
                for t in turns for c in t.calls if not is_read_tool(c.name) and c.name != TRANSFER_TOOL]
            assert authenticated_users(turns, index) == sorted(
                {str(c.arguments["user_id"]) for t in turns for c in t.calls if c.arguments.get("user_id")})
            checked += 1
    assert checked > 100 and named > 50
