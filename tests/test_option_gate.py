"""An option in a list (``_sentence_kinds.option``) is matched only where its line opens as one can and its gate
holds (#47): the same match, at the same place and with the same act, as ``_OPTION.match`` on every sentence the
record cuts from real agent and user messages, and on lines a gate or an opening could get wrong."""

from __future__ import annotations

import json

from conversation_reading._gate import gateable
from conversation_reading._normalise import normalise
from conversation_reading._sentence_kinds import _OPTION, option
from conversation_reading._units import split_sentences
from tests.conftest import real_run

_RUNS = ("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json",
         "toolorchestra_retail_tau2_1trial.json", "whissle_retail_tau3_5sims.json")
# openings the engine reads as the first item (blanks by ``\s``, digits by ``\d``, "option" folded) or not
_WRITTEN = ["1. Cancel the reservation", "2) **Change** the flights", "- modify it", "* you can Upgrade", "\u2022 Keep it",
            "Option A: Rebook", "OPTION 2 switch", "option1 cancel", "\u00a0\u20031. cancel", "\u0661. cancel",
            "\u00b2. cancel", "\u2460. cancel", "\u2013 cancel", "*   Flight 1: HAT023 (JFK to SFO)", "- \u017fwitch it",
            "1. \u017fwitch it", "\u0130. cancel", "** cancel", "*\t*\tchange", "12. transfer", "x1. cancel", "", "   ",
            "1.cancel", "- cancellation fees apply", "- CANCEL"]


def _sentences() -> list[str]:
    found = list(_WRITTEN)
    for run in _RUNS:
        raw = json.loads(real_run(run).read_text(encoding="utf-8"))
        for sim in raw["simulations"]:
            for m in sim["messages"]:
                if m.get("role") in ("user", "assistant") and isinstance(m.get("content"), str):
                    found += split_sentences(normalise(m["content"]).text)
    return found


def _same(a, b) -> bool:
    return (a is None) == (b is None) and (a is None or (a.span(), a.groups()) == (b.span(), b.groups()))


def test_an_option_matched_behind_its_opening_and_gate_is_the_patterns_match():
    sentences = _sentences()
    matched = 0
    for s in sentences:
        expected = _OPTION.match(s)
        lowered = s.lower() if gateable(s) else None
        assert _same(option(s, lowered), expected), s
        assert _same(option(s, None), expected), s  # no gate: the opening alone
        low = s.lower() if s.isascii() else None  # as ``_sentences._offered_act`` passes it
        assert _same(option(s, low), expected), s
        matched += expected is not None
    assert matched > 40 and len(sentences) > 5000
    assert _OPTION.match("- \u017fwitch it") and _OPTION.match("\u0661. cancel")  # the cases are the engine's own
