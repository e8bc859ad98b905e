"""``foreign_tools``: the tools an agent called that its domain lacks, unless the recorded result is tau2's
"Tool '…' not found"; with its shortcut (no unknown name: no result read) agreeing with the full reading."""

from __future__ import annotations

import glob
import json

from loophole_ingest import foreign_tools
from loophole_ingest._shapes import _tool_calls, domain_tools
from tests.conftest import SHARED


def _call(call_id: str, name: str) -> dict:
    return {"role": "assistant", "content": None, "tool_calls": [{"id": call_id, "name": name, "arguments": {}}]}


def _result(call_id: str, content: str) -> dict:
    return {"role": "tool", "id": call_id, "content": content}


def test_unknown_tools_are_named_unless_tau2_said_not_found():
    messages = [
        _call("1", "get_user_details"), _result("1", "{}"),  # the domain's own
        _call("2", "list_articles"), _result("2", "[]"),  # the run's own tool
        _call("3", "make_up_a_tool"), _result("3", "Error: Tool 'make_up_a_tool' not found."),
        _call("4", "zz_other"),  # no result recorded
        "not a message", {"role": "assistant", "tool_calls": "not a list"},
    ]
    assert foreign_tools("airline", messages) == ["list_articles", "zz_other"]
    assert foreign_tools("airline", messages[:2]) == []
    assert foreign_tools("airline", None) == []


def _full(domain: str, messages: object) -> list[str]:
    """The definition, every result read."""
    known = domain_tools(domain)
    return sorted({n for n, r in _tool_calls(messages) if n not in known and f"'{n}' not found" not in r})


def test_the_shortcut_agrees_with_the_full_reading_on_real_runs():
    seen = 0
    for pattern in ("real-runs/*.json", "dev-corpus/runs/*.json", "dev-corpus/other-families/runs/*.json"):
        for name in sorted(glob.glob(str(SHARED / pattern))):
            with open(name, "rb") as fh:
                data = json.load(fh)
            domain = "retail" if "retail" in name else "airline"
            for sim in data.get("simulations") or []:
                assert foreign_tools(domain, sim.get("messages")) == _full(domain, sim.get("messages"))
                seen += 1
    assert seen > 100
