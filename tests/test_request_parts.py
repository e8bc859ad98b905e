"""``user_requests`` builds each ``UserRequest`` of a dict of its fields (``_record.built``), and writes a
message's excerpt once for every write it asks for (#47): the parts are those ``UserRequest(...)`` builds, equal, with
the same fields set, frozen, and written alike, on real conversations."""

from __future__ import annotations

import pydantic
import pytest

from conversation_reading._evidence import excerpt_of
from conversation_reading._record import UserRequest
from conversation_reading._requests import user_requests
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import Units
from conversation_reading._vocabulary import vocabulary
from tests.conftest import REAL_RUNS, read_conversations


def test_requests_built_by_the_validator_are_those_init_builds_on_real_conversations():
    writes = set(vocabulary().requests)
    seen = shared = 0
    for f in sorted(REAL_RUNS.glob("*.json")):
        for turns, messages in read_conversations(f.name):
            index = TurnIndex(turns, messages)
            found = user_requests(turns, Units(lowercase=index.lowercase), writes.__contains__, index)
            for q in found:
                built = UserRequest(tool=q.tool, message_index=q.message_index,
                                    excerpt=excerpt_of(turns[q.message_index].raw))
                assert q == built and type(q) is UserRequest
                assert q.model_fields_set == built.model_fields_set
                assert q.model_dump_json() == built.model_dump_json()
                with pytest.raises(pydantic.ValidationError):
                    q.tool = "x"  # frozen, as the model says
                seen += 1
            at = [q.message_index for q in found]
            shared += len(at) - len(set(at))  # requests of one message: one excerpt written for them all
    assert seen > 150 and shared > 10, (seen, shared)
