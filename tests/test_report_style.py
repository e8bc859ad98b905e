"""One style table and one palette for the report's figures (``loophole_report._style``): the band figure's
caption and markers come from the same table, a name has one colour whatever else a figure holds and in any
process, and a stack's legend lists it top first. Figures drawn in-process on small tables (no CLI: cheap)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pandas as pd

from loophole_report import _band_figure, _style
from loophole_report._figures import readings_figure
from tests.conftest import ROOT


def _trials() -> pd.DataFrame:
    """Two agents on four airline tasks, two trials each: rates that differ between the four points."""
    rows = []
    for agent in ("alpha", "beta"):
        for task in ("0", "3", "13", "27"):
            for trial in (0, 1):
                single = 1.0 if task in ("0", "3") else 0.0
                multi = 1.0 if task != "27" or agent == "beta" else 0.0
                rows.append({"agent_name": agent, "domain": "airline", "task_version": "tau2", "task_id": task,
                             "trial": trial, "reward": single, "multi_gold_reward": multi,
                             "multi_gold_upper": 1.0, "strict_reward": single if task == "0" else 0.0})
    return pd.DataFrame(rows)


def test_the_band_caption_and_markers_come_from_the_style_table(monkeypatch):
    multi = dataclasses.replace(_style.STYLE["multi"], colour="#00aa00", colour_name="green", marker="*",
                                shape="star")
    table = tuple(multi if s.name == "multi" else s for s in _style.BAND_STYLE)
    monkeypatch.setattr(_style, "BAND_STYLE", table)
    monkeypatch.setattr(_band_figure, "BAND_STYLE", table)
    block = _band_figure.band_figure(_trials())
    assert "multi-gold (green star)" in block["caption"] and "blue square" not in block["caption"]
    drawn = [p for p in block["data"]["points"] if p["point"] == "multi"]
    assert len(drawn) == 2 and all((p["marker"], p["colour"]) == ("*", "#00aa00") for p in drawn)
    assert block["data"]["legends"][0]["labels"][:4] == [s.label for s in table]


def test_the_band_figure_has_four_points_per_agent_and_a_fitted_axis():
    data = _band_figure.band_figure(_trials())["data"]
    assert sorted((p["agent"], p["point"]) for p in data["points"]) == sorted(
        (a, s.name) for a in ("alpha", "beta") for s in _style.BAND_STYLE)
    rates = {(p["agent"], p["point"]): p["rate"] for p in data["points"]}
    assert rates[("alpha", "strict")] == 0.25 and rates[("alpha", "single")] == 0.5
    assert rates[("alpha", "multi")] == 0.75 and rates[("beta", "multi")] == 1.0 and rates[("beta", "upper")] == 1.0
    assert all(p["ci_low"] <= p["rate"] <= p["ci_high"] for p in data["points"])
    low, high = data["xlim"]
    assert low <= min(p["ci_low"] for p in data["points"]) and high >= 1.0


def _readings(agents_readings: dict[str, list[str]]) -> pd.DataFrame:
    return pd.DataFrame([{"agent": a, "reading": r, "trials": 1 + i} for a, rs in agents_readings.items()
                         for i, r in enumerate(rs)])


def test_a_name_keeps_its_colour_beside_any_other_names():
    one = readings_figure(_readings({"alpha": ["gold", "L3L4.strict", "none"], "beta": ["L6.refuse"]}))["data"]
    two = readings_figure(_readings({"beta": ["L16.refuse", "L6.refuse", "gold", "L1.x", "L3L4.strict"]}))["data"]
    assert one["stack"].index("L3L4.strict") != two["stack"].index("L3L4.strict")  # positions differ
    for name in ("gold", "L3L4.strict", "L6.refuse"):
        assert one["colours"][name] == two["colours"][name] == _style.colour(name)
    assert one["agent_colours"]["beta"] == two["agent_colours"]["beta"]
    assert one["colours"]["gold"] == _style.STYLE["single"].colour  # the gold is the single gold's colour


def test_a_stack_s_legend_lists_it_top_first_outside_the_axes():
    data = readings_figure(_readings({"alpha": ["none", "L3L4.strict", "gold", "L16.refuse"]}))["data"]
    assert data["stack"] == ["gold", "L16.refuse", "L3L4.strict", "none"]
    (legend,) = data["legends"]
    assert legend["labels"] == data["stack"][::-1]
    (axes,) = data["axes_boxes"]
    box = legend["box"]
    assert box[0] >= axes[2] or box[2] <= axes[0] or box[1] >= axes[3] or box[3] <= axes[1]  # no overlap


def test_the_palette_is_the_same_in_another_process():
    names = ["L3L4.strict", "creative", "airline tau3", "gold"]
    code = f"from loophole_report._style import colour, hatch; print([(colour(n), hatch(n)) for n in {names!r}])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={"PYTHONHASHSEED": "123", "PATH": "", "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == str([(_style.colour(n), _style.hatch(n)) for n in names])
