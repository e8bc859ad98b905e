"""A case-insensitive pattern searched as its lowercase twin over an ASCII text's lowercase (``_lowered_search``,
#47) matches where the pattern matches the text, at the same places: every pattern the sentence readers scan so,
over every agent sentence of the real runs; a pattern whose lowercase means another pattern has no twin."""

from __future__ import annotations

import json
import re

import pytest

from conversation_reading import (
    _bag_fees,
    _evidence,
    _invented_policy,
    _no_write,
    _reading,
    _sentence_facts,
    _sentence_kinds,
    _sentences,
    _worth_reading,
)
from conversation_reading._evidence import negated, read_turns
from conversation_reading._lowered_search import ascii_lowered, says, twin
from conversation_reading._normalise import normalise
from conversation_reading._units import Units, split_sentences
from conversation_reading._vocabulary import EvidenceKind, vocabulary
from loophole_ingest import import_results_file
from tests.conftest import real_run, score_in

# every case-insensitive pattern a sentence reader scans through ``says``
_SCANNED = [
    _sentence_facts._CONFIRM, _sentence_facts._OFFER, _sentence_facts._PROMISE, _sentence_facts._COMPENSATION,
    _sentence_facts._CANCEL, _sentence_facts._REFUND, _sentence_facts._CABIN, _sentence_facts._FLIGHTS,
    _sentence_facts._RULE, _sentence_facts._HEDGED, _sentence_facts._BAGS, _sentence_facts._COMPENSATION_CONTEXT,
    _sentence_facts._PER_PASSENGER, _sentence_facts._UPGRADE, *_sentence_facts._CABINS.values(),
    _sentences._RESTRICTS, _sentences._CONDITIONS, _sentences._DENIES, _sentences._POSSIBLE, _sentences._CHANGES,
    *_sentences._GENERAL_RULES.values(), _bag_fees._FREE, vocabulary().decline, _bag_fees._BAG_WORD,
    _sentence_facts._USES, _sentence_facts._HELD, _sentence_facts._PLAN, _sentence_facts._TIER, _worth_reading._ACT,
    _sentences._CONFIRM_ASKED, _worth_reading._IF_ACTS, _sentence_kinds._OPTION, _invented_policy._SOMEONE_MAY,
    _invented_policy._TIER_TEAM,
]

_OWN = ["I'll Cancel it. SHALL I PROCEED?", "We Can't Modify Basic Economy flights.", "Your BAGS: $50 Per Person",
        "Is that CORRECT? i will refund you", "The ECONOMY cabin (not basic-economy) MUST match on All flights."]


def _sentences_of(*runs: str, role: str = "assistant") -> list[str]:
    """Every ``role`` sentence of ``runs`` (normalised), and every message of them whole (a message's readers scan
    it so)."""
    out = []
    for run in runs:
        raw = json.loads(real_run(run).read_text(encoding="utf-8"))
        for sim in raw["simulations"]:
            for m in sim["messages"]:
                if m.get("role") == role and isinstance(m.get("content"), str):
                    text = normalise(m["content"]).text
                    out += [text, *split_sentences(text)]
    return out


def test_each_scanned_pattern_matches_over_the_lowercase_where_it_matches_the_text():
    sentences = _sentences_of("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json")
    sentences += _OWN + ["caf\u00e9 \u212aelvin \u017fign: I can cancel", "\u0130STANBUL \u2014 we will upgrade"]
    assert len(sentences) > 2000 and any(not s.isascii() for s in sentences)
    matched = 0
    for pattern in _SCANNED:
        lowercase = twin(pattern)
        assert lowercase is not None, pattern.pattern  # each one is scanned over the lowercase
        for s in sentences:
            answer = pattern.search(s) is not None
            assert says(pattern, s, ascii_lowered(s)) == answer, (pattern.pattern, s)
            if s.isascii():  # the same places, too
                assert [m.span() for m in lowercase.finditer(s.lower())] == [m.span() for m in pattern.finditer(s)]
            matched += answer
    assert matched > 2000


@pytest.mark.parametrize("source, flags", [(r"\W+cancel", re.I), (r"\bno\B", re.I), (r"(?-i:I) can", re.I),
                                           ("caf\u00e9", re.I), ("I can", 0), (r"\Aok", re.I),
                                           (r"\x41bc", re.I), (r"\x4Abc", re.I), (r"\u0041bc", re.I), (r"\101bc", re.I),
                                           (r"(a)\1", re.I), (r"[A-z]x", re.I), (r"[0-Z]x", re.I)])
def test_a_pattern_whose_lowercase_means_another_has_no_twin(source, flags):
    pattern = re.compile(source, flags)
    assert twin(pattern) is None
    for text in ("I can. Cancel", "NO-cancel CAF\u00c9", "ok", "abc ABC _x aA 5x"):  # searched as it is
        assert says(pattern, text, ascii_lowered(text)) == (pattern.search(text) is not None)


