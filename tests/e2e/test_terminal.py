"""A terminal that fits (#42, item 3), through the CLI at 80 and 120 columns (``$COLUMNS``): every table line
fits, no cell is cut to ``x…``, every kept column's header is whole and every left-out one is named under its
table, long names are shortened in the middle; the sweep's progress line says its phase and the real elapsed
time, a resume says what it kept; Ctrl-C stops ``view --serve`` with exit 0; help text is not broken
mid-sentence. Runs already made are reused: the shared offline demo sweep and one five-trajectory rescore."""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from pathlib import Path

import pytest
import yaml
from rich.cells import cell_len

from tests.conftest import SHARED, harness, real_run

RETAIL5 = "whissle_retail_tau3_5sims.json"
LONG_NAME = "anthropic/claude-3-7-sonnet-20250219-thinking-high"
WIDTHS = (80, 120)


def _at(width: int) -> dict[str, str]:
    return {**os.environ, "COLUMNS": str(width)}


def _tables(text: str) -> list[tuple[list[str], list[list[str]], str | None]]:
    """Each box table printed in ``text``: its headers (the header cells' lines joined), its rows' cells, and
    the ``left out at …`` line under it (None when every column is there)."""
    lines = text.splitlines()
    found = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("┏"):
            i += 1
            continue
        header_lines = []
        i += 1
        while lines[i].startswith("┃"):
            header_lines.append([c.strip() for c in lines[i].strip("┃").split("┃")])
            i += 1
        headers = []
        for column in zip(*header_lines, strict=True):
            parts = [p for p in column if p]
            text_ = ""
            for p in parts:  # a header broken after a space, a hyphen or an underscore
                text_ += p if not text_ or text_.endswith(("-", "_")) else " " + p
            headers.append(text_)
        rows = []
        while not lines[i].startswith("└"):
            if lines[i].startswith("│"):
                rows.append([c.strip() for c in lines[i].strip("│").split("│")])
            i += 1
        note = None
        j = i + 1
        if j < len(lines) and lines[j].startswith("left out at "):
            note = lines[j].rstrip()
            while not note.rstrip().endswith(("column", "them")) and j + 1 < len(lines):
                j += 1  # the note wraps at the terminal's width
                note += " " + lines[j].strip()
            note = note.rstrip()
        found.append((headers, rows, note))
        i += 1
    return found


def _check_tables(stdout: str, width: int, expected_headers: set[str] | None = None) -> list:
    """The shared checks: lines fit, no cell cut at its end, kept headers whole, left-out ones named."""
    boxes = [line for line in stdout.splitlines() if line[:1] in "┏┃┡│└"]
    assert all(cell_len(line) <= width for line in boxes), [line for line in boxes if cell_len(line) > width][:3]
    if width >= 120:  # a header is never broken over lines there: a column is left out first (#48)
        starts = [i for i, line in enumerate(boxes) if line.startswith("┏")]
        assert all(boxes[i + 1].startswith("┃") and boxes[i + 2].startswith("┡") for i in starts), boxes[:6]
    tables = _tables(stdout)
    assert tables, stdout[-2000:]
    for headers, rows, note in tables:
        for row in rows:
            assert not any(c.endswith("…") for c in row), (headers, row)
        assert not any("…" in h for h in headers), headers
        if expected_headers is not None:
            assert set(headers) <= expected_headers, set(headers) - expected_headers
            left_out = _named(note, expected_headers)
            assert set(headers) | left_out == expected_headers, (headers, note)
            assert not set(headers) & left_out, (headers, note)
    return tables


def _named(note: str | None, headers: set[str]) -> set[str]:
    """The headers a ``left out at N columns: A, B; …`` line names (and nothing else is listed)."""
    if note is None:
        return set()
    listed = note.split(": ", 1)[1].rsplit("; ", 1)[0]
    named = set()
    for h in sorted(headers, key=len, reverse=True):  # "non-loophole" before "loophole"
        if h in listed:
            named.add(h)
            listed = listed.replace(h, "", 1)
    assert listed.replace(",", "").strip() == "", (note, listed)
    return named


def _shortened_in_the_middle(cell: str, name: str) -> bool:
    if cell == name:
        return True
    head, sep, tail = cell.partition("…")
    return bool(sep) and len(head) >= 4 and len(tail) >= 4 and name.startswith(head) and name.endswith(tail)


# --- the leaderboard ---------------------------------------------------------------------------------------

BOARD_HEADERS = {
    "rank multi", "rank single", "Δ", "name", "traj.", "tasks", "pass^1: strict ≤ single ≤ multi ≤ upper",
    "do-nothing", "gain (pts, 95% CI)", "loophole", "non-loophole", "explained", "judge", "status", "source",
}


