"""Hostile inputs built from the shared real runs, and a CLI runner that records what happened.

Each case is a function ``(tmp: Path) -> argv`` that writes its input under ``tmp`` and returns the CLI
arguments. Every case must end in exit 2 with exactly one ``error:`` line, no traceback, nothing written
and in bounded time (see tests/test_fuzz_inputs.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import harness, real_run

BASE_RUN = "whissle_retail_tau3_5sims.json"  # 5 simulations: small and quick to score


def base() -> dict:
    return json.loads(real_run(BASE_RUN).read_text())


@dataclass
class Outcome:
    code: object
    stdout: str
    stderr: str
    seconds: float


def run_cli(argv: list[str], timeout_s: int = 60) -> Outcome:
    """``harness ARGV`` as a user runs it (tests.conftest.harness), timed; no answer in ``timeout_s`` is the
    outcome ``"timeout"``."""
    started = time.perf_counter()
    try:
        proc = harness(*argv, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        return Outcome("timeout", str(exc.stdout or ""), f"no answer in {timeout_s} s", time.perf_counter() - started)
    return Outcome(proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - started)


def snapshot(root: Path) -> set[str]:
    """Every path under ``root`` (without following links)."""
    found = set()
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            found.add(os.path.join(folder, name))
    return found


# --- results files ------------------------------------------------------------------------------

Case = Callable[[Path], list[str]]


def _rescore(path: Path, tmp: Path, *extra: str) -> list[str]:
    return ["rescore", str(path), "--out", str(tmp / "out"), *extra]


def _text(tmp: Path, text: str | bytes, name: str = "run.json") -> Path:
    path = tmp / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
    return path


def _with(mutate: Callable[[dict], None]) -> Case:
    def case(tmp: Path) -> list[str]:
        data = base()
        mutate(data)
        return _rescore(_text(tmp, json.dumps(data)), tmp)

    return case


def _placeholder(mutate: Callable[[dict], None], replace: tuple[str, str]) -> Case:
    """Put a placeholder in the data, then swap it for text JSON cannot hold as a value."""

    def case(tmp: Path) -> list[str]:
        data = base()
        mutate(data)
        text = json.dumps(data)
        assert replace[0] in text
        return _rescore(_text(tmp, text.replace(replace[0], replace[1], 1)), tmp)

    return case


def _sim(i: int, key: str, value: object) -> Callable[[dict], None]:
    def mutate(data: dict) -> None:
        target = data["simulations"][i]
        *parents, last = key.split(".")
        for p in parents:
            target = target[p]
        target[last] = value

    return mutate


def _invalid_utf8(tmp: Path) -> list[str]:
    text = json.dumps(base())
    at = text.index('"content": "') + 12
    return _rescore(_text(tmp, text[:at].encode() + b"\xff\xfe" + text[at:].encode()), tmp)


def _lone_surrogate(tmp: Path) -> list[str]:
    text = json.dumps(base())
    at = text.index('"content": "') + 12
    return _rescore(_text(tmp, text[:at] + "\\ud800" + text[at:]), tmp)


def _deep(tmp: Path) -> list[str]:
    data = base()
    data["simulations"][0]["extra"] = "__DEEP__"
    text = json.dumps(data).replace('"__DEEP__"', "[" * 100_000 + "]" * 100_000)
    return _rescore(_text(tmp, text), tmp)


def _dup_simulations(tmp: Path) -> list[str]:
    text = json.dumps(base())
    return _rescore(_text(tmp, text[:-1] + ', "simulations": []}'), tmp)


def _not_embedded(data: dict) -> None:
    gone = data["simulations"][2]["task_id"]
    data["tasks"] = [t for t in data["tasks"] if t["id"] != gone]


def _truncated(tmp: Path) -> list[str]:
    text = json.dumps(base())
    return _rescore(_text(tmp, text[: len(text) // 3]), tmp)


RESULTS_CASES: dict[str, tuple[str, Case]] = {
    # bytes and JSON
    "invalid_utf8": ("bytes", _invalid_utf8),
    "lone_surrogate": ("bytes", _lone_surrogate),
    "deep_nesting": ("bytes", _deep),
    "nan_reward": (
        "bytes",
        _placeholder(_sim(0, "reward_info.reward", "__X__"), ('"__X__"', "NaN")),
    ),
    "infinity_cost": (
        "bytes",
        _placeholder(_sim(1, "agent_cost", "__X__"), ('"__X__"', "-Infinity")),
    ),
    "duplicate_simulations_key": ("bytes", _dup_simulations),
    "duplicate_task_id": (
        "bytes",
        _placeholder(_sim(0, "__dup__", 1), ('"__dup__": 1', '"task_id": "3"')),
    ),
    "truncated": ("bytes", _truncated),
    # types and ranges
    "environment_info_string": (
        "types",
        _with(lambda d: d["info"].update(environment_info="retail")),
    ),
    # one case per check: a seed of 2**70 met the same ``_fits_int64`` as trial's (and tests/test_fuzz_inputs.py's
    # --skip-bad test rescores one), a seed of "123" the same strict refusal of a numeric string as reward's "1.0"
    "trial_2_70": ("types", _with(_sim(0, "trial", 2**70))),
    "llm_number": ("types", _with(lambda d: d["info"]["agent_info"].update(llm=5))),
    "llm_object": ("types", _with(lambda d: d["info"]["agent_info"].update(llm={"name": "x"}))),
    "reward_string": ("types", _with(_sim(0, "reward_info.reward", "1.0"))),
    "messages_string": ("types", _with(_sim(3, "messages", "hello"))),
    "task_id_number": ("types", _with(_sim(0, "task_id", 1))),
    # meaning
    "task_not_embedded": ("meaning", _with(_not_embedded)),
    "no_simulations": ("meaning", _with(lambda d: d.update(simulations=[]))),
    "unknown_termination": ("meaning", _with(_sim(0, "termination_reason", "exploded"))),
    "simulation_not_object": ("meaning", _with(lambda d: d["simulations"].__setitem__(1, 5))),
}


# --- paths ---------------------------------------------------------------------------------------


def _symlink_loop(tmp: Path) -> list[str]:
    folder = tmp / "runs"
    folder.mkdir()
    (folder / "loop").symlink_to(folder)
    return _rescore(folder, tmp)


def _link_cycle(tmp: Path) -> list[str]:
    (tmp / "a.json").symlink_to(tmp / "b.json")
    (tmp / "b.json").symlink_to(tmp / "a.json")
    return _rescore(tmp / "a.json", tmp)


def _fifo_only(tmp: Path) -> list[str]:
    folder = tmp / "runs"
    folder.mkdir()
    os.mkfifo(folder / "x.json")
    return _rescore(folder, tmp)


def _out_is_file(tmp: Path) -> list[str]:
    (tmp / "taken").write_text("mine")
    return ["rescore", str(real_run(BASE_RUN)), "--out", str(tmp / "taken")]


def _out_in_proc(tmp: Path) -> list[str]:
    return ["rescore", str(real_run(BASE_RUN)), "--out", "/proc/harness-out"]


def _newline_name(tmp: Path) -> list[str]:
    return _rescore(_text(tmp, "{not json", "bad\nname.json"), tmp)


def _missing(tmp: Path) -> list[str]:
    return _rescore(tmp / "nope\r.json", tmp)


def _out_foreign_folder(tmp: Path) -> list[str]:
    (tmp / "home").mkdir()
    (tmp / "home" / "notes.txt").write_text("mine")
    return ["rescore", str(real_run(BASE_RUN)), "--out", str(tmp / "home")]


def _leaderboard_empty(tmp: Path) -> list[str]:
    data = base()
    data["simulations"] = []
    path = _text(tmp, json.dumps(data))
    return ["leaderboard", str(path), "--out", str(tmp / "lb" / "deep")]


def _late_bad_simulation(tmp: Path) -> list[str]:
    """The last simulation is bad: found while streaming, after the others were scored."""
    data = base()
    data["simulations"][-1]["trial"] = "7"
    return ["rescore", str(_text(tmp, json.dumps(data))), "--out", str(tmp / "a" / "b" / "out")]


PATH_CASES: dict[str, tuple[str, Case]] = {
    "out_is_a_foreign_folder": ("paths", _out_foreign_folder),
    "leaderboard_no_simulations": ("meaning", _leaderboard_empty),
    "late_bad_simulation_nothing_written": ("types", _late_bad_simulation),
    "symlink_loop_folder": ("paths", _symlink_loop),
    "symlink_cycle_file": ("paths", _link_cycle),
    "fifo_only": ("paths", _fifo_only),
    "out_is_a_file": ("paths", _out_is_file),
    "out_under_proc": ("paths", _out_in_proc),
    "newline_in_name": ("paths", _newline_name),
    "missing_with_cr": ("paths", _missing),
}


# --- runs (Parquet) ------------------------------------------------------------------------------


def _corrupt_parquet(tmp: Path) -> list[str]:
    run = tmp / "run"
    run.mkdir()
    (run / "trials.parquet").write_bytes(b"PAR1" + os.urandom(300) + b"PAR1")
    return ["analyze", str(run)]


def _truncated_parquet(tmp: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    run = tmp / "run"
    run.mkdir()
    pq.write_table(
        pa.table({"trajectory_id": [f"t{i}" for i in range(200)]}), run / "trials.parquet"
    )
    data = (run / "trials.parquet").read_bytes()
    (run / "trials.parquet").write_bytes(data[: len(data) // 2])
    return ["analyze", str(run)]


def _report_corrupt(tmp: Path) -> list[str]:
    argv = _corrupt_parquet(tmp)
    return ["report", argv[1], "--out", str(tmp / "report.html")]


def _report_corrupt_leaderboard(tmp: Path) -> list[str]:
    """A good run (rescored here) whose optional leaderboard table is damaged."""
    src = _text(tmp, json.dumps(base()), "src.json")
    outcome = run_cli(["rescore", str(src), "--out", str(tmp / "run")])
    assert outcome.code == 0, outcome.stderr
    (tmp / "run" / "leaderboard.parquet").write_bytes(b"PAR1" + os.urandom(300) + b"PAR1")
    return ["report", str(tmp / "run"), "--out", str(tmp / "report.html")]


def _report_out_is_a_folder(tmp: Path) -> list[str]:
    (tmp / "run").mkdir()
    (tmp / "out").mkdir()
    return ["report", str(tmp / "run"), "--out", str(tmp / "out")]


RUN_CASES: dict[str, tuple[str, Case]] = {
    "corrupt_parquet": ("runs", _corrupt_parquet),
    "report_corrupt_parquet": ("runs", _report_corrupt),
    "report_out_is_a_folder": ("paths", _report_out_is_a_folder),
    "report_corrupt_leaderboard": ("runs", _report_corrupt_leaderboard),
    "truncated_parquet": ("runs", _truncated_parquet),
}


# --- configs -------------------------------------------------------------------------------------

GOOD_CONFIG = """\
name: fuzz
agents:
  - name: a
    implementation: reading_agent
    profile: conservative
