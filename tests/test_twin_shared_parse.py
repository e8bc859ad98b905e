"""A twin's rewrites read one parse of its lowercase source, and ``_led_matches`` reads the leading words of a twin
compiled from its source off that same parse (``_lowered_search.twin_parse``, #47: a parse is most of a compile, and
a cold rescore made up to four of each twin), under its flags as a plain int. Every twin the record makes on real
conversations is the pattern a parse of its own for each step gives, under the flags as ``re.RegexFlag`` (the same
code, flags and source), and its leading words are those of a fresh parse of its source."""

from __future__ import annotations

import re

from conversation_reading import conversation_record
from conversation_reading._gate import _p as _parser
from conversation_reading._led_matches import leads
from conversation_reading._lowered_search import (
    _PARSES,
    _TWINS,
    _boundary_factored,
    _led_by_its_literal,
    twin_parse,
)
from tests.conftest import read_conversations


def _made_apart(source: str, flags: int) -> re.Pattern[str]:
    """The twin of a lowercase source as each step parsed it for itself (before the parse was shared)."""
    return _led_by_its_literal(source, flags) or _boundary_factored(source, flags) or re.compile(source, flags)


def test_every_twin_of_a_real_reading_is_the_one_a_parse_each_gives():
    conversations = read_conversations("whissle_airline_tau3_1trial.json")
    conversations += read_conversations("aide_claude-sonnet-4-5_airline_tau2_1trial.json")
    for _turns, messages in conversations:  # the twins the record makes
        conversation_record(messages, "airline", lambda name: name.startswith(("book", "cancel", "update")))
    twins = [found for _, found in list(_TWINS.values()) if found is not None]
    assert len(twins) > 40
    rewritten = shared = 0
    for pattern, found in list(_TWINS.values()):
        if found is None or not pattern.pattern.isascii():
            continue
        lowered = pattern.pattern.lower()
        flags = pattern.flags & ~re.IGNORECASE  # as ``twin`` reads them, a ``re.RegexFlag`` (the twin takes its int)
        if "\\s" not in lowered:
            flags = flags & ~re.UNICODE | re.ASCII
        apart = _made_apart(lowered, flags)
        assert found == apart, pattern.pattern  # the same code and flags (and source, None where rewritten)
        rewritten += found.pattern is None
        if found.pattern is not None:
            assert leads(twin_parse(found)) == leads(_parser.parse(found.pattern, found.flags)), pattern.pattern
            shared += id(found) in _PARSES
    assert rewritten > 5 and shared > 20  # both paths are taken on real texts
