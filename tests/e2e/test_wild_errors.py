"""What the wild still broke (issue 26): each ends in one ``error:`` line, or in a result that says what it
skipped and why. Each runs the CLI as a user does (tests.conftest.harness); inputs are real runs edited in
tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from tests.conftest import ROOT, harness, real_run

RETAIL = "whissle_retail_tau3_5sims.json"  # 5 simulations
AIRLINE = "whissle_airline_tau3_1trial.json"  # 50 simulations
TOO_MANY = str(10**15)  # above Ray's largest resource quantity (1e14)


class _Cli:
    """``harness ARGS`` (tests.conftest.harness): (exit code, stdout, stderr); ``patches`` run in the CLI's
    process first."""

    def __init__(self) -> None:
        self.patches: list[str] = []

    def __call__(self, *args: str) -> tuple[int, str, str]:
        proc = harness(*args, patch="\n".join(self.patches) or None)
        return proc.returncode, proc.stdout, proc.stderr


@pytest.fixture
def cli() -> _Cli:
    return _Cli()


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    return lines[0]


def _sweep_config(tmp_path: Path, output: Path | str) -> Path:
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(tasks=["2", "5"], trials=1, output=str(output), agents=demo["agents"][:1])
    path = tmp_path / "sweep.yaml"
    path.write_text(yaml.safe_dump(demo))
    return path


# --- --workers above Ray's limit ------------------------------------------------------------------


@pytest.mark.parametrize("verb", ["rescore", "leaderboard", "sweep"])
def test_workers_above_rays_limit_is_one_line(verb, tmp_path):
    args = [str(_sweep_config(tmp_path, tmp_path / "out"))] if verb == "sweep" else [
        str(real_run(RETAIL)), "--out", str(tmp_path / "out")]
    proc = harness(verb, *args, "--workers", TOO_MANY, timeout=120)
    line = _one_error_line(proc.stderr)
    assert proc.returncode == 2
    assert TOO_MANY in line and "100000000000000" in line and "--workers" in line  # the value and the limit
    assert not (tmp_path / "out").exists()


def test_init_ray_refuses_more_than_ray_accepts():
    """The Python API's path (``workers=``) gets the same one line, not Ray's ValueError."""
    from ray._private import ray_constants

    from harness.execution import MAX_WORKERS, init_ray
    from loophole_base import HarnessInputError

    assert ray_constants.MAX_RESOURCE_QUANTITY == MAX_WORKERS  # our cap is Ray's limit
    with pytest.raises(HarnessInputError, match=f"workers {TOO_MANY}: Ray accepts at most {MAX_WORKERS}"):
        init_ray(None, int(TOO_MANY))


# --- a sweep output under /proc ---------------------------------------------------------------------


def test_sweep_output_under_proc_is_one_line(cli, tmp_path):
    code, _, err = cli("sweep", str(_sweep_config(tmp_path, "/proc/harness-out")))
    line = _one_error_line(err)
    assert code == 2 and "field 'output'" in line and "/proc/harness-out" in line
    assert "cannot be created or written" in line


def test_sweep_output_that_cannot_be_created_is_one_line(cli, tmp_path):
    (tmp_path / "afile").write_text("not a folder")
    code, _, err = cli("sweep", str(_sweep_config(tmp_path, tmp_path / "afile" / "out")))
    line = _one_error_line(err)
    assert code == 2 and "field 'output'" in line and "cannot create or write it" in line


# --- a full disk ----------------------------------------------------------------------------------------


FULL_DISK = """
import errno, os


def _full(fd):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


