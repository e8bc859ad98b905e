"""``user_requests`` asks ``is_write`` of a catalog tool only where a user message may ask for it (#47): the requests
it finds are those of a reading that filters the catalog's tools by ``is_write`` first and reads every user message
for each write ungated (``mentions``; compensation less its payment clauses)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tau2.data_model.simulation import Results

from conversation_reading._evidence import excerpt_of, mentions
from conversation_reading._reading import _Reading
from conversation_reading._requests import asks_compensation, user_requests
from conversation_reading._vocabulary import vocabulary
from policy_model import COMPENSATION_TOOL
from tests.conftest import SHARED, real_run

FILES = [real_run("whissle_airline_tau3_1trial.json"), real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
         real_run("toolorchestra_retail_tau2_1trial.json"), *sorted((SHARED / "dev-corpus" / "runs").glob("*.json"))[:2]]
AIRLINE = ("book_reservation", "cancel_reservation", "update_reservation_baggages", "update_reservation_flights",
           "update_reservation_passengers", "send_certificate")
KINDS: dict[str, Callable[[str], bool]] = {
    "airline": lambda n: n in AIRLINE,
    "retail": lambda n: n.startswith(("cancel_pending", "modify_", "exchange_", "return_")),
    "every tool": lambda n: True,
    "no tool": lambda n: False,
}


def _reference(turns: list, is_write: Callable[[str], bool]) -> list[tuple[str, int, str]]:
    found: dict[str, tuple[str, int, str]] = {}
    for t in turns:
        if t.role != "user" or not t.text.strip():
            continue
        for tool, pattern in vocabulary().requests.items():
            if not is_write(tool) or tool in found:
                continue
            said = asks_compensation(pattern, t.text) if tool == COMPENSATION_TOOL else mentions(pattern, t.text)
            if said:
                found[tool] = (tool, t.index, excerpt_of(t.raw))
    return sorted(found.values(), key=lambda q: q[1])


def test_the_requests_found_asking_is_write_lazily_are_those_of_every_write_read_ungated():
    conversations = found = 0
    asked_fewer = 0
    for f in FILES:
        for sim in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations:
            conversations += 1
            for kind in KINDS.values():
                asked: list[str] = []

                def is_write(name: str, kind: Callable[[str], bool] = kind, asked: list[str] = asked) -> bool:
                    asked.append(name)
                    return kind(name)

                r = _Reading(list(sim.messages), "airline", is_write)
                got = [(q.tool, q.message_index, q.excerpt) for q in user_requests(r.turns, r.units, is_write, r.index)]
                assert got == _reference(r.turns, kind), (f, sim.task_id)
                found += len(got)
                asked_fewer += len(set(asked)) < len(vocabulary().requests)
    assert conversations > 200 and found > 300
    assert asked_fewer > 3 * conversations  # most readings never ask of most of the catalog's tools
