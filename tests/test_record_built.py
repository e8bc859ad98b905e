"""The record's parts built without validating (``_record.built``, #47) are the parts validating their fields builds:
on the conversations of real runs of both domains, every record read with the fast build equals the one read with
each part validated (``model_validate`` of the same fields), writes the same JSON, and each of its parts has the same
type, the same fields set, the same fields in the same order and values of the same types."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

import conversation_reading._record as record_module
from conversation_reading._reading import conversation_record
from conversation_reading._record import ConversationRecord
from gold_variants.readings._base import write_tools
from tests.conftest import read_conversations

RUNS = {"airline": ("whissle_airline_tau3_1trial.json", "aide_claude-sonnet-4-5_airline_tau2_1trial.json"),
        "retail": ("toolorchestra_retail_tau2_1trial.json", "whissle_retail_tau3_5sims.json")}


def _records() -> list[ConversationRecord]:
    out = []
    for domain, names in RUNS.items():
        tools = write_tools(domain)
        for name in names:
            for _, messages in read_conversations(name)[:40]:
                out.append(conversation_record(messages, domain, tools.__contains__))
    return out


def _validated(cls: type[BaseModel], fields: dict[str, Any]) -> BaseModel:
    return cls.model_validate(fields)


def _parts(value: Any) -> Iterator[BaseModel]:
    if isinstance(value, BaseModel):
        yield value
        for v in value.__dict__.values():
            yield from _parts(v)
    elif isinstance(value, list):
        for v in value:
            yield from _parts(v)


@pytest.fixture(scope="module")
def both() -> tuple[list[ConversationRecord], list[ConversationRecord]]:
    fast = _records()
    # every module that builds parts holds ``built`` by name: each is given the validating build
    users = [m for name, m in sys.modules.items()
             if name.startswith("conversation_reading.") and getattr(m, "built", None) is record_module.built]
    assert len(users) >= 3
    with pytest.MonkeyPatch.context() as patch:
        for m in users:
            patch.setattr(m, "built", _validated)
        slow = _records()
    return fast, slow


def test_records_built_fast_are_the_validated_ones(both):
    fast, slow = both
    assert len(fast) == len(slow) > 100
    kinds: dict[str, int] = {}
    for a, b in zip(fast, slow, strict=True):
        assert type(a) is ConversationRecord and a == b
        assert a.model_dump_json() == b.model_dump_json()
        parts_a, parts_b = list(_parts(a)), list(_parts(b))
        assert len(parts_a) == len(parts_b)
        for x, y in zip(parts_a, parts_b, strict=True):
            assert type(x) is type(y) and x == y
            assert x.model_fields_set == y.model_fields_set
            assert list(x.__dict__) == list(y.__dict__) == list(type(x).model_fields)
            assert [type(v) for v in x.__dict__.values()] == [type(v) for v in y.__dict__.values()]
            assert x.__pydantic_extra__ is y.__pydantic_extra__ is None
            assert x.__pydantic_private__ is y.__pydantic_private__ is None
            kinds[type(x).__name__] = kinds.get(type(x).__name__, 0) + 1
    # the parts built fast are there to compare, many of each
    for name in ("Claim", "Decline", "Write", "ClauseRead", "FinalDecision", "ConsequentialSentence", "UserRequest"):
        assert kinds.get(name, 0) >= 20, (name, kinds)


def test_a_part_built_fast_is_frozen_and_hashable_as_validated(both):
    fast, slow = both
    claim = next(c for r in fast for c in r.claims)
    with pytest.raises(Exception, match="frozen"):
        claim.false = not claim.false
    sentence = next(s for r in fast for s in r.sentences)
    twin = next(s for r in slow for s in r.sentences)
    assert hash(sentence) == hash(twin) and sentence.model_copy() == twin


def test_the_shared_fields_set_stays_every_field(both):
    """Parts built with every field share one fields set: a frozen part's refused assignment and ``model_copy``
    with an update leave it whole, and a part built with fewer fields gets its own set."""
    fast, _ = both
    claims = [c for r in fast for c in r.claims]
    every = set(record_module.Claim.model_fields)
    assert claims[0].model_fields_set is claims[1].model_fields_set
    with pytest.raises(Exception, match="frozen"):
        claims[0].acted_on = not claims[0].acted_on
    copied = claims[0].model_copy(update={"start": 1})
    assert copied.start == 1 and copied.model_fields_set == every
    assert claims[0].model_fields_set == claims[1].model_fields_set == every
    fields = {k: v for k, v in claims[0].__dict__.items() if k != "withdrawn_at"}
    fewer = record_module.built(record_module.Claim, fields)
    assert fewer.model_fields_set == every - {"withdrawn_at"} and claims[0].model_fields_set == every
