"""Task ids sort as numbers everywhere (#42 item 5): analyze's tables and the viewer's index put task 2
before 13, through the one key every layer uses (``loophole_base.natural_key``)."""

from __future__ import annotations

import re

import pandas as pd

from tests.conftest import harness
from tests.e2e.conftest import TWO_TRIAL_TASKS


def test_analyze_tables_sort_task_ids_as_numbers(two_trial_run, tmp_path):
    _, run = two_trial_run
    proc = harness("analyze", str(run), "--bootstrap", "100", "--out", str(tmp_path / "t"))
    assert proc.returncode == 0, proc.stderr
    numeric = sorted(TWO_TRIAL_TASKS, key=int)
    assert numeric != sorted(TWO_TRIAL_TASKS)  # text order differs here (13, 14, 2, 27, 5)
    for name in ("model_split", "loophole_tasks", "readings"):
        table = pd.read_csv(tmp_path / "t" / f"{name}.csv", dtype={"task_id": str})
        order = list(dict.fromkeys(table.task_id))  # first appearance of each task, in the table's order
        assert order == [t for t in numeric if t in order] and len(order) >= 4, (name, order)
    # the printed table too: model_split's rows, top to bottom
    block = proc.stdout[proc.stdout.index("model_split"):]
    printed = re.findall(r"│ airline │ tau3\s+│ (\d+)\s+│", block[: block.index("loophole_tasks")])
    assert printed == [t for t in numeric if t in printed] and len(printed) >= 4, printed


def test_the_viewer_index_sorts_task_ids_as_numbers(two_trial_run, tmp_path):
    _, run = two_trial_run
    proc = harness("view", str(run), "--out", str(tmp_path / "site"))
    assert proc.returncode == 0, proc.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    select = re.search(r'<select id="f-task">(.*?)</select>', index, re.S).group(1)
    assert re.findall(r'<option value="(\d+)">', select) == sorted(TWO_TRIAL_TASKS, key=int)
    rows = re.findall(r'<tr data-agent="[^"]*" data-domain="[^"]*" data-version="[^"]*" data-task="(\d+)"', index)
    assert list(dict.fromkeys(rows)) == sorted(TWO_TRIAL_TASKS, key=int)
