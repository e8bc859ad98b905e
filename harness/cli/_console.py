"""Console and progress bar shared by the verbs (one place for width and stream choices)."""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

LINE_LIMIT = 4000
"""The longest string a verb prints in one call. Lines carry strings from users' files; rich lays out a
megabyte-long line for minutes, and nobody reads one. Verbs cut each field shorter (``loophole_base.cut``);
this is the floor under every one of them."""


class CutConsole(Console):
    """A console whose ``print`` cuts every string argument to ``LINE_LIMIT`` characters (then ``…`` and the
    original length) and never highlights."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        kwargs.setdefault("highlight", False)
        super().print(*(_cut_line(o) if isinstance(o, str) else o for o in objects), **kwargs)


def _cut_line(text: str) -> str:
    return text if len(text) <= LINE_LIMIT else f"{text[:LINE_LIMIT]}… ({len(text):,} characters)"


def width_is_known(stderr: bool = False) -> bool:
    """On a terminal, or where ``$COLUMNS`` is set, rich finds the width itself; elsewhere (a pipe, a file)
    nothing says one, and the caller picks a wide one."""
    return os.environ.get("COLUMNS", "").strip().isdigit() or Console(stderr=stderr).is_terminal


def output_console(width: int = 160) -> Console:
    """stdout, as wide as the terminal (or ``$COLUMNS``); ``width`` when neither says (a pipe, a file), so
    tables are not squeezed into 80 columns. No automatic highlighting, and no string longer than
    ``LINE_LIMIT``: user strings are printed as they are, cut."""
    return CutConsole(width=None if width_is_known() else width, highlight=False)


def progress_bar(label: str = "{task.description}", transient: bool = False) -> Progress:
    """A bar with counts and ETA, on stderr so stdout keeps only the results."""
    return Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=stderr_console(),
        transient=transient,
    )


def stderr_console() -> Console:
    """stderr (progress and notes), as wide as the terminal (or ``$COLUMNS``), else 200 columns."""
    return CutConsole(stderr=True, width=None if width_is_known(stderr=True) else 200, highlight=False)
