"""A sentence's kind and a message's worth read by their cheaper tests (#47) answer as what they replace, on the real
runs: a question told by the sentence's last character (``rstrip`` only after a blank) as by ``rstrip().endswith``,
and an act a message offers found by the twin led by its subject's letter (``_worth_reading._ACT_LOWERED``) where the
lowercase twin of ``_ACT`` finds it, at the same places; a scan's words found alike in ASCII text (``encode()``) and
in text with a lone surrogate (``surrogatepass``), and each statement gate held by id the pattern's own."""

from __future__ import annotations

from conversation_reading._gate import needs
from conversation_reading._lowered_search import twin
from conversation_reading._sentence_kinds import kind
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from conversation_reading._worth_reading import _ACT, _ACT_LOWERED
from tests.conftest import normalised_agent_texts, same_matches


def test_a_question_after_blanks_is_the_question_without_them_on_real_sentences():
    decline = vocabulary().decline
    gate = needs(decline)
    questions = 0
    for text in normalised_agent_texts():
        for sentence in split_sentences(text):
            if not sentence.endswith("?"):
                continue
            questions += 1
            for declines in (True, False):  # a blank after the mark leaves it a question, of the same kind
                said = kind(sentence, decline, gate, declines)
                assert said in ("confirmation_request", "offer", "question", "decline", "figure"), sentence
                assert kind(sentence + " \n", decline, gate, declines) == said, sentence
    assert questions > 500


def test_an_act_led_by_its_subject_is_the_twins_on_real_messages():
    plain = twin(_ACT)
    assert plain is not None
    found = 0
    for text in normalised_agent_texts("I will cancel it", "hi will cancel", "we'll rebook", "awe can add", "Wi may"):
        if text.isascii():
            lowered = text.lower()
            same_matches(_ACT_LOWERED, plain, lowered, every=7)
            found += plain.search(lowered) is not None
    assert found > 100


def test_a_scan_of_ascii_text_and_of_text_with_a_lone_surrogate_finds_the_same_words():
    from conversation_reading._gate import scanned_each
    from conversation_reading._sentence_kinds import _STATEMENT_WORDS

    scan = scanned_each(_STATEMENT_WORDS)
    for text in normalised_agent_texts()[:400]:
        lowered = text.lower()
        found = scan(lowered)  # ASCII: ``encode()``; else and with a lone surrogate: ``surrogatepass``
        assert scan(lowered + "\ud800") == found == scan("\u00e9 " + lowered) == scan(lowered + " \u00e9"), text


def test_each_statement_gate_held_by_id_is_its_patterns_own():
    from conversation_reading._sentence_kinds import _GATES, _STATEMENT_WORDS

    assert len(_GATES) == len(_STATEMENT_WORDS)
    for pattern in _STATEMENT_WORDS:
        assert _GATES[id(pattern)] is needs(pattern).check, pattern.pattern
