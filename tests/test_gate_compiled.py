"""The gates the record reads are compiled checks, not the walk they fall back on (#47: the tree is compiled with
its nodes' places given as built), and they answer as the walk does."""

from __future__ import annotations

from conversation_reading._gate import holds_any, needs, walked
from conversation_reading._message_scan import gated_patterns


def _compiled(check: object) -> bool:
    code = getattr(check, "__code__", None)
    return code is not None and code.co_filename == "<gate>"


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


def test_words_added_by_frequency_match_as_added_in_any_order() -> None:
    """The scans' automata add their words most frequent characters first (``_gate._added``, #47): the same words,
    each match found where an automaton of them added alphabetically finds it, on the messages of a real run."""
    import ahocorasick
    from tau2.data_model.simulation import SimulationRun

    from conversation_reading._gate import _added, _words_in
    from tests.conftest import _raw_run

    words = {w for p in gated_patterns("assistant") + gated_patterns("user") for r in needs(p) for w in _words_in(r)}
    assert sorted(_added(words)) == sorted(words) and len(words) > 100
    by_frequency, alphabetical = ahocorasick.Automaton(), ahocorasick.Automaton()
    for automaton, order in ((by_frequency, _added(words)), (alphabetical, sorted(words))):
        for word in order:
            automaton.add_word(word, word)
        automaton.make_automaton()
    found = 0
    for raw in _raw_run("whissle_airline_tau3_1trial.json")["simulations"][:10]:
        for m in SimulationRun.model_validate(raw).messages:
            text = (m.content or "").lower()
            matches = list(by_frequency.iter(text))
            assert sorted(matches) == sorted(alphabetical.iter(text))
            assert {w for _, w in matches} == {w for w in words if w in text}
            found += len(matches)
    assert found > 100
