"""Every hostile input is one clear error: exit 2, one ``error:`` line, no traceback, nothing written, bounded
time. The named cases cover each category of issue 15; the property tests mutate a real run at random."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import hostile_inputs as hostile

TIME_LIMIT_S = 60


def _assert_clean_error(tmp: Path, argv: list[str], before: set[str]) -> str:
    outcome = hostile.run_cli(argv, TIME_LIMIT_S)
    assert "Traceback" not in outcome.stderr and outcome.code != "timeout", outcome.stderr[-3000:]
    assert outcome.code == 2, (outcome.code, outcome.stderr, outcome.stdout[-2000:])
    lines = [line for line in outcome.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), outcome.stderr
    assert hostile.snapshot(tmp) == before, sorted(hostile.snapshot(tmp) - before)
    assert outcome.seconds < TIME_LIMIT_S
    return lines[0]


# report_out_is_a_folder: its own test below runs it (the same checks and more)
@pytest.mark.parametrize("name", sorted(set(hostile.ALL_CASES) - {"report_out_is_a_folder"}))
def test_hostile_case_is_one_clean_error(name, tmp_path):
    _category, case = hostile.ALL_CASES[name]
    argv = case(tmp_path)
    line = _assert_clean_error(tmp_path, argv, hostile.snapshot(tmp_path))
    if hostile.ALL_CASES[name][0] in ("bytes", "types", "meaning"):
        assert "run.json" in line  # names the file


# --- properties: random damage to a real run -------------------------------------------------

_VALID_REASONS = {
    "user_stop",
    "agent_stop",
    "max_steps",
    "timeout",
    "too_many_errors",
    "agent_error",
    "user_error",
    "infrastructure_error",
    "context_window_exceeded",
    "unexpected_error",
    "judge_stop",
}
# beyond 64 bits on either side: above 2**63 - 1, or below -2**63 (which itself fits)
_HUGE = st.integers(min_value=2**63).map(lambda n: n if n % 2 else -n - 1)
_NOT_INT = st.one_of(
    st.text(max_size=5),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)
_FIELD_DAMAGE = {
    "trial": st.one_of(_HUGE, _NOT_INT),
    "seed": st.one_of(_HUGE, _NOT_INT),
    "task_id": st.one_of(
        st.integers(),
        st.booleans(),
        st.lists(st.text(max_size=2), max_size=2),
        st.text(max_size=6).filter(lambda t: t not in {"0", "1", "2", "3", "4"}),
    ),
    "termination_reason": st.one_of(
        st.integers(), st.text(max_size=8).filter(lambda t: t not in _VALID_REASONS)
    ),
    "messages": st.one_of(
        st.text(max_size=5),
        st.integers(),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
    ),
    "reward_info.reward": st.one_of(
        st.text(max_size=5), st.booleans(), st.lists(st.floats(), max_size=1)
    ),
    "agent_cost": st.one_of(
        st.text(max_size=5), st.booleans(), st.lists(st.integers(), max_size=1)
    ),
    "id": st.one_of(st.integers(), st.lists(st.integers(), max_size=1), st.booleans()),
}
_SETTINGS = settings(
    max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
)
# The decoder's refusals (bad UTF-8, duplicate keys) are checked in-process (tests/test_strict_json.py: its
# tricky cases, and 300 generated values with and without a duplicate); here each example is a CLI call (~1.5
# CPU-s) checking the one refusal's way out (exit 2, one line, nothing written), so fewer suffice. Each damaged
# field is its own check: every field gets its own draw (drawn at random over the fields, 12 examples left some out).
_DECODER_SETTINGS = settings(_SETTINGS, max_examples=4)
_FIELD_SETTINGS = settings(_SETTINGS, max_examples=1)


@pytest.mark.parametrize("field", sorted(_FIELD_DAMAGE))
@_FIELD_SETTINGS
@given(sim=st.integers(0, 4), data=st.data())
def test_damaged_field_is_one_clean_error(field, sim, data):
    value = data.draw(_FIELD_DAMAGE[field], label="value")
    run = hostile.base()
    target = run["simulations"][sim]
    *parents, last = field.split(".")
    for p in parents:
        target = target[p]
    target[last] = value
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.json"
        path.write_text(json.dumps(run))
        line = _assert_clean_error(
            Path(tmp), ["rescore", str(path), "--out", f"{tmp}/out"], hostile.snapshot(Path(tmp))
        )
        assert "run.json" in line


@_DECODER_SETTINGS
@given(
    where=st.floats(0, 1, exclude_max=True),
    junk=st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x80"]),
)
def test_invalid_utf8_anywhere_is_one_clean_error(where, junk):
    text = json.dumps(hostile.base()).encode()
    at = int(where * len(text))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.json"
        path.write_bytes(text[:at] + junk + text[at:])
        _assert_clean_error(
            Path(tmp), ["rescore", str(path), "--out", f"{tmp}/out"], hostile.snapshot(Path(tmp))
        )


@_DECODER_SETTINGS
@given(
    sim=st.integers(0, 4),
    key=st.sampled_from(["id", "task_id", "trial", "messages", "reward_info", "seed"]),
)
def test_duplicate_key_is_one_clean_error(sim, key):
    run = hostile.base()
    run["simulations"][sim]["__dup__"] = 0
    text = json.dumps(run).replace('"__dup__": 0', f'"{key}": null')
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.json"
        path.write_text(text)
        line = _assert_clean_error(
            Path(tmp), ["rescore", str(path), "--out", f"{tmp}/out"], hostile.snapshot(Path(tmp))
        )
        assert f"duplicate key '{key}'" in line


# --- suspicious but legal: scored, flagged and summarised ---------------------------------------


def test_suspicious_inputs_are_flagged_not_silent(tmp_path):
    import pandas as pd

    run = hostile.base()
    run["simulations"][0]["messages"] = []
    run["simulations"][1]["reward_info"]["reward"] = 5.0
    run["simulations"][2]["trial"] = -1
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    outcome = hostile.run_cli(["rescore", str(path), "--out", str(tmp_path / "out")])
    assert outcome.code == 0, outcome.stderr
    trials = pd.read_parquet(tmp_path / "out" / "trials.parquet").set_index("simulation_id")
    flags = {sid: list(f) for sid, f in trials["flags"].items()}
    sims = run["simulations"]
    assert flags[sims[0]["id"]] == ["empty_conversation"]
    assert flags[sims[1]["id"]] == ["reward_out_of_range"] and flags[sims[2]["id"]] == [
        "negative_trial"
    ]
    assert flags[sims[3]["id"]] == []
    for flag in ("empty_conversation", "reward_out_of_range", "negative_trial"):
        assert f"1 trajectories flagged {flag}" in outcome.stdout


def test_fifo_beside_a_run_is_skipped_with_a_note(tmp_path):
    import os

    folder = tmp_path / "runs"
    folder.mkdir()
    os.mkfifo(folder / "pipe.json")
    (folder / "run.json").write_text(json.dumps(hostile.base()))
    outcome = hostile.run_cli(["rescore", str(folder), "--out", str(tmp_path / "out")], 60)
    assert outcome.code == 0, outcome.stderr
    assert "pipe.json: skipped (not a regular file)" in outcome.stdout


def test_skip_bad_keeps_a_row_for_an_out_of_range_seed(tmp_path):
    import pandas as pd

    run = hostile.base()
    run["simulations"][1]["seed"] = 2**70
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run))
    outcome = hostile.run_cli(["rescore", str(path), "--out", str(tmp_path / "out"), "--skip-bad"])
    assert outcome.code == 0, outcome.stderr
    trials = pd.read_parquet(tmp_path / "out" / "trials.parquet").set_index("simulation_id")
    bad = trials.loc[run["simulations"][1]["id"]]
    assert bad.status == "error" and "64-bit" in bad.reason and pd.isna(bad.seed)


def test_report_out_naming_a_folder_is_refused_before_any_work(tmp_path):
    """The run is not even read: the bad ``--out`` is named, whatever the run holds."""
    _category, case = hostile.ALL_CASES["report_out_is_a_folder"]
    line = _assert_clean_error(tmp_path, case(tmp_path), hostile.snapshot(tmp_path))
    assert "--out" in line and "is a directory" in line, line
