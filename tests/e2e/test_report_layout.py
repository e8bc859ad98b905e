"""The report as a reader sees it at 1280 px in headless Chromium: figures at the page's width, the band drawn
whole (four points per agent with their intervals, every marker visible, the axis fitted), one palette in every
report, legends in stack order outside the axes, a single agent's own layout, a glossary of the page's terms,
notes of one sentence, and the README's screenshot drawing the demo's numbers.

Two reports through the CLI: the reduced offline demo's (three agents) and one agent's alone (the demo's
creative agent, copied into a run of its own)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pandas as pd
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from analysis import bootstrap_ci, task_clusters
from loophole_report import figure_data
from loophole_report._style import BAND_STYLE
from tests.conftest import ROOT, harness

ALONE = "creative"  # the agent of the single-agent report: not the demo's first (its colour is not positional)
README_FIGURES = ROOT / "docs" / "img" / "report-figures.json"


def _report(run_dir: Path, out: Path) -> Path:
    proc = harness("report", str(run_dir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out


@pytest.fixture(scope="module")
def demo_report(offline_demo_run, tmp_path_factory) -> Path:
    run_dir, _ = offline_demo_run
    return _report(run_dir, tmp_path_factory.mktemp("layout") / "report.html")


@pytest.fixture(scope="module")
def alone_report(offline_demo_run, tmp_path_factory) -> Path:
    """The demo's creative agent as a run of its own: its trials and their scores."""
    run_dir, _ = offline_demo_run
    run = tmp_path_factory.mktemp("alone") / "creative"
    run.mkdir()
    trials = pq.read_table(run_dir / "trials.parquet").filter(pc.field("agent_name") == ALONE)
    pq.write_table(trials, run / "trials.parquet")
    scores = pq.read_table(run_dir / "scores.parquet")
    pq.write_table(scores.filter(pc.is_in(scores["trajectory_id"], trials["trajectory_id"])), run / "scores.parquet")
    return _report(run, run.parent / "report.html")


def _expected_band(trials: pd.DataFrame) -> dict[tuple[str, str], tuple[float, float, float]]:
    """Each agent's four rates and their intervals, from the trials: scored rows, a pass is a reward of 1."""
    out = {}
    for agent, g in trials[trials.reward.notna()].groupby("agent_name"):
        upper = g.multi_gold_upper.fillna(g.multi_gold_reward)
        for point, values in (("strict", g.strict_reward), ("single", g.reward), ("multi", g.multi_gold_reward),
                              ("upper", upper)):
            success = (values.fillna(0).to_numpy(dtype=float) >= 1 - 1e-6).astype(float)
            low, high = bootstrap_ci(success, task_clusters(g), 2000, 42)
            out[(agent, point)] = (float(success.mean()), low, high)
    return out


def test_the_band_figure_draws_four_points_per_agent_with_intervals_on_a_fitted_axis(offline_demo_run, demo_report):
    band = figure_data(demo_report.read_text())["band"]
    expected = _expected_band(pd.read_parquet(offline_demo_run[0] / "trials.parquet"))
    drawn = {(p["agent"], p["point"]): p for p in band["points"]}
    assert set(drawn) == set(expected) and len({a for a, _ in drawn}) == 3  # four points for each of three agents
    style = {s.name: s for s in BAND_STYLE}
    for key, (rate, low, high) in expected.items():
        p = drawn[key]
        assert (p["rate"], p["ci_low"], p["ci_high"]) == pytest.approx((rate, low, high)), key
        assert (p["marker"], p["colour"]) == (style[key[1]].marker, style[key[1]].colour)
    for agent in band["agents"]:  # every marker visible: each point of a row at its own height, a distinct shape
        mine = [p for p in band["points"] if p["agent"] == agent]
        assert len({p["y"] for p in mine}) == len({p["marker"] for p in mine}) == 4
    lows = [p["ci_low"] for p in band["points"]] + [p["rate"] for p in band["points"]]
    highs = [p["ci_high"] for p in band["points"]] + [p["rate"] for p in band["points"]]
    x0, x1 = band["xlim"]
    assert x0 <= min(lows) and x1 >= max(highs)  # nothing drawn off the axis
    assert min(lows) - x0 < 0.1 and x1 - max(highs) < 0.1, band["xlim"]  # and no empty stretch of it


