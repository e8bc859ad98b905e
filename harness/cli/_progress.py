"""The sweep's progress line: what it is doing now (its phase), a bar, the counts and the time since it began,
then as many details as the terminal's width holds, most important first. Never cut: a detail that does not
fit is left out whole, and the bar shrinks before anything else goes.

``phase_bar()`` gives a rich ``Progress`` whose task takes three fields (``bar.update(task, phase=...,
details=[...])``): ``phase``, a few words (``starting Ray``, ``running``, ``writing``, ``done``), and
``details``, strings in order of importance. The time shown is the task's elapsed time, live during a long
phase (Ray's start) and frozen when the task is stopped (``bar.stop_task``), so a finished bar shows how long
the sweep really took.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import RenderableType
from rich.progress import Progress, Task
from rich.text import Text

BAR_MIN, BAR_MAX = 10, 30
SEPARATOR = " · "


def clock(seconds: float | None) -> str:
    """``h:mm:ss``, as rich's own time columns print it."""
    s = int(seconds or 0)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


def progress_line(phase: str, completed: float, total: float | None, elapsed: float | None,
                  details: Iterable[str], width: int) -> Text:
    """One line of at most ``width`` cells: ``PHASE  BAR  DONE/TOTAL  elapsed H:MM:SS · detail · detail``.
    The phase, the counts and the time always stay; the bar narrows (down to nothing) and then details are
    left out, from the least important."""
    count = f"{int(completed)}/{int(total)}" if total else f"{int(completed)}"
    head = [phase, count, f"elapsed {clock(elapsed)}"]
    fixed = cell_len("  ".join(head))
    kept: list[str] = []
    for detail in details:  # most important first; each one whole or not at all
        if fixed + cell_len(SEPARATOR.join(["", *kept, detail])) + BAR_MIN + 2 <= width:
            kept.append(detail)
    tail = SEPARATOR.join(["", *kept]) if kept else ""
    room = width - fixed - cell_len(tail) - 2
    bar_width = min(BAR_MAX, room) if room >= BAR_MIN else 0
    line = Text(phase, style="bold")
    if bar_width:
        done = round(bar_width * min(1.0, completed / total)) if total else 0
        line.append("  ")
        line.append("━" * done, style="bar.complete")
        line.append("━" * (bar_width - done), style="bar.back")
    line.append(f"  {count}  ", style="progress.download")
    line.append(f"elapsed {clock(elapsed)}", style="progress.elapsed")
    line.append(tail)
    return line


class PhaseProgress(Progress):
    """A ``Progress`` that draws each task as ``progress_line`` at the console's width of the moment.

    Piped (not a terminal), rich draws nothing until the end: there, each phase and then the progress at
    most every ``PIPED_EVERY_S`` seconds is printed as a line of its own (the last, ``done``, rich prints)."""

    PIPED_EVERY_S = 5.0
    _piped: tuple[str, float] = ("", 0.0)  # the phase and time of the last line printed when piped

    def update(self, task_id: Any, **fields: Any) -> None:  # rich's keywords, passed on whole
        super().update(task_id, **fields)
        if self.console.is_terminal:
            return
        task = self._tasks[task_id]
        phase, now = str(task.fields.get("phase") or task.description), time.monotonic()
        if phase != "done" and (phase != self._piped[0] or now - self._piped[1] >= self.PIPED_EVERY_S):
            self._piped = (phase, now)
            self.console.print(self._line(task, max(20, self.console.width - 1)), soft_wrap=True)

    def get_renderables(self) -> Iterable[RenderableType]:
        if not hasattr(self, "live"):  # rich asks once while it builds the display, before any task
            return
        width = max(20, self.console.width - 1)  # one cell short: a full last cell makes some terminals wrap
        for task in self.tasks:
            yield self._line(task, width)

    @staticmethod
    def _line(task: Task, width: int) -> Text:
        fields: dict[str, Any] = task.fields
        return progress_line(str(fields.get("phase") or task.description), task.completed, task.total,
                             task.elapsed, fields.get("details") or (), width)


def phase_bar(console: Any) -> PhaseProgress:
    """A ``PhaseProgress`` on ``console`` (stderr: stdout keeps only the results), refreshed a few times a
    second so the time moves while nothing else does."""
    return PhaseProgress(console=console, refresh_per_second=4)
