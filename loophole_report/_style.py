"""One style for every report: the band's four points (name -> colour, marker, label) and a palette keyed by
name, so the gold, a reading, an agent or a run has the same colour in every report, whatever else it holds.

The band's points and the gold are fixed; any other name takes a colour and a hatch from the sha256 of the name
(never from its position in the current report: a reading is the same colour beside any other set of readings).
Captions and legends read their words from this table, so what a caption says is what the figure draws.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


@dataclass(frozen=True)
class PointStyle:
    """How one point of the band is drawn and named: ``colour_name`` is the caption's word for ``colour``,
    ``shape`` its word for ``marker``; ``offset`` the point's place within its agent's row (rows are 1 apart),
    so no marker hides another where two rates are equal."""

    name: str
    label: str
    colour: str
    colour_name: str
    marker: str
    shape: str
    filled: bool
    offset: float


# The band, lowest bound first: the order it is drawn in (top to bottom in each agent's row) and listed in.
BAND_STYLE: tuple[PointStyle, ...] = (
    PointStyle("strict", "strict", "#555555", "grey", "D", "diamond", True, -0.27),
    PointStyle("single", "single gold", "#d62728", "red", "o", "circle", True, -0.09),
    PointStyle("multi", "multi-gold", "#1f77b4", "blue", "s", "square", True, 0.09),
    PointStyle("upper", "upper: counting uncertain credits", "#000000", "black", "^", "triangle", False, 0.27),
)
STYLE = {p.name: p for p in BAND_STYLE}
BAND_RANGE_COLOUR, BAND_RANGE_NAME = "#e4e4e4", "light grey"
# An order between two runs that resampling the tasks does not settle (the rank figure's brackets)
UNCERTAIN_COLOUR, UNCERTAIN_NAME = "#999999", "grey"

# Names with a colour of their own in every report: the band's points, and in a figure of readings the gold
# (the single gold: the band's single-gold red) and "none" (matched no gold).
FIXED = {p.name: p.colour for p in BAND_STYLE} | {"gold": STYLE["single"].colour, "none": "#b0b0b0"}

# Colours for every other name (readings, agents, runs, task versions), none of them near a fixed colour; with a
# hatch from another part of the digest, two names rarely share both.
COLOURS = (
    "#008856", "#875692", "#f38400", "#882d17", "#e68fac", "#604e97", "#b3446c", "#8db600", "#654522",
    "#0095a8", "#c9a100", "#2b3d26", "#9e9ac8", "#e25822",
)  # after Kelly's colours of maximum contrast, less those near a fixed colour (red, blue, grey, black)
HATCHES = ("", "//", "..", "xx")


def _digest(name: str) -> bytes:
    return hashlib.sha256(name.encode("utf-8")).digest()


def colour(name: str) -> str:
    """The colour of ``name`` in every report."""
    if name in FIXED:
        return FIXED[name]
    return COLOURS[int.from_bytes(_digest(name)[:4], "big") % len(COLOURS)]


def hatch(name: str) -> str:
    """The hatch of ``name``'s bars in every report (none for a fixed name)."""
    if name in FIXED:
        return ""
    return HATCHES[int.from_bytes(_digest(name)[4:8], "big") % len(HATCHES)]


def point_key() -> str:
    """The band's markers in words, from ``BAND_STYLE``: 'strict (grey diamond), single gold (red circle), …'."""
    return ", ".join(
        f"{p.label} ({p.colour_name}{'' if p.filled else ' open'} {p.shape})" for p in BAND_STYLE
    )