os.fsync = _full
"""


@pytest.fixture
def disk_full(cli):
    """From now on every atomic write of the CLI fails as on a full disk: at its fsync, with ENOSPC."""
    return lambda: cli.patches.append(FULL_DISK)


def test_rescore_on_a_full_disk_removes_its_new_folder(cli, disk_full, tmp_path):
    out = tmp_path / "new" / "run"
    disk_full()
    code, _, err = cli("rescore", str(real_run(RETAIL)), "--out", str(out))
    line = _one_error_line(err)
    assert code == 75
    assert "no space left on device writing" in line and "trials.parquet" in line  # what was being written
    assert "partly written run folder" in line and "removed" in line
    assert f"run the same command again: harness rescore {real_run(RETAIL)} --out {out}" in line
    assert not (tmp_path / "new").exists()  # the folder it made is gone


def test_rescore_on_a_full_disk_keeps_an_existing_run(cli, disk_full, tmp_path):
    out = tmp_path / "run"
    code, _, err = cli("rescore", str(real_run(RETAIL)), "--out", str(out))
    assert code == 0, err
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    disk_full()
    code, _, err = cli("rescore", str(real_run(RETAIL)), "--out", str(out))
    line = _one_error_line(err)
    assert code == 75 and "stays whole" in line
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_sweep_on_a_full_disk_keeps_finished_trials_and_says_how_to_resume(cli, disk_full, tmp_path):
    import loophole_store as store
    from harness.trials import expand, load_sweep

    out = tmp_path / "sweep-out"
    config_path = _sweep_config(tmp_path, out)
    config = load_sweep(config_path)
    keys = expand(config)
    # a sweep that had finished two trials (written as a part, as the driver writes them) when the disk filled
    store.claim_sweep_output(out, config.sweep_id(), config.redacted())
    store.write_part(out, [store.trial_row(trajectory_id=k.key, run_id=config.sweep_id(), status="ok", reward=1.0)
                           for k in keys[:2]], [], 1)
    disk_full()
    code, _, err = cli("sweep", str(config_path))
    line = _one_error_line(err)
    assert code == 75 and "no space left on device writing" in line and str(out) in line
    assert "the 2 finished trials are kept" in line
    assert f"run the same command again: harness sweep {config_path}" in line
    assert store.finished_keys(out) == {k.key for k in keys[:2]}  # a resume skips them


# --- an invalid YAML manifest ---------------------------------------------------------------------------


def test_invalid_yaml_manifest_is_one_line_with_line_and_column(cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("runs:\n  a.json: {name: A}\n  b.json: [name: B\n")
    code, _, err = cli("leaderboard", str(real_run(RETAIL)), "--out", str(tmp_path / "lb"), "--manifest", str(bad))
    line = _one_error_line(err)
    assert code == 2 and str(bad) in line and "line 4, column 1" in line and "invalid YAML" in line
    assert not (tmp_path / "lb").exists()


# --- report --out in a folder that does not exist -------------------------------------------------------


@pytest.fixture(scope="module")
def retail_run(tmp_path_factory) -> Path:
    from harness import rescore

    out = tmp_path_factory.mktemp("retail") / "run"
    rescore([real_run(RETAIL)], out)
    return out


def test_report_creates_the_folder_out_names(cli, retail_run, tmp_path):
    out = tmp_path / "missing" / "dir" / "report.html"
    code, stdout, err = cli("report", str(retail_run), "--out", str(out))
    assert code == 0, err
    assert out.is_file() and (out.parent / "report_viewer" / "index.html").is_file()
    assert f"wrote {out}" in stdout


def test_report_on_a_full_disk_is_one_line_and_removes_the_folder_it_made(cli, disk_full, retail_run, tmp_path):
    out = tmp_path / "missing" / "report.html"
    disk_full()
    code, _, err = cli("report", str(retail_run), "--out", str(out))
    line = _one_error_line(err)
    assert code == 75 and "no space left on device writing" in line and "run the same command again" in line
    assert not (tmp_path / "missing").exists()


def test_report_out_under_a_file_is_one_line_and_leaves_nothing(cli, retail_run, tmp_path):
    (tmp_path / "afile").write_text("x")
    for out in (tmp_path / "afile" / "sub" / "report.html", Path("/proc/harness-report/report.html")):
        code, _, err = cli("report", str(retail_run), "--out", str(out))
        line = _one_error_line(err)
        assert code == 2 and str(out) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


# --- a leaderboard over readable and unreadable files -------------------------------------------------


def _diverged(path: Path) -> None:
    """The retail run with every simulation's first recorded tool result changed: tau2's replay returns
    the real result, so every trajectory is a replay divergence."""
    data = json.loads(real_run(RETAIL).read_text())
    data["info"]["agent_info"]["llm"] = "diverged-model"
    for sim in data["simulations"]:
        tool = next(m for m in sim["messages"] if m["role"] == "tool")
        tool["content"] = "a result tau2's tools never return"
    path.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def wild_board(tmp_path_factory):
    """Two real runs, a run whose every trajectory diverges, a truncated file and a file that is no
    results file, ranked in one leaderboard."""
    d = tmp_path_factory.mktemp("wild")
    inputs = d / "inputs"
    inputs.mkdir()
    text = real_run(RETAIL).read_text()
    (inputs / "truncated.json").write_text(text[: len(text) - 3000])  # cut in its last simulation
    (inputs / "notes.json").write_text(json.dumps({"hello": "not a results file"}))
    _diverged(inputs / "diverged.json")
    paths = [str(real_run(RETAIL)), str(real_run(AIRLINE)), str(inputs)]
    return d, inputs, harness("leaderboard", *paths, "--out", str(d / "lb"))


def test_leaderboard_ranks_what_it_can_read_and_lists_the_rest(wild_board):
    d, inputs, result = wild_board
    assert result.returncode == 0, result.stderr
    board = pd.read_parquet(d / "lb" / "leaderboard.parquet")
    assert sorted(Path(f).name for f in board.source_file) == sorted([RETAIL, AIRLINE, "diverged.json"])
    assert board[board.scored > 0].ranked.all()
    md = (d / "lb" / "leaderboard.md").read_text()
    for out in (result.stdout, md):
        skipped = [line for line in out.splitlines() if "truncated.json" in line or "notes.json" in line]
        assert len(skipped) == 2, skipped
        assert any("truncated.json: truncated JSON: " in line for line in skipped)
        assert any("notes.json: missing field 'info'" in line for line in skipped)
    assert "## Skipped files" in md
    assert result.stdout.count("skipped: ") == 2


def test_leaderboard_labels_a_diverged_run_by_its_cause(wild_board, tmp_path):
    """By default (tau2 1.0.1's lenient replay) the run whose every recorded result differs is scored and its
    rows counted by flag; under ``--replay strict`` (the pinned package) it is unscored, labelled by cause."""
    d, inputs, result = wild_board
    board = pd.read_parquet(d / "lb" / "leaderboard.parquet")
    diverged = board[board.source_file.str.endswith("diverged.json")].iloc[0]
    assert diverged.scored == 5 and diverged.ranked and diverged.unscored == ""
    assert diverged.replay_flags.startswith("strict_replay_diverges (5)")
    assert "replay flags: diverged-model (diverged.json): strict_replay_diverges (5)" in result.stdout
    assert (board[~board.source_file.str.endswith("diverged.json")].replay_flags == "").all()
    strict = harness("leaderboard", str(inputs / "diverged.json"), "--out", str(tmp_path / "lb"),
                     "--replay", "strict")
    assert strict.returncode == 0, strict.stderr
    diverged = pd.read_parquet(tmp_path / "lb" / "leaderboard.parquet").iloc[0]
    assert diverged.scored == 0 and not diverged.ranked
    assert diverged.unscored == "replay divergence (5)"
    assert "unscored: diverged-model (diverged.json): no trajectory has a reward: replay divergence (5)" in strict.stdout
    assert "no judge" not in result.stdout + strict.stdout
    assert (board[board.scored > 0].unscored == "").all()


def test_leaderboard_strict_stops_at_the_first_unreadable_file(cli, wild_board, tmp_path):
    _, inputs, _ = wild_board
    code, _, err = cli("leaderboard", str(inputs / "notes.json"), str(real_run(RETAIL)),
                       "--out", str(tmp_path / "lb"), "--strict")
    line = _one_error_line(err)
    assert code == 2 and "notes.json: missing field 'info'" in line
    assert not (tmp_path / "lb").exists()


def test_leaderboard_with_nothing_readable_fails_in_one_line(cli, wild_board, tmp_path):
    _, inputs, _ = wild_board
    code, _, err = cli("leaderboard", str(inputs / "notes.json"), str(inputs / "truncated.json"),
                       "--out", str(tmp_path / "lb"))
    line = _one_error_line(err)
    assert code == 2 and "no run to rank: all 2 files skipped" in line
    assert not (tmp_path / "lb").exists()


def test_unscored_causes_name_each_cause():
    from analysis._leaderboard import unscored_causes

    trials = pd.DataFrame({
        "reward": [None, None, None, None, None, 1.0],
        "status": ["no_judge", "no_judge", "replay_divergence", "replay_divergence", "infra_error", "ok"],
        "reason": ["", "", "replay divergence: tool call #0 list_articles (c1) returned \"Tool 'list_articles' "
                   "not found.\", recorded '[]'", "replay divergence: tool call #2 get_order_details", "", None],
    })
    assert unscored_causes(trials) == "no judge (2), custom tools (1), infra errors (1), replay divergence (1)"
    assert unscored_causes(trials[trials.reward.notna()]) == ""