def test_a_twin_without_a_space_class_reads_ascii_by_table_and_one_with_it_keeps_unicode():
    """Over ASCII text ``\\w``, ``\\d`` and ``\\b`` mean the same under ``re.ASCII``; ``\\s`` does not (Unicode's
    spaces include 0x1c-0x1f), so a twin holding a space class stays a Unicode pattern."""
    assert re.search(r"a\sb", "a\x1cb") and not re.search(r"a\sb", "a\x1cb", re.ASCII)  # why
    for source in (r"a\sb", r"a[\s,]b", r"(?:x|y\s)z", r"a\s+?(?=b)"):
        spaced = twin(re.compile(source, re.IGNORECASE))
        assert spaced is not None and not spaced.flags & re.ASCII, source
        for text in ("a\x1cb", "A\x1fB z", "y\x1dz", "a\x1eb"):
            assert says(re.compile(source, re.IGNORECASE), text, ascii_lowered(text)) == \
                (re.search(source, text, re.IGNORECASE) is not None), (source, text)
    plain = twin(re.compile(r"\bcan(?:not|'t)?\b \w+ \d", re.IGNORECASE))
    assert plain is not None and plain.flags & re.ASCII and not plain.flags & re.UNICODE
    assert sum(bool(t.flags & re.ASCII) for t in map(twin, _SCANNED) if t is not None) >= len(_SCANNED) // 2


def test_a_negative_lookaround_of_a_typographic_apostrophe_is_dropped_from_the_twin_of_the_agreement():
    """The catalog's agreement guards "sure" with lookbehinds spelt with a typographic apostrophe ("(?<!i’m )"):
    no ASCII text holds one, so its twin (which reads ASCII text only) drops them, and matches over the lowercase
    where the agreement matches the text, at the same places: every user sentence of two runs."""
    agreement = vocabulary().agreement
    assert "\u2019" in agreement.pattern
    lowercase = twin(agreement)
    assert lowercase is not None and lowercase.pattern.isascii() and "(?<!i'm )" in lowercase.pattern
    sentences = _sentences_of("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json", role="user")
    sentences += ["I'm sure.", "I\u2019m sure.", "You're SURE? Sure!", "MAKE SURE it's fine", "I am sure, okay"]
    matched = 0
    for s in sentences:
        spans = [m.span() for m in agreement.finditer(s)]
        assert says(agreement, s, ascii_lowered(s)) == bool(spans), s
        if s.isascii():
            assert [m.span() for m in lowercase.finditer(s.lower())] == spans, s
        matched += bool(spans)
    assert len(sentences) > 1000 and matched > 200


@pytest.mark.parametrize("source", ["ok(?<!\u017f)ay", "(?<!\u212a)ok", "[(?<!\u2019)]ok", "ok(?<=\u2019)",
                                    "ok\\\\(?<!\u2019)", "(?<!\u2019|x)ok", "ok(?!\u2019\\w)"])
def test_a_lookaround_an_ascii_text_may_hold_or_that_is_none_is_kept_and_the_pattern_has_no_twin(source):
    """The long s and the Kelvin sign fold to "s" and "k" under the flag; a class holding the characters of a
    lookaround, a positive lookaround, one after an escaped backslash, one of a branch or a class: none dropped."""
    pattern = re.compile(source, re.I)
    assert twin(pattern) is None
    for text in ("okay", "ok", "sok", "kok", "\\ok", "xok", "OK\u2019s"):
        assert says(pattern, text, ascii_lowered(text)) == (pattern.search(text) is not None)


def test_a_text_outside_ascii_is_searched_as_it_is():
    assert ascii_lowered("Caf\u00e9") is None and ascii_lowered("Cafe I") == "cafe i"
    pattern = re.compile(r"\bk\w+", re.I)
    assert says(pattern, "\u212aelvin", None)  # the Kelvin sign folds to "k" only under the flag



def _mentions_by_the_text(pattern: re.Pattern[str], text: str) -> bool:
    """``_evidence._mentions`` scanning each sentence as it is (before #47 round 6): the reference."""
    return any(any(not negated(s, m.start()) for m in pattern.finditer(s)) for s in split_sentences(text))


def test_mentions_over_the_lowercase_answers_as_the_scan_of_the_text(monkeypatch):
    """``mentions`` scans an ASCII sentence's lowercase by the pattern's twin: every pattern and text it reads in the
    records of three runs (both domains), and every pattern of them over every message of the runs, answer as the
    scan of the text itself."""
    asked: list[tuple[re.Pattern[str], str]] = []
    real = _evidence._mentions

    def recorded(pattern: re.Pattern[str], text: str) -> bool:
        asked.append((pattern, text))
        return real(pattern, text)

    monkeypatch.setattr(_evidence, "_mentions", recorded)
    texts = []
    for name in ("whissle_airline_tau3_1trial.json", "toolorchestra_retail_tau2_1trial.json",
                 "aide_claude-sonnet-4-5_airline_tau2_1trial.json"):
        run = import_results_file(real_run(name))
        for item in run.simulations:
            if item.sim is not None:
                score_in(run.domain, run.task_version, item.sim)
                texts += [normalise(m.content).text for m in item.sim.messages if isinstance(m.content, str)]
    # and the requests' words, which ``user_requests`` reads by ``_requests._mentioned`` (itself tested against
    # ``mentions``), not through ``_mentions``
    patterns = list(({id(p): p for p, _ in asked} | {id(p): p for p in vocabulary().requests.values()}).values())
    assert len(asked) > 1500 and len(patterns) > 10
    assert sum(twin(p) is not None for p in patterns) >= len(patterns) - 2  # scanned over the lowercase
    pairs = asked + [(p, t) for p in patterns for t in texts]
    mentioned = 0
    for pattern, text in pairs:
        answer = _mentions_by_the_text(pattern, text)
        assert real(pattern, text) == answer, (pattern.pattern[:80], text[:200])
        mentioned += answer
    assert mentioned > 5000
    # a sentence outside ASCII is scanned as it is: its lowercase may be longer (a dotted capital I lowers to two
    # characters), which would put a match five words past its negator
    shifted = re.compile(r"cancel", re.IGNORECASE)
    text = "\u0130" * 10 + " no a b c d cancel"
    assert real(shifted, text) is _mentions_by_the_text(shifted, text) is False


