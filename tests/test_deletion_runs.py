"""A deletion from an unchanged text (``_normalise._deleted``: the emphasis marks, a reasoning field, invisible
characters) gives the text and origin map ``OriginBuilder`` gave, run for run, on every message of the shared runs
and on texts each step rewrites (#47)."""

from __future__ import annotations

import json

import pytest

from conversation_reading import _normalise
from conversation_reading._origin import Origin
from tests.conftest import REAL_RUNS

# each step that deletes, alone and after a step that changed the text (the map then no longer a range)
_MADE = ["**Note** 1. Cancel 2. Book __now__", '{"thought": "decline it", "reply": "Sorry, **you** cannot."}',
         "zero\u200bwidth \u00adsoft *a* **b**\u200b!", "| a | b |\n|---|---|\n| **1** | 2 |", "<think>x</think>\n\n**Hi**",
         "**", "****x****", "a**b**", "**a**b**c__d__", "\u200b**x**\u200b", "", "plain",
         # one kind of mark only (split at it, #47): at either end, tripled, beside the other mark's half
         "__x__ y", "___x___", "a__", "__", "x**", "***x***", "_**_ *", "**x** _a_ **"]


def _contents() -> list[str]:
    return [m["content"] for path in sorted(REAL_RUNS.glob("*.json"))
            for sim in json.loads(path.read_text(encoding="utf-8"))["simulations"]
            for m in sim.get("messages") or [] if isinstance(m.get("content"), str)]


def _normalised(texts: list[str]) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    for text in texts:
        said, origin = _normalise.normalised(text)
        # the runs themselves, not only the integers they read as: the same map, built the same way
        out.append((said, (origin._at, origin._to, origin._step, len(origin)) if isinstance(origin, Origin)
                    else origin))
    return out


def test_a_deletion_maps_as_the_builder_did(monkeypatch: pytest.MonkeyPatch):
    texts = _contents() + _MADE
    direct = _normalised(texts)
    monkeypatch.setattr(_normalise, "_RUNS_BY_DELETION", False)
    built = _normalised(texts)
    assert direct == built
    assert sum(isinstance(o, tuple) for _, o in direct) > 20  # some texts had marks deleted
