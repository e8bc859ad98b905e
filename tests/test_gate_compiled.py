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
