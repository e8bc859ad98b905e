"""The one order of task ids (and any id that mixes numbers and text) in every table, report and viewer."""

from __future__ import annotations

import re

_RUNS = re.compile(r"(\d+)")


def natural_key(value: object) -> tuple[tuple[int, int, str], ...]:
    """A sort key that reads digit runs as numbers and the rest as text: "2" < "13" < "27", "task_9" <
    "task_10"; at a place where one id has a number and the other text, the number comes first. ``None``
    sorts as the empty text."""
    text = "" if value is None else str(value)
    return tuple((0, int(p), p) if p.isdigit() else (1, 0, p) for p in _RUNS.split(text) if p)
