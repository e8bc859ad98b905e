"""Tables that fit the terminal (80 columns and up): every kept column is wide enough for its header's
longest word and for its values, long names are shortened in the middle, and when the columns cannot all fit,
the least important are left out and a note under the table names them.

Each verb states its columns in the order the reader needs them (``Col.rank``: 0 is a key column, never left
out; a higher rank goes first). A cell is never cut to ``x…``: a number or a band is printed whole
(``fit="whole"``), prose wraps at spaces (``"wrap"``), and a name keeps its start and its end (``"middle"``:
``anthropic/clau…-sonnet-4``), where the differences between models' names usually are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rich.cells import cell_len
from rich.console import Console
from rich.table import Column, Table
from rich.text import Text

Fit = Literal["whole", "wrap", "middle"]

ELLIPSIS = "…"


@dataclass(frozen=True)
class Col:
    """A column as a verb states it: its header, how its cells fit, and how early it is left out."""

    header: str
    fit: Fit = "whole"
    rank: int = 0  # 0: a key column, always kept; the highest rank is left out first
    least: int = 14  # "middle": the narrowest a name is shortened to
    room: int = 26  # "middle" in a key column: columns are left out before a name gets fewer cells than this
    justify: Literal["left", "right"] = "left"


def percent(rate: float | None) -> str:
    """A rate (a success share, pass^k, a mean reward) as every terminal table prints it: ``82.5%``."""
    return "n/a" if rate is None or rate != rate else f"{100 * rate:.1f}%"


def shorten_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` cells: its start, ``…`` and its end (the end a little longer), cut after a
    separator (``/ - _ . :`` or a space) when one is near, so whole name parts stay."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    keep = width - 1
    head, tail = keep // 2, keep - keep // 2
    start = text[:head]
    near = max((start.rfind(s) for s in "/-_.: "), default=-1)
    if near >= head - 4 and near > 0:  # end the start just after a separator, give the end what is left
        head = near + 1
        tail = keep - head
    short = text[:head] + ELLIPSIS + (text[len(text) - tail:] if tail > 0 else "")
    while cell_len(short) > width and tail > 0:  # wide characters: trim the end until it fits
        tail -= 1
        short = text[:head] + ELLIPSIS + (text[len(text) - tail:] if tail > 0 else "")
    return short


def _pieces(header: str) -> list[tuple[str, str]]:
    """A header's breakable pieces with the glue before each: words (joined by a space) and the parts of a
    hyphenated or snake_case word (``single-`` ``gold``, ``task_`` ``version``, joined by nothing)."""
    out: list[tuple[str, str]] = []
    for i, word in enumerate(header.split()):
        for j, part in enumerate(re.findall(r"[^-_]+[-_]+|[^-_]+|[-_]+", word)):
            out.append((part, "" if j else (" " if i else "")))
    return out


def wrap_header(header: str, width: int) -> str:
    """The header broken into lines of at most ``width`` cells, at spaces and after hyphens and underscores
    only."""
    lines: list[str] = []
    line = ""
    for part, glue in _pieces(header):
        joined = line + glue + part if line else part
        if line and cell_len(joined) > width:
            lines.append(line)
            line = part
        else:
            line = joined
    return "\n".join([*lines, line])


WHOLE_HEADERS_FROM = 120
"""From this width on, a header is never broken over lines: a column is left out before its header wraps (a
narrower terminal breaks headers at spaces, hyphens and underscores instead of leaving out more)."""


def _sizes(col: Col, cells: list[str], whole_header: bool = False) -> tuple[int, int, int]:
    """A column's narrowest width, the width its cells want, and the width its header wants too
    (``whole_header``: the narrowest width holds the header on one line)."""
    header_least = cell_len(col.header) if whole_header else max((cell_len(p) for p, _ in _pieces(col.header)),
                                                                 default=1)
    lines = [cell_len(line) for c in cells for line in c.splitlines() or [""]]
    cells_natural = max(lines, default=0)
    if col.fit == "whole":
        cells_least = cells_natural
    elif col.fit == "wrap":
        cells_least = max((cell_len(w) for c in cells for w in c.split()), default=0)
    else:
        cells_least = min(cells_natural, col.least)
    least = max(header_least, cells_least, 1)
    return least, max(least, cells_natural), max(least, cells_natural, cell_len(col.header))


def fit_table(width: int, cols: Sequence[Col], rows: Sequence[Sequence[str]],
              title: str | None = None) -> tuple[Table, list[str]]:
    """A rich table of ``rows`` at most ``width`` cells wide, and the headers of the columns left out."""
    cells = [[str(r[i]) for r in rows] for i in range(len(cols))]
    sizes = [_sizes(c, cells[i], width >= WHOLE_HEADERS_FROM) for i, c in enumerate(cols)]
    kept = list(range(len(cols)))

    def overhead(n: int) -> int:  # a padding cell each side of every column, the rules between and the edges
        return 3 * n + 1

    def room(i: int) -> int:  # a key name's cells are worth more than a minor column
        least, natural, _ = sizes[i]
        return max(least, min(natural, cols[i].room)) if cols[i].fit == "middle" and cols[i].rank == 0 else least

    while sum(room(i) for i in kept) + overhead(len(kept)) > width:
        droppable = [i for i in kept if cols[i].rank > 0]
        if not droppable:
            break
        kept.remove(max(droppable, key=lambda i: (cols[i].rank, i)))  # the highest rank, the rightmost of it
    widths = {i: sizes[i][0] for i in kept}
    spare = width - overhead(len(kept)) - sum(widths.values())
    for i in kept:  # key names first get their room, if there is any
        grow = max(0, min(spare, room(i) - widths[i]))
        widths[i] += grow
        spare -= grow
    def cells_whole(i: int) -> int:  # a name only to its room at first: the other columns' cells come first
        return min(sizes[i][1], max(widths[i], cols[i].room)) if cols[i].fit == "middle" else sizes[i][1]

    # room left goes to the most important first: cells, then long names, then headers on fewer lines
    for target in (cells_whole, lambda i: sizes[i][1], lambda i: sizes[i][2]):
        for i in sorted(kept, key=lambda i: (cols[i].rank, i)):
            grow = max(0, min(spare, target(i) - widths[i]))
            widths[i] += grow
            spare -= grow
    table = Table(
        *[Column(wrap_header(cols[i].header, widths[i]), width=widths[i], justify=cols[i].justify,
                 no_wrap=cols[i].fit != "wrap", overflow="fold") for i in kept],
        title=title,
    )
    for r, _ in enumerate(rows):
        table.add_row(*[
            Text(shorten_middle(cells[i][r], widths[i]) if cols[i].fit == "middle" else cells[i][r])
            for i in kept
        ])
    return table, [cols[i].header for i in range(len(cols)) if i not in kept]


def print_table(console: Console, cols: Sequence[Col], rows: Sequence[Sequence[str]], title: str | None = None,
                whole: str | None = None) -> list[str]:
    """Print ``rows`` fitted to the console's width; when columns are left out, one line under the table names
    them (and ``whole``: where the full table is, if it is written anywhere). Returns the left-out headers."""
    table, dropped = fit_table(console.width, cols, rows, title)
    console.print(table)
    if dropped:
        where = f"; {whole}" if whole else "; a wider terminal shows them"
        console.print(Text(f"left out at {console.width} columns: {', '.join(dropped)}{where}"))
    return dropped