def test_the_readme_screenshot_draws_the_demo_s_numbers(offline_demo_run, demo_report):
    """docs/img/report.png and report-figures.json come from docs/img/regenerate.py on the same reduced demo:
    when the demo's band moves, this fails until they are regenerated."""
    shot = json.loads(README_FIGURES.read_text())["band"]
    drawn = {(p["agent"], p["point"]): p for p in figure_data(demo_report.read_text())["band"]["points"]}
    expected = _expected_band(pd.read_parquet(offline_demo_run[0] / "trials.parquet"))
    assert {(p["agent"], p["point"]) for p in shot} == set(expected) == set(drawn)
    for p in shot:
        key = (p["agent"], p["point"])
        assert (p["rate"], p["ci_low"], p["ci_high"]) == pytest.approx(expected[key]), (key, "regenerate the "
                                                                                          "README screenshot")
        assert p["rate"] == pytest.approx(drawn[key]["rate"])


def test_one_palette_keyed_by_name_in_two_reports(demo_report, alone_report):
    demo, alone = figure_data(demo_report.read_text()), figure_data(alone_report.read_text())
    shared = set(demo["readings"]["colours"]) & set(alone["readings"]["colours"])
    # the single agent's readings are a different set, so a colour by position would move
    assert shared and demo["readings"]["stack"] != alone["readings"]["stack"]
    assert {r: demo["readings"]["colours"][r] for r in shared} == {r: alone["readings"]["colours"][r] for r in shared}
    assert demo["readings"]["colours"]["gold"] == alone["readings"]["colours"]["gold"]
    for name in ("band", "readings"):
        assert demo[name]["agent_colours"][ALONE] == alone[name]["agent_colours"][ALONE], name
    assert {(p["point"], p["colour"]) for p in demo["band"]["points"]} == {
        (p["point"], p["colour"]) for p in alone["band"]["points"]}


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def test_legends_follow_the_stacks_and_cover_no_bar(demo_report, alone_report):
    for report in (demo_report, alone_report):
        figures = figure_data(report.read_text())
        readings = figures["readings"]
        (legend,) = readings["legends"]
        assert legend["labels"] == readings["stack"][::-1]  # top of the stack first, as drawn
        stack = readings["stack"]
        assert stack[0] == "gold" and ("none" not in stack or stack[-1] == "none")  # the gold at the bottom
        for name, data in figures.items():
            for leg in data["legends"]:
                assert not any(_overlap(leg["box"], ax) for ax in data["axes_boxes"]), (report.name, name)
                assert leg["box"][0] >= 0 and leg["box"][2] <= data["width_px"], (name, "legend cut")
        band = figures["band"]
        assert band["legends"][0]["labels"][:4] == [s.label for s in BAND_STYLE]  # the rows' order, top first


def test_a_single_agent_gets_compact_figures(demo_report, alone_report):
    demo, alone = figure_data(demo_report.read_text()), figure_data(alone_report.read_text())
    assert all(d["width_px"] >= 1100 for d in demo.values())
    assert {"success", "band", "readings", "heatmap"} <= set(alone)
    assert all(d["width_px"] <= 700 for d in alone.values()), {k: d["width_px"] for k, d in alone.items()}
    assert 'class="compact" data-figure="band"' in alone_report.read_text()


def _caption(page: str, name: str) -> str:
    m = re.search(rf'data-figure="{name}">.*?<figcaption>(.*?)</figcaption>', page, re.S)
    assert m, name
    return m.group(1).replace("&#39;", "'")


def test_the_band_caption_names_the_markers_it_draws(demo_report):
    caption = _caption(demo_report.read_text(), "band")
    for s in BAND_STYLE:
        assert f"{s.label} ({s.colour_name}{'' if s.filled else ' open'} {s.shape})" in caption


