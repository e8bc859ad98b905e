"""A twin whose rewrites do not apply is compiled from the parse ``twin`` made for them (``_lowered_search._from_parse``,
#47: a second parse of its source cost as much as its code, once a process): the pattern ``re.compile`` gives for its
source and flags, with the same groups, names and matches."""

from __future__ import annotations

import re

from conversation_reading import conversation_record
from conversation_reading._gate import _p as _parser
from conversation_reading._lowered_search import _PARSES, _TWINS, _from_parse
from tests.conftest import lowered_texts, read_conversations


def _same(found: re.Pattern[str], plain: re.Pattern[str], texts: list[str]) -> None:
    assert found == plain  # code, flags and source
    assert (found.groups, found.groupindex, type(found.flags)) == (plain.groups, plain.groupindex, int)
    for text in texts:
        assert [(m.regs, m.lastgroup, m.groupdict()) for m in found.finditer(text)] == \
            [(m.regs, m.lastgroup, m.groupdict()) for m in plain.finditer(text)], (plain.pattern, text)


def test_a_twin_compiled_from_its_parse_is_the_compiled_source():
    for _turns, messages in read_conversations("whissle_airline_tau3_1trial.json"):
        conversation_record(messages, "airline", lambda name: name.startswith(("book", "cancel", "update")))
    texts = [t for t in lowered_texts("whissle_airline_tau3_1trial.json")][:300]
    from_parse = [found for _, found in list(_TWINS.values())
                  if found is not None and found.pattern is not None and id(found) in _PARSES]
    assert len(from_parse) > 15
    for found in from_parse:
        _same(found, re.compile(found.pattern, found.flags), texts)


def test_named_groups_and_inline_flags_come_from_the_parse():
    texts = ["refund of 100 dollars, then 20 usd", "no amount", "Refund 5 USD"]
    for source, flags in ((r"\b(?P<amount>\d+) (?P<unit>dollars|usd)\b", int(re.ASCII)),
                          (r"(?i)\b(\d+) (usd)\b|(?P<word>refund)", int(re.UNICODE))):
        _same(_from_parse(source, _parser.parse(source, flags), flags), re.compile(source, flags), texts)
