"""``stated_wants`` reads the user's messages in one pass, each pattern's gate tested only where the message is read
for it, and a change named under a negation only where the message's negation gate holds (#47): it answers as the
three passes of ``TurnIndex.saying`` it replaced (kept here as the reference), on real conversations. Its
``_negated_only`` reads a sentence's occurrences once, where ``says`` and ``mentions`` each read them: the same
answer on every sentence of the real runs, none of which ``split_sentences`` cuts further."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tau2.data_model.simulation import Results

from conversation_reading._evidence import mentions, read_turns
from conversation_reading._gate import may_match
from conversation_reading._lowered_search import says
from conversation_reading._message_scan import changes, gate_of
from conversation_reading._precondition_facts import _negated_only, _sentences_said, stated_wants
from conversation_reading._record import StatedWant
from conversation_reading._requests import asks_compensation
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from tests.conftest import REAL_RUNS, SHARED, read_conversations

_EXCERPT_LIMIT = 240


def _conversations() -> list[tuple[list[Any], list[Any]]]:
    """The real runs' conversations, and the dev corpus's first runs (more users who name a change under a negation)."""
    out = [c for f in sorted(REAL_RUNS.glob("*.json")) for c in read_conversations(f.name)]
    for f in sorted((SHARED / "dev-corpus" / "runs").glob("*.json"))[:6]:
        for sim in Results.model_validate_json(Path(f).read_text(encoding="utf-8")).simulations:
            messages = list(sim.messages)
            out.append((read_turns(messages), messages))
    return out


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT_LIMIT else text[: _EXCERPT_LIMIT - 1] + "\u2026"


def _reference_negated_only(pattern: re.Pattern[str], sentence: str, low: str, gated: bool) -> bool:
    """The reading before the one pass: a search, then ``mentions`` of the sentence."""
    return may_match(vocabulary().negation, low, gated) and says(
        pattern, sentence, low if sentence.isascii() else None) and not mentions(pattern, sentence)


def _reference_stated_wants(turns: list[Any], index: TurnIndex) -> list[StatedWant]:
    """``stated_wants`` as it read before: three passes of ``index.saying``, then each message of any of them."""
    v = vocabulary()
    compensation = v.requests["send_certificate"]
    named = changes(v.requests["update_reservation_flights"].pattern, v.requests["cancel_reservation"].pattern)
    wants, keeping, changing = (gate_of(p, "user") for p in (compensation, v.keeps_reservation, named))
    asking = {t.index: t for t in index.saying(compensation, wants, "user")}
    kept = {t.index: t for t in index.saying(v.keeps_reservation, keeping, "user")}
    changed = {t.index: t for t in index.saying(named, changing, "user")}
    out = []
    for i, t in sorted({**asking, **kept, **changed}.items()):
        if i in asking and asks_compensation(compensation, t.text):
            out.append(StatedWant(want="compensation", message_index=t.index, excerpt=_excerpt(t.text)))
            continue
        gated = index.lowered(t.text)[1]
        keeps = (i in kept and mentions(v.keeps_reservation, t.text)) or (i in changed and any(
            _reference_negated_only(named, s, low, gated) for s, low in _sentences_said(named, t.text, index)))
        if keeps:
            out.append(StatedWant(want="keep_reservation", message_index=t.index, excerpt=_excerpt(t.text)))
    return out


def test_stated_wants_in_one_pass_answer_as_the_three_passes_on_real_conversations():
    found: dict[str, int] = {"compensation": 0, "keep_reservation": 0}
    conversations = _conversations()
    for turns, messages in conversations:
        got = stated_wants(turns, TurnIndex(turns, messages))
        assert got == _reference_stated_wants(turns, TurnIndex(turns, messages))
        for w in got:
            found[w.want] += 1
    assert len(conversations) > 300, len(conversations)
    assert found["compensation"] > 300 and found["keep_reservation"] > 150, found


def test_a_negated_only_occurrence_read_once_answers_as_a_search_and_mentions_on_every_real_sentence():
    v = vocabulary()
    named = changes(v.requests["update_reservation_flights"].pattern, v.requests["cancel_reservation"].pattern)
    patterns = [named, v.keeps_reservation, v.agreement, *v.requests.values()]
    seen = negated_only = 0
    for turns, _ in _conversations():
        for t in turns:
            if t.role not in ("user", "assistant"):
                continue
            gated = TurnIndex(turns, ()).lowered(t.text)[1]
            for s in split_sentences(t.text):
                assert split_sentences(s) == [s]  # a sentence is cut no further: ``mentions`` of it reads it whole
                low = s.lower()
                for p in patterns:
                    got = _negated_only(p, s, low, gated)
                    assert got == _reference_negated_only(p, s, low, gated), (p.pattern, s)
                    seen += 1
                    negated_only += got
    assert seen > 400_000 and negated_only > 1500, (seen, negated_only)
