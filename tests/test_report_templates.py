"""The templates of ``loophole_report``: each renders under StrictUndefined with autoescape on, a value
holding markup comes out as text, and a missing value is an error rather than an empty string."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import jinja2
import pytest

from loophole_report._templates import environment, render
from loophole_scoring import GoldFailure, RecordDiff

EVIL = '<script>alert("x")</script>'
ESCAPED = "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"
PAGES = {"report.html", "index.html", "trial.html"}


def _link(text: str, href: str | None = "index.html#agent=a") -> dict:
    return {"text": text, "href": href}


def _report() -> dict:
    blocks = [
        {"kind": "figure", "name": EVIL, "caption": EVIL, "png": "iVBORw0KGgo=", "compact": True,
         "data": {"labels": [EVIL]}},
        {"kind": "table", "headers": [EVIL], "rows": [[EVIL, _link(EVIL), [_link("3"), EVIL]]]},
        {"kind": "text", "text": EVIL},
        {"kind": "undefined", "text": EVIL},
        {"kind": "heading", "text": EVIL},
        {
            "kind": "flips",
            "trials": 3,
            "items": [
                {
                    "link": _link(EVIL, "t/x.html"),
                    "title": EVIL,
                    "credited": EVIL,
                    "agents": [[_link("2"), EVIL]],
                    "excerpts": [{"excerpt": EVIL, "gold_id": "v1", "what": EVIL}],
                },
                {"link": _link("plain", None), "title": "t", "credited": "?", "agents": [], "excerpts": []},
            ],
        },
        {"kind": "key_values", "value": {EVIL: [EVIL, {}, []], "n": None}},
    ]
    return {
        "run_name": EVIL,
        "trials_link": _link("7"),
        "agents": 1,
        "domains": EVIL,
        "versions": "tau2",
        "viewer_index": "viewer/index.html",
        "notes": [EVIL],
        "glossary": [{"term": EVIL, "definition": EVIL}],
        "sections": [{"id": "success", "title": EVIL, "blocks": blocks}],
        "left_out": [{"title": EVIL, "why": EVIL}],
    }


def _index() -> dict:
    row: dict[str, Any] = dict.fromkeys(
        ("agent", "domain", "version", "task", "status", "reading", "trajectory_id"), EVIL
    )
    row.update(strict="fail", single="pass", multi="fail", upper="pass", flip=1, loophole=0, page="t/x.html", trial=0.0)
    row.update(credited=EVIL, messages=3)
    return {
        "run_name": EVIL,
        "selects": [{"key": "agent", "label": "agent", "values": [EVIL]}],
        "rows": [row],
        "uncertain": [
            {"page": "t/x.html", "agent": EVIL, "domain": EVIL, "version": EVIL, "task": EVIL, "trial": 0,
             "simulation": EVIL, "gold_id": EVIL, "doubt": EVIL, "weak": EVIL}
        ],
    }


def _trial() -> dict:
    gold = {
        "gold_id": "gold",
        "reading": EVIL,
        "verdict": "fail",
        "database": "differs",
        "action": "1",
        "communicate": "0",
        "nl_assertion": "n/a",
        "status": "ok",
        "reason": EVIL,
        "rationale": EVIL,
        "why": GoldFailure(
            records=[RecordDiff("users/" + EVIL, [(EVIL, EVIL, EVIL)])],
            communicate=[EVIL],
            nl=[(EVIL, "judged not met")],
            note=EVIL,
        ),
        "preconditions": [{"held": True, "name": EVIL, "detail": EVIL}],
        "evidence": [
            {"message_index": 0, "role": "user", "tool_call": EVIL, "excerpt": EVIL, "what": EVIL, "weak": True}
        ],
        "has_detail": True,
        "doubt": EVIL,
    }
    message = {
        "index": 0,
        "cls": "user",
        "label": EVIL,
        "badges": [("v1", EVIL, True)],
        "tool_output": None,
        "spans": [(EVIL, False), (EVIL, True)],
        "calls": [{"name": EVIL, "id": EVIL, "args": EVIL}],
    }
    tool = dict(message, index=1, cls="tool", badges=[], spans=None, tool_output=EVIL * 100)
    return {
        "run_name": EVIL,
        "task_link": "../index.html#task=1",
        "task_id": EVIL,
        "loophole": True,
        "agent": EVIL,
        "domain": EVIL,
        "version": "tau2",
        "trial": 0,
        "single": "fail",
        "multi": "pass",
        "upper": "pass",
        "flip": True,
        "meta": [(EVIL, EVIL)],
        "golds": [gold, dict(gold, gold_id="v1", why=None, has_detail=False, rationale=None)],
        "messages": [message, tool],
        "record": None,
        "record_problem": EVIL,
        "others": [
            {"page": "t/y.html", "agent": EVIL, "version": "tau3", "trial": 1}
            | {"single": "pass", "multi": "pass", "upper": "pass"}
        ],
    }


CONTEXTS = {"report.html": _report, "index.html": _index, "trial.html": _trial}


def test_the_environment_escapes_and_is_strict():
    env = environment()
    assert env.autoescape is True and env.undefined is jinja2.StrictUndefined


def test_every_page_template_has_a_test_context():
    shipped = {p.name for p in files("loophole_report").joinpath("templates").iterdir()}
    assert PAGES <= shipped and {"base.html", "macros.html", "style.css", "index.js"} <= shipped
    pages = {n for n in shipped if n.endswith(".html")} - {"base.html", "macros.html"}
    assert pages == set(CONTEXTS)


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_a_page_renders_markup_as_text(name):
    text = render(name, **CONTEXTS[name]())
    assert EVIL not in text and ESCAPED in text
    assert text.count("<script>") == (0 if name == "trial.html" else 1)  # only the page's own
    assert "Content-Security-Policy" in text and "script-src 'unsafe-inline'" in text
    assert "None" not in text  # a missing value prints nothing


@pytest.mark.parametrize("name", sorted(CONTEXTS))
def test_a_missing_variable_raises(name):
    context = CONTEXTS[name]()
    context.pop(next(iter(context)))
    with pytest.raises(jinja2.UndefinedError):
        render(name, **context)


def test_a_missing_field_raises():
    context = _index()
    del context["rows"][0]["credited"]
    with pytest.raises(jinja2.UndefinedError):
        render("index.html", **context)


@pytest.mark.parametrize("name", ["style.css", "index.js", "report.js"])
def test_styles_and_scripts_are_inlined_verbatim(name):
    """They are included as templates: a stray ``{{`` in them would change what the page gets."""
    source = files("loophole_report").joinpath("templates", name).read_text()
    assert environment().get_template(name).render().strip() == source.strip()


def test_marked_macro_escapes_and_marks():
    macros = environment().get_template("macros.html").module
    out = str(macros.marked([("<b>a</b> ", False), ("denied", True), (" <i>", False)]))  # type: ignore[attr-defined]  # a template module's macros are attributes made at run time
    assert out == "&lt;b&gt;a&lt;/b&gt; <mark>denied</mark> &lt;i&gt;"
