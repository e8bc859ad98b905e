"""The gates the record reads are compiled checks, not the walk they fall back on (#47: the tree is compiled with
its nodes' places given as built), and they answer as the walk does."""

from __future__ import annotations

from conversation_reading import _gate_needs
from conversation_reading._gate import holds_any, needs, walked
from conversation_reading._message_scan import gated_patterns


def _compiled(check: object) -> bool:
    """Compiled from the tree, or read from the table of the program's own patterns (``_gate_tabulate``)."""
    code = getattr(check, "__code__", None)
    return code is not None and code.co_filename in ("<gate>", _gate_needs.__file__)


def test_every_gated_pattern_has_a_compiled_check_that_answers_as_the_walk() -> None:
    patterns = gated_patterns("assistant") + gated_patterns("user")
    texts = ["i can offer you a certificate", "please cancel my reservation", "the user wants a refund", ""]
    for p in patterns:
        required = needs(p)
        assert _compiled(required.check), p.pattern[:80]
        for text in texts:
            assert required.check(text) == walked(required, text), (p.pattern[:80], text)
    assert _compiled(holds_any(tuple(patterns)))
    assert len(patterns) > 20


def test_one_gate_of_many_patterns_tests_their_common_words_once_and_answers_as_each_patterns_walk() -> None:
    """``holds_any`` tests a word group every pattern needs once, before the rest of each (#47 round 13): on every
    sentence and message of two real runs, each tuple the record gates on answers as any pattern's walk does."""
    import re

    from conversation_reading._claims import claim_kinds
    from conversation_reading._invented_policy import _FINDERS
    from conversation_reading._offer_reads import _offered
    from conversation_reading._units import split_sentences
    from conversation_reading._vocabulary import vocabulary
    from tests.conftest import AIDE, WHISSLE, read_conversations

    v = vocabulary()
    tuples = [tuple(k.patterns) for k in claim_kinds()[0]] + [_offered(v), _FINDERS]
    tuples += [tuple(k.declined_by) for k in v.kinds.values() if k.declined_by]
    made = (re.compile(r"\bcancel\w* (?:and|then) rebook", re.I), re.compile(r"cancel (?:it|this)\b", re.I),
            re.compile(r"please cancel", re.I))  # "cancel" in all three; "please cancel" holds the other two's group
    tuples.append(made)
    texts = [s for name in (AIDE, WHISSLE) for turns, _ in read_conversations(name) for t in turns if t.text
             for s in (t.text.lower(), *(x.lower() for x in split_sentences(t.text)))]
    texts += ["cancel and rebook", "please cancel it", "cancel this", "cancel", ""]
    common = held = 0
    for patterns in tuples:
        required = [needs(p) for p in patterns]
        common += any(isinstance(r, frozenset) and all(r in q for q in required) for r in required[0])
        gate = holds_any(patterns)
        assert _compiled(gate)
        for text in texts:
            answer = gate(text)
            assert answer == any(walked(needs(p), text) for p in patterns), ([p.pattern[:60] for p in patterns], text)
            held += answer
    assert common >= 2 and len(texts) > 3000 and 0 < held < len(texts) * len(tuples) // 2
