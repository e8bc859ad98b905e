"""The package's one Jinja2 environment: templates from ``loophole_report/templates/``, every value escaped
(autoescape), and a name a template uses but the code did not pass is an error (StrictUndefined)."""

from __future__ import annotations

import functools
from typing import Any

import jinja2


def _shown(value: Any) -> Any:
    """What ``{{ value }}`` prints: nothing for a missing value (None, or a NaN from a table)."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    return value


@functools.cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("loophole_report", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        finalize=_shown,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
    )


def render(template: str, **context: Any) -> str:
    """``template`` rendered with ``context`` (plain data: strings, numbers, lists, dicts)."""
    return environment().get_template(template).render(**context)
