"""Console and progress bar shared by the verbs (one place for width and stream choices)."""

from __future__ import annotations

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


def output_console(width: int = 160) -> Console:
    """stdout; a fixed width when not on a terminal, so tables are not squeezed into 80 columns. No automatic
    highlighting: user strings (cut by ``loophole_base.cut``) are printed as they are."""
    return Console(width=None if Console().is_terminal else width, highlight=False)


def progress_bar(label: str = "{task.description}", transient: bool = False) -> Progress:
    """A bar with counts and ETA, on stderr so stdout keeps only the results."""
    return Progress(
        TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
        console=Console(stderr=True, width=None if Console(stderr=True).is_terminal else 200, highlight=False),
        transient=transient,
    )