@pytest.mark.parametrize("width", WIDTHS)
def test_the_leaderboard_fits_and_shortens_a_long_name_in_the_middle(tmp_path, width):
    source = real_run(RETAIL5)
    (tmp_path / "manifest.yaml").write_text(yaml.safe_dump({"runs": {source.name: {"name": LONG_NAME}}}))
    proc = harness("leaderboard", str(source), "--out", str(tmp_path / "lb"), "--manifest",
                   str(tmp_path / "manifest.yaml"), env=_at(width))
    assert proc.returncode == 0, proc.stderr[-2000:]
    [(headers, rows, note)] = _check_tables(proc.stdout, width, BOARD_HEADERS)
    assert {"rank multi", "name", "pass^1: strict ≤ single ≤ multi ≤ upper", "status"} <= set(headers)
    name = rows[0][headers.index("name")]
    assert _shortened_in_the_middle(name, LONG_NAME) and name != LONG_NAME, name  # 51 characters: too long here
    assert rows[0][headers.index("pass^1: strict ≤ single ≤ multi ≤ upper")].count("≤") == 3
    assert note is not None and "leaderboard.md has every column" in note  # 15 columns do not fit 120


def test_the_leaderboard_keeps_every_column_where_the_width_allows(tmp_path):
    proc = harness("leaderboard", str(real_run(RETAIL5)), "--out", str(tmp_path / "lb"), env=_at(250))
    assert proc.returncode == 0, proc.stderr[-2000:]
    [(headers, _, note)] = _check_tables(proc.stdout, 250, BOARD_HEADERS)
    assert note is None and set(headers) == BOARD_HEADERS


RANK_HEADERS = {
    "rank multi", "rank single", "rank strict", "rank loophole-free", "name", "multi", "single", "strict",
    "loophole-free", "multi order holds over the row below", "single order holds over",
}
GROK = sorted((SHARED / "dev-corpus" / "runs").glob("*2025-10-13T11_[34]*_airline_llm_agent_grok-*.json"))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_ranks_with_their_uncertainty_fit(tmp_path, width):
    """Three runs of one task set: the board and the ranks table under it both fit, and the ranks table keeps
    its key columns and the multi order's share."""
    proc = harness("leaderboard", *map(str, GROK), "--out", str(tmp_path / "lb"), env=_at(width))
    assert proc.returncode == 0, proc.stderr[-2000:]
    tables = _check_tables(proc.stdout, width)
    (headers, rows, note), = [t for t in tables if "multi order holds over the row below" in t[0]]
    assert {"rank multi", "rank single", "name"} <= set(headers) <= RANK_HEADERS
    assert set(headers) | _named(note, RANK_HEADERS) == RANK_HEADERS
    runs = [row for row in rows if row[headers.index("name")]]  # a wrapped cell's next lines have no name
    assert len(runs) == 3 and runs[-1][headers.index("multi order holds over the row below")] == "-"


# --- rescore, analyze and view on one small rescore ----------------------------------------------------------

RESCORE_HEADERS = {"file", "domain", "version", "agent", "count", "recorded", "single-gold", "multi-gold", "upper",
                   "disagreements"}


@pytest.fixture(scope="module")
def rescored(tmp_path_factory) -> dict[int, tuple[Path, str]]:
    """The five-trajectory retail run rescored at each width, its file renamed to a long name: the run
    directory and what the rescore printed."""
    tmp = tmp_path_factory.mktemp("terminal")
    long_file = tmp / f"{LONG_NAME.replace('/', '_')}_retail_tau3_5sims.json"
    shutil.copy(real_run(RETAIL5), long_file)
    out = {}
    for width in WIDTHS:
        proc = harness("rescore", str(long_file), "--out", str(tmp / f"run{width}"), env=_at(width))
        assert proc.returncode == 0, proc.stderr[-2000:]
        out[width] = (tmp / f"run{width}", proc.stdout)
    return out


@pytest.mark.parametrize("width", WIDTHS)
def test_the_rescore_table_fits(rescored, width):
    _, stdout = rescored[width]
    [(headers, rows, _)] = _check_tables(stdout, width, RESCORE_HEADERS)
    assert {"file", "single-gold", "multi-gold"} <= set(headers)
    assert rows[0][headers.index("single-gold")].endswith("%")  # a rate, as every table prints one
    cell = rows[0][headers.index("file")]
    assert _shortened_in_the_middle(cell, f"{LONG_NAME.replace('/', '_')}_retail_tau3_5sims.json"), cell


@pytest.mark.parametrize("width", WIDTHS)
def test_the_analysis_tables_fit(rescored, width):
    run, _ = rescored[width]
    proc = harness("analyze", str(run), "--bootstrap", "100", env=_at(width))
    assert proc.returncode == 0, proc.stderr[-2000:]
    tables = _check_tables(proc.stdout, width)
    assert len(tables) >= 5
    for _, _, note in tables:
        assert note is None or "--out writes every column" in note
    band = next(rows for headers, rows, _ in tables if headers[-1:] == ["band"] and "upper" in headers)
    assert all(row[-1].count("≤") == 2 for row in band)  # the band whole, on one line


def test_ctrl_c_stops_view_serve_with_exit_0_and_one_line(rescored, tmp_path):
    run, _ = rescored[80]
    proc = harness("view", str(run), "--out", str(tmp_path / "site"), "--serve", "--port", "0", background=True)
    lines = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        lines.append(line)
        if line.startswith("serving ") or not line:
            break
    assert lines[-1].startswith("serving "), lines
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    assert err.strip() == "", err[-2000:]
    assert out.splitlines() == ["stopped serving"], out


