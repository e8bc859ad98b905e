"""The report as a reader sees it at 1280 px in headless Chromium: figures at the page's width, the band drawn
as a range per agent, flips grouped by task and reading, no contradiction, no section that is only a stub."""

from __future__ import annotations

import pandas as pd

from tests.conftest import harness


def test_report_layout_in_chromium(offline_demo_run, tmp_path, page):
    run_dir, _ = offline_demo_run
    out = tmp_path / "report.html"
    proc = harness("report", str(run_dir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    page.goto(out.as_uri())
    page.wait_for_function("document.body.hasAttribute('data-images')")

    sizes = page.evaluate("[...document.querySelectorAll('figure img')].map(i => [i.clientWidth, i.naturalWidth])")
    assert sizes and all(shown >= 1100 and natural >= 1100 for shown, natural in sizes), sizes
    captions = page.locator("#success figcaption").all_inner_texts()
    assert any(c.startswith("The band per agent, top to bottom in each row") for c in captions)

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