user_simulator: {implementation: scripted_user}
domains: [airline]
tasks: ["1", "2"]
trials: 1
output: OUT
"""


def _config(text: str) -> Case:
    def case(tmp: Path) -> list[str]:
        path = tmp / "sweep.yaml"
        path.write_text(text.replace("OUT", str(tmp / "run")), encoding="utf-8")
        return ["sweep", str(path)]

    return case


_BOMB = "\n".join(
    [f"    l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, 10)]
)
CONFIG_CASES: dict[str, tuple[str, Case]] = {
    "duplicate_yaml_key": ("configs", _config(GOOD_CONFIG + "trials: 3\n")),
    "anchor_bomb": (
        "configs",
        _config(
            GOOD_CONFIG.replace(
                "    profile: conservative\n",
                "    profile: conservative\n    args:\n      l0: &l0 [x, x, x, x, x, x, x, x, x]\n"
                + "\n".join("  " + line for line in _BOMB.splitlines())
                + "\n",
            )
        ),
    ),
    "billion_trials": ("configs", _config(GOOD_CONFIG.replace("trials: 1", "trials: 1000000000"))),
    "name_escapes_runs": ("configs", _config(GOOD_CONFIG.replace("name: fuzz", "name: ../../x"))),
    "unknown_task_id": ("configs", _config(GOOD_CONFIG.replace('["1", "2"]', '["1", "777"]'))),
}


ALL_CASES = {**RESULTS_CASES, **PATH_CASES, **RUN_CASES, **CONFIG_CASES}
