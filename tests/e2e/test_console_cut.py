"""Every string a verb prints is cut (#34, item 4): the console every verb prints through cuts a megabyte-long
line at once and prints markup in it as text; a megabyte-long message in a results file does not hang
``harness explain``, whose conversation lines are the users' own text."""

from __future__ import annotations

import io
import json
import time

from harness.cli._console import LINE_LIMIT, CutConsole
from tests.conftest import harness, real_run

HUGE = "[bold]not markup[/bold] " + "x" * 1_000_000


def test_the_console_cuts_a_megabyte_line_quickly():
    out = io.StringIO()
    console = CutConsole(file=out, width=200)
    started = time.monotonic()
    console.print(f"note: {HUGE}", soft_wrap=True, markup=False)
    assert time.monotonic() - started < 5
    text = out.getvalue()
    assert "[bold]not markup[/bold]" in text and len(text) < LINE_LIMIT + 100
    assert f"({len('note: ' + HUGE):,} characters)" in text


def test_explain_prints_a_megabyte_message_cut(tmp_path):
    data = json.loads(real_run("whissle_retail_tau3_5sims.json").read_text())
    sim = data["simulations"][0]
    message = next(m for m in sim["messages"] if m.get("role") == "assistant" and m.get("content"))
    message["content"] = HUGE
    edited = tmp_path / "huge.json"
    edited.write_text(json.dumps(data))
    run = tmp_path / "run"
    proc = harness("rescore", str(edited), "--out", str(run), timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    import pandas as pd

    stored = pd.read_parquet(run / "trials.parquet", columns=["messages_json"]).messages_json
    assert stored.str.len().max() > 1_000_000  # the run holds the megabyte the verb must not print
    started = time.monotonic()
    proc = harness("explain", str(run), sim["id"], timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert time.monotonic() - started < 120
    assert len(proc.stdout) < 200_000  # the megabyte is not printed
