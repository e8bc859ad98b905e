"""A user-controlled string is cut before it reaches the terminal: a results file whose tool name is about
1 MB (rich markup inside it) neither hangs ``harness rescore`` nor floods the terminal."""

from __future__ import annotations

import json

from loophole_base import cut
from tests.conftest import harness, real_run

NAME = "x[bold]1.0e5 " * 80_000  # ~1 MB: markup, a number and a space for rich's highlighter to chew on


def test_a_one_megabyte_tool_name_is_cut_in_rescore_output(tmp_path):
    data = json.loads(real_run("whissle_retail_tau3_5sims.json").read_text())
    calls = next(m["tool_calls"] for m in data["simulations"][0]["messages"] if m.get("tool_calls"))
    calls[0]["name"] = NAME
    (tmp_path / "huge.json").write_text(json.dumps(data))
    proc = harness("rescore", str(tmp_path / "huge.json"), "--out", str(tmp_path / "out"), timeout=180)
    assert proc.returncode == 0, proc.stderr[-2000:]
    everything = proc.stdout + proc.stderr
    assert len(everything) < 20_000  # the 1 MB name is not printed
    note = next(line for line in proc.stdout.splitlines() if "tools the retail domain does not have" in line)
    assert f"… ({len(NAME):,} characters) (1)" in note  # cut, with the original length, then its count
    assert NAME[:150] in note  # printed as it is: rich did not read [bold] as markup


def test_cut_keeps_short_strings_and_shows_control_characters():
    assert cut("short") == "short"
    assert cut("a" * 250) == "a" * 200 + "… (250 characters)"
    assert cut("tab\there") == repr("tab\there")
