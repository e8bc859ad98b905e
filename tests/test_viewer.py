"""The viewer's small pieces, without a browser (tests/e2e/test_report.py drives the built site)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from loophole_base import natural_key
from loophole_report._links import index_link, page_name
from loophole_report._trials import explanation
from loophole_report._viewer import marked_spans
from loophole_scoring._why import field_diffs


def test_index_link_round_trips_through_the_fragment():
    link = index_link(agent="a b&c", task="13", flips="1", status=None)
    parts = urlsplit(link)
    assert parts.path == "index.html"
    assert parse_qs(parts.fragment) == {"agent": ["a b&c"], "task": ["13"], "flips": ["1"]}
    assert index_link() == "index.html"
    with pytest.raises(ValueError, match="unknown viewer filters"):
        index_link(colour="red")


def test_page_names_are_distinct_file_names():
    a, b = page_name("run/agent/airline/tau2/13/0"), page_name("run/agent/airline/tau2/13/1")
    assert a != b and a.startswith("t/") and a.count("/") == 1 and a.endswith(".html")


def test_natural_key_is_numeric():
    assert sorted(["13", "2", "x", "27", "0"], key=natural_key) == ["0", "2", "13", "27", "x"]


@pytest.mark.parametrize("text", [None, "", "not json", "[1, 2]", '"a string"'])
def test_explanation_ignores_what_is_not_an_object(text):
    assert explanation(text) is None


def test_marked_spans_mark_the_first_occurrence_of_each_excerpt():
    text = "<b>refund</b> denied: policy says <script>x</script>"
    assert marked_spans(text, ["denied: policy", "absent excerpt", None]) == [
        ("<b>refund</b> ", False),
        ("denied: policy", True),
        (" says <script>x</script>", False),
    ]
    assert marked_spans("a b a", ["a", "b"]) == [
        ("a", True),
        (" ", False),
        ("b", True),
        (" a", False),
    ]


def test_field_diffs_walk_dicts_to_the_leaves_that_differ():
    out: list = []
    field_diffs(
        "", {"a": 1, "p": {"x": 1, "y": [1]}, "gone": 2}, {"a": 1, "p": {"x": 2, "y": [1]}}, out
    )
    assert out == [("gone", "2", "(absent)"), ("p.x", "1", "2")]
