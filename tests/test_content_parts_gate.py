"""read_content_parts, which calls content_text only where its gate lets a content through (a list, or a
string the parts pattern matches) and copies the list only from the first content read as parts, agrees
with reading every content through content_text, on the shared runs, the dev corpus and made cases."""

from __future__ import annotations

import glob
import json

import pytest

from loophole_ingest._content_parts import content_text, read_content_parts
from tests.conftest import SHARED

_FILES = [f for p in ("real-runs/*.json", "dev-corpus/runs/*.json", "dev-corpus/other-families/runs/*.json")
          for f in sorted(glob.glob(str(SHARED / p)))]


def _every_content(raw: object) -> tuple[object, bool]:
    """The plain reading: content_text on every message's content."""
    if not isinstance(raw, dict) or not isinstance(raw.get("messages"), list):
        return raw, False
    out, changed = [], False
    for message in raw["messages"]:
        text = content_text(message.get("content")) if isinstance(message, dict) else None
        out.append(message if text is None else {**message, "content": text})
        changed |= text is not None
    return ({**raw, "messages": out}, True) if changed else (raw, False)


_PART = [{"type": "text", "text": "reservation_id='HATHAT'"}]
_MADE = [
    None, [], {"messages": None}, {"messages": []}, {"messages": ["not a message", 3]},
    {"messages": [{"role": "tool", "content": _PART}]},
    {"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "content": json.dumps(_PART)}, {"role": "user"}]},
    {"messages": [{"role": "tool", "content": repr(_PART)}, {"role": "assistant", "content": None}]},
    {"messages": [{"role": "tool", "content": " [ {'type': 'image'}]"}, {"role": "tool", "content": [{"type": "x"}]}]},
    {"messages": [{"role": "tool", "content": "[1, 2]"}, {"role": "tool", "content": 5}, {"role": "tool", "content": _PART}]},
]


@pytest.mark.parametrize("raw", _MADE, ids=range(len(_MADE)))
def test_made_cases_read_as_every_content_reads_them(raw):
    fast, plain = read_content_parts(raw), _every_content(raw)
    assert fast == plain
    assert (fast[0] is raw) == (plain[0] is raw)  # unchanged: the input itself, no copy


def test_real_simulations_read_as_every_content_reads_them():
    seen = 0
    for name in _FILES:
        with open(name, "rb") as fh:
            for raw in json.load(fh).get("simulations") or []:
                fast, plain = read_content_parts(raw), _every_content(raw)
                assert fast == plain and (fast[0] is raw) == (plain[0] is raw), (name, raw.get("id"))
                seen += 1
    assert seen > 500