def _declines_by_the_text(kind: EvidenceKind, unit: str, *, direct: bool, summary: bool = False) -> bool:
    """``_evidence._declines`` scanning the unit as it is (before #47 round 6): the reference."""
    v = vocabulary()

    def stated(pattern: re.Pattern[str], unit: str) -> bool:
        return any(not _evidence.asks(unit, m.start()) for m in pattern.finditer(unit))

    if direct and not all(p.search(unit) for p in kind.subject):
        return False
    if not direct and not (kind.indirect and all(p.search(unit) for p in kind.indirect)):
        return False
    if not direct:
        unit = v.payment_means.sub(" ", unit)
    if kind.not_the_clause.search(unit):
        return False
    by_class = any(stated(p, unit) for p in kind.declined_by)
    if direct:
        return bool(by_class or (summary and v.decline in kind.declined_by and v.policy.search(unit)))
    return bool(by_class or stated(v.decline, unit))


def test_declines_over_the_lowercase_answers_as_the_scan_of_the_unit(monkeypatch):
    """``_declines`` scans an ASCII unit's lowercase by each pattern's twin: every unit it reads in the records of
    three runs, and every unit of every agent message of the runs for every clause its gate lets through
    (``Units.may_decline``), direct, indirect and as a summary, answer as the scan of the unit itself."""
    asked: list[tuple[EvidenceKind, str]] = []
    real = _evidence._declines

    def recorded(kind: EvidenceKind, unit: str, *, direct: bool, summary: bool = False) -> bool:
        asked.append((kind, unit))
        return real(kind, unit, direct=direct, summary=summary)

    for module in (_evidence, _no_write, _reading):
        monkeypatch.setattr(module, "_declines", recorded)
    said = []
    for name in ("whissle_airline_tau3_1trial.json", "toolorchestra_retail_tau2_1trial.json",
                 "aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_retail_tau3_5sims.json"):
        run = import_results_file(real_run(name))
        for item in run.simulations:
            if item.sim is not None:
                score_in(run.domain, run.task_version, item.sim)
                said += [t.text for t in read_turns(item.sim.messages) if t.role == "assistant" and t.text]
    cut = Units()
    asked += [(kind, u) for kind in vocabulary().kinds.values() for text in said if cut.may_decline(kind, text)
              for u in cut.of(text)]
    # a unit whose payment clause goes (the rest is scanned after it), and one whose lowercase is longer (a dotted
    # capital I lowers to two characters: the decline would be read past the comma after it, in a question)
    asked += [(kind, u) for kind in vocabulary().kinds.values() for u in (
        "Certificates cannot be combined with a change.", "\u0130" * 38 + " I cannot change a basic economy booking, can I help you?")]
    assert len(asked) > 20000 and sum(not u.isascii() for _, u in asked) > 1000
    declined = 0
    for kind, unit in asked:
        for direct, summary in ((True, False), (False, False), (True, True)):
            answer = _declines_by_the_text(kind, unit, direct=direct, summary=summary)
            assert real(kind, unit, direct=direct, summary=summary) == answer, (kind.name, direct, summary, unit)
            declined += answer
    assert declined > 1000


def test_agrees_over_the_lowercase_answers_as_the_scan_of_the_reply(monkeypatch):
    """``agrees`` scans an ASCII sentence's lowercase by the agreement's twin: every user message of three runs
    (and a few made up) answers as the scan of each sentence as it is."""
    from conversation_reading import _replies

    replies = [t for t in _sentences_of("aide_claude-sonnet-4-5_airline_tau2_1trial.json",
                                          "whissle_airline_tau3_1trial.json", "toolorchestra_retail_tau2_1trial.json", role="user")]
    replies += ["Yes, I'm sure.", "I\u2019m sure I said no.", "OK, that works. Please proceed!", "Sure?", "Not fine."]
    answers = [_replies._agrees(r) for r in replies]
    monkeypatch.setattr(_replies, "matches", lambda pattern, text, lowered: pattern.finditer(text))
    assert [_replies._agrees(r) for r in replies] == answers
    assert 100 < answers.count(True) < len(replies) - 100
