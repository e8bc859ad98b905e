"""Offline with only τ²'s task data: a τ²-only sweep, its report and a rescore ask for no other version's data
(they say which is missing where it would have been used), and detection never prints a false count."""

from __future__ import annotations

import re
import shutil

import yaml

from tests.conftest import ROOT, TAU_DATA, harness, real_run


def test_a_tau2_only_run_reports_offline_with_only_tau2_data(isolated_data, monkeypatch):
    tmp = isolated_data
    shutil.copytree(TAU_DATA / "tau2", tmp / "data" / "tau2")  # τ² only: no τ³, no Verified
    monkeypatch.setenv("HARNESS_TAU_DATA", str(tmp / "data"))
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(agents=demo["agents"][:1], tasks=["0", "2", "14"], trials=1, output=str(tmp / "run"))
    (tmp / "demo.yaml").write_text(yaml.safe_dump(demo))
    proc = harness("sweep", str(tmp / "demo.yaml"))
    assert proc.returncode == 0, proc.stderr[-2000:]

    proc = harness("report", str(tmp / "run"), "--out", str(tmp / "report.html"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = (tmp / "report.html").read_text()
    assert "airline: τ³ data not available here, so the versions&#x27; golds are not compared" in html.replace(
        "&#39;", "&#x27;")
    assert not (tmp / "cache" / "tau-harness" / "tau3").exists()  # nothing fetched or cached for τ³
    # the page's notes say in one sentence what was missing and point to the docs, never the raw download error
    notes = re.search(r'<ul class="notes">(.*?)</ul>', html, re.S)
    assert notes and "overlap test skipped for airline: τ³&#39;s task data could not be read here (docs/data.md)" in (
        notes.group(1).replace("&#x27;", "&#39;"))
    assert "http" not in notes.group(1) and "tasks.json" not in notes.group(1)

    proc = harness("rescore", str(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json")), "--out",
                   str(tmp / "rescored"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("aide_claude-sonnet-4-5_airline_tau2_1trial"))
    assert "tau2 50/50, τ³ data not available, Verified data not available" in line, line
    assert "differ from tau3" not in proc.stdout and "differ from verified" not in proc.stdout