# --- the sweep: its tables, its resume line, its progress line ----------------------------------------------

SWEEP_HEADERS = {"agent", "domain", "version", "trials", "single-gold", "multi-gold", "agent failures",
                 "infra errors", "errors", "unscored"}


@pytest.mark.parametrize("width", WIDTHS)
def test_a_finished_sweep_resumed_says_what_it_kept_and_its_tables_fit(offline_demo_run, tmp_path, width):
    """The shared demo run copied (its users only read it): running its sweep again starts nothing."""
    run, _ = offline_demo_run
    copy = tmp_path / "demo"
    shutil.copytree(run, copy)
    config = yaml.safe_load((run.parent / "demo.yaml").read_text())
    config["output"] = str(copy)
    (tmp_path / "demo.yaml").write_text(yaml.safe_dump(config))
    proc = harness("sweep", str(tmp_path / "demo.yaml"), env=_at(width))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"resuming: 108 of 108 trials kept from {copy}; 0 to run" in " ".join(proc.stderr.split())
    summary, by_agent, per_task = _check_tables(proc.stdout, width)
    assert set(summary[0]) <= SWEEP_HEADERS and {"agent", "single-gold", "multi-gold"} <= set(summary[0])
    assert set(summary[0]) | _named(summary[2], SWEEP_HEADERS) == SWEEP_HEADERS
    assert {"agent", "single-gold", "multi-gold"} <= set(by_agent[0])
    assert per_task[0][0] == "task" and len(per_task[1]) == 14


def test_the_finished_progress_line_shows_the_sweeps_real_time(offline_demo_run):
    """The shared demo sweep as it ran (Ray's start and 108 trials: well over five seconds)."""
    _, ran = offline_demo_run
    *phases, line = [line for line in ran.stderr.splitlines() if " elapsed " in line]
    # piped, each phase was a line of its own as it began (not 15 s of silence, #48), the last one "done"
    assert [p.split("  ")[0] for p in phases[:4]] == ["preparing", "starting Ray", "starting workers", "running"]
    match = re.match(r"done\s+━*\s*108/108\s+elapsed (\d+):(\d\d):(\d\d)", line)
    assert match, line
    hours, minutes, seconds = map(int, match.groups())
    assert 3600 * hours + 60 * minutes + seconds >= 5, line
    assert "failures: agent 0, infra 0, other 0" in line and "trials/min" in line


# --- help ------------------------------------------------------------------------------------------------


def _panel_descriptions(help_text: str) -> dict[str, list[str]]:
    """The commands panel of a help screen: each command's description lines."""
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("╭─ Commands"))
    body = []
    for line in lines[start + 1:]:
        if line.startswith("╰"):
            break
        body.append(line.strip()[1:-1])
    column = re.match(r"\s*\S+\s+", body[0]).end()
    out: dict[str, list[str]] = {}
    for line in body:
        if line[:column].strip():
            name = line[:column].strip()
            out[name] = []
        out[name].append(line[column:].rstrip())
    return out


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("verb", [[], ["audit"]], ids=["harness", "audit"])
def test_help_descriptions_fill_their_lines(verb, width):
    """A line ends only where the next word would not fit on it (the docstrings' own line breaks are gone)."""
    proc = harness(*verb, "--help", env=_at(width))
    assert proc.returncode == 0, proc.stderr
    panel = _panel_descriptions(proc.stdout)
    room = max(len(line) for lines in panel.values() for line in lines)
    assert len(panel) >= 3
    for name, lines in panel.items():
        for line, after in zip(lines, lines[1:], strict=False):
            assert len(line) + 1 + len(after.split()[0]) > room, (name, line, after)


# --- the versions tables -------------------------------------------------------------------------------------


@pytest.mark.parametrize("width", WIDTHS)
def test_versions_tables_fit(width):
    """``versions readings`` and ``counts``: task ids and counts whole (a squeezed key column once printed "1"
    for 13 and 14), the versions' verdict kept, a reading left out only where it is named under the table."""
    from gold_variants import readings_by_version

    readings = harness("versions", "readings", "--domain", "airline", env=_at(width))
    assert readings.returncode == 0, readings.stderr
    expected = {"task", "loophole", "tau2", "tau3", "verified", "versions"}
    ((headers, rows, _),) = _check_tables(readings.stdout, width, expected)
    assert {"task", "loophole", "versions"} <= set(headers)
    tasks = [row[headers.index("task")] for row in rows if row[headers.index("task")]]
    assert tasks == [r["task_id"] for r in readings_by_version("airline")]
    counts = harness("versions", "counts", "--domain", "airline", env=_at(width))
    assert counts.returncode == 0, counts.stderr
    ((headers, rows, _),) = _check_tables(counts.stdout, width)
    first = [row for row in rows if row[headers.index("from")]]  # a row's first line (prose wraps below it)
    assert [row[headers.index("from")] for row in first] == ["tau2", "tau2", "tau3"]
    assert "tasks" not in headers or all(row[headers.index("tasks")] == "50" for row in first)