def _parts(page: str) -> tuple[str, list[str], list[str]]:
    """The page's words outside the glossary and the notes, the glossary's terms, and the notes."""
    glossary = re.search(r'<div id="glossary">.*?</div>', page, re.S)
    notes = re.search(r'<ul class="notes">.*?</ul>', page, re.S)
    assert glossary and notes
    terms = [html.unescape(t) for t in re.findall(r"<dt>(.*?)</dt>", glossary.group(0))]
    lines = [html.unescape(n) for n in re.findall(r"<li>(.*?)</li>", notes.group(0), re.S)]
    rest = page.replace(glossary.group(0), " ").replace(notes.group(0), " ")
    rest = re.sub(r"<(script|style)\b.*?</\1>", " ", rest, flags=re.S)
    return html.unescape(re.sub(r"<[^>]+>", " ", rest)), terms, lines


# The page's own words for its ideas (written by hand): each must be defined in the glossary when used
JARGON = {"flip": r"\bflips?\b", "cell": r"\bcells?\b", "upper": r"\bupper\b|counting uncertain",
          "strict": r"\bstrict\b", "single gold": r"single[ -]gold", "multi-gold": r"multi-gold",
          "reading": r"\breadings?\b", "band": r"\bband\b", "loophole task": r"loophole tasks?",
          "uncertain credit": r"uncertain credits?", "pass^k": r"pass\^k", "broken gold": r"broken golds?",
          "do-nothing ceiling": r"do-nothing ceiling", "95% CI": r"95% CI"}


@pytest.mark.parametrize("which", ["demo", "alone"])
def test_the_glossary_defines_each_term_the_page_uses(which, demo_report, alone_report):
    words, terms, _ = _parts((demo_report if which == "demo" else alone_report).read_text())
    used = {term for term, pattern in JARGON.items() if re.search(pattern, words, re.I)}
    assert {"flip", "cell", "upper", "strict"} <= used
    assert used <= set(terms), sorted(used - set(terms))
    assert set(terms) <= used, "the glossary defines a term the page does not use"


def test_the_notes_are_one_sentence_each(demo_report):
    _, _, notes = _parts(demo_report.read_text())
    assert notes
    for note in notes:
        assert "http" not in note and len(note) < 160, note
        assert not re.search(r"[.;:]\s+[A-Z]", note), note  # one sentence
    assert "docs/report.md" in demo_report.read_text()


def test_report_layout_in_chromium(offline_demo_run, demo_report, page):
    run_dir, _ = offline_demo_run
    page.goto(demo_report.as_uri())
    page.wait_for_function("document.body.hasAttribute('data-images')")

    sizes = page.evaluate("[...document.querySelectorAll('figure img')].map(i => [i.clientWidth, i.naturalWidth])")
    assert sizes and all(shown >= 1100 and natural >= 1100 for shown, natural in sizes), sizes
    captions = page.locator("#success figcaption").all_inner_texts()
    assert any(c.startswith("The band per agent, top to bottom in each row") for c in captions)
    assert "strict ≤ single ≤ multi ≤ upper" in page.inner_text("body > p")

    # flips: expected from trials.parquet, one group per (domain, version, task, golds matched)
    trials = pd.read_parquet(run_dir / "trials.parquet")
    flipped = trials[(trials.reward == 0) & (trials.multi_gold_reward == 1)]
    groups = {(r.domain, r.task_version, r.task_id, ",".join(r.matched_gold_ids)) for r in flipped.itertuples()}
    items = page.locator("#flips ol.flips > li").all_inner_texts()
    assert len(flipped) > len(items) == len(groups) > 0
    assert sum(int(i.split(" ", 1)[0]) for i in items) == len(flipped)
    assert f"{len(flipped)} flips, grouped by task" in page.inner_text("#flips")

    body = page.inner_text("body")
    assert "no comparison between versions" not in body
    for section in page.locator("section[id]:not(#left-out)").all():
        content = section.locator(":scope > :not(h2):not(p.undefined)").count()
        assert content > 0, section.get_attribute("id")  # a section is more than its reason
    assert page.problems == []
