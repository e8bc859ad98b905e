"""Regenerate the README's screenshot of the report (docs/img/report.png) from the reduced offline demo, and
write the numbers its figures draw beside it (docs/img/report-figures.json).

    python docs/img/regenerate.py [WORK_DIR]

It runs the reduced demo (``tests/conftest.py``'s ``reduced_demo_config``, the run ``offline_demo_run`` tests
use), ``harness report`` on it, and a 1280 px screenshot of the page's top through the band figure in headless
Chromium. ``tests/e2e/test_report_layout.py`` fails when the demo's figures no longer draw these numbers: run
this again then, and commit both files.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
CHROMIUM = "/usr/bin/chromium"


def band_numbers(figures: dict) -> list[dict]:
    """The band figure's points as numbers only (what the drift test compares): agent, point, rate, interval."""
    keys = ("agent", "point", "rate", "ci_low", "ci_high")
    return [{k: p[k] for k in keys} for p in figures["band"]["points"]]


def main() -> None:
    import yaml
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT))
    from loophole_report import figure_data
    from tests.conftest import reduced_demo_config

    work = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="readme-shot-"))
    work.mkdir(parents=True, exist_ok=True)
    config = work / "demo.yaml"
    config.write_text(yaml.safe_dump(reduced_demo_config(work / "demo")))
    harness = [sys.executable, "-m", "harness.cli.main"]
    subprocess.run([*harness, "sweep", str(config)], check=True, cwd=ROOT)
    report = work / "report.html"
    subprocess.run([*harness, "report", str(work / "demo"), "--out", str(report)], check=True, cwd=ROOT)
    figures = figure_data(report.read_text(encoding="utf-8"))
    (HERE / "report-figures.json").write_text(json.dumps({"band": band_numbers(figures)}, indent=1) + "\n")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM)
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        page.goto(report.as_uri())
        bottom = page.evaluate("document.querySelector('figure[data-figure=band]').getBoundingClientRect().bottom")
        page.screenshot(path=str(HERE / "report.png"), clip={"x": 0, "y": 0, "width": 1280, "height": bottom + 16},
                        full_page=True)
        browser.close()
    print(f"wrote {HERE / 'report.png'} and {HERE / 'report-figures.json'} from {work / 'demo'}")


if __name__ == "__main__":
    main()
