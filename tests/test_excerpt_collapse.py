"""``excerpt_of`` collapses whitespace only where a text may hold some to collapse (#47): it answers as the collapse it
skips (``" ".join(text.split())``, then the cut) on every message, sentence and transfer summary of the real runs, on
them with whitespace of every kind put in, and on written cases."""

from __future__ import annotations

import json
import random
import sys

import pytest

from conversation_reading._evidence import excerpt_of
from conversation_reading._excerpts import _ASCII_SPACES
from conversation_reading._units import split_sentences
from tests.conftest import real_run

RUNS = ("whissle_airline_tau3_1trial.json", "whissle_retail_tau3_5sims.json",
        "aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json")
# every character ``str.split`` cuts at (the space, controls, separators): the fast path rests on all but the space
# being unprintable
_SPLITTING = [chr(c) for c in range(sys.maxunicode + 1) if len(f"a{chr(c)}b".split()) == 2]


def _reference(text: str, limit: int = 240) -> str:
    """The excerpt as it was written before the fast path: the collapse always."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _texts() -> list[str]:
    out: list[str] = []
    for name in RUNS:
        for sim in json.loads(real_run(name).read_text())["simulations"]:
            for m in sim["messages"]:
                content = m.get("content")
                if isinstance(content, str) and content:
                    out.append(content)
                    out.extend(split_sentences(content))
                for call in m.get("tool_calls") or ():
                    out.append(json.dumps(call.get("arguments"), ensure_ascii=False))
    return out


def test_every_character_split_cuts_at_but_the_space_is_unprintable():
    assert " " in _SPLITTING and "\n" in _SPLITTING and "\u3000" in _SPLITTING
    assert [c for c in _SPLITTING if c != " " and c.isprintable()] == []
    # the ASCII ones, asked one by one of an ASCII text
    assert sorted(_ASCII_SPACES) == [c for c in _SPLITTING if c.isascii() and c != " "]


def test_excerpts_of_real_texts_are_the_collapse():
    texts = _texts()
    assert len(texts) > 5000
    rng = random.Random(47)
    changed = 0
    for text in texts:
        variants = [text]
        # whitespace of every kind put in at a random place, at either end, and doubled
        for ws in rng.sample(_SPLITTING, 3) + ["  ", " "]:
            at = rng.randint(0, len(text))
            variants += [text[:at] + ws + text[at:], ws + text, text + ws]
        for variant in variants:
            for limit in (240, 200, 120):
                expected = _reference(variant, limit)
                assert excerpt_of(variant, limit) == expected, (variant, limit)
                changed += expected != variant[:limit]
    assert changed > 1000  # the collapse was needed for many of them


@pytest.mark.parametrize("text", [
    "", " ", "  ", "a", " a", "a ", "a  b", "a b", "a\tb", "a\nb", "a\u00a0b", "a\u2028b", "a\x1cb", "a\x85b",
    "\u3000a", "a\u200bb", "tab\t", "x" * 300, "x " * 150, "caf\u00e9 ok", "emoji \U0001f600 here",
])
def test_written_cases_are_the_collapse(text: str):
    for limit in (240, 5, 1):
        assert excerpt_of(text, limit) == _reference(text, limit)
