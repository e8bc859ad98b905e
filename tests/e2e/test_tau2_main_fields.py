"""tau2 main's fields (#48 item 6): RewardInfo provenance (PR #467), #499's incomplete gold replay, the
``evaluate-trajs --scores`` axes, ``info.task_set_name``, and the dir layout that carries them. The files are
edited copies of the shared runs with the fields written as tau2 main's models define them
(``tests/results_layouts.with_main_fields`` cites each upstream file)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from envs import version_named_by
from loophole_ingest import UpstreamFields
from tests import results_layouts as layouts
from tests.conftest import harness, real_run

RETAIL = "toolorchestra_retail_tau2_1trial.json"
AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
# τ² retail task 12's gold write 12_4 raises on replay (the harness's gold audit: a broken gold)
BROKEN = layouts.failed_gold_write("12_4", "return_delivered_order_items",
                                   "Payment method should be the original payment method")


def _rescore(path, out) -> str:
    done = harness("rescore", str(path), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def retail() -> dict:
    """The toolorchestra simulations whose recorded action ids name their own task, and the one whose ids
    name task 12 (the file labels it 38), labelled 12: each scored against the task it is about."""
    data = json.loads(real_run(RETAIL).read_text(encoding="utf-8"))
    own = [s for s in data["simulations"] if (s["reward_info"].get("action_checks") or [{}])[0]
           .get("action", {}).get("action_id", "").split("_")[0] == s["task_id"]][:4]
    twelve = data["simulations"][38]
    assert twelve["reward_info"]["action_checks"][0]["action"]["action_id"] == "12_0"
    twelve["task_id"] = "12"
    data["simulations"] = [twelve, *own]
    ids = {s["task_id"] for s in data["simulations"]}
    data["tasks"] = [t for t in data["tasks"] if t["id"] in ids]
    return data


def test_a_dir_run_rescored_by_tau2_main_keeps_its_fields_and_flags_the_incomplete_gold(retail, tmp_path):
    """The dir layout as ``evaluate-trajs --scores reward,quality,nativeness`` saves it: the rewards are the
    plain run's (no axis or provenance field changes a reward); each row keeps the fields, typed; the task-12
    row is flagged, and the summary says the file's evaluator marked its gold replay incomplete beside the
    harness's own verdict (a broken gold: 12_4 raises)."""
    plain = layouts.write_monolithic(retail, tmp_path / "plain.json")
    main = layouts.with_main_fields(retail, "retail", {0: [BROKEN]})
    run = layouts.write_dir_run(main, tmp_path / "main_run")
    _rescore(plain, tmp_path / "plain_out")
    stdout = _rescore(run, tmp_path / "out")
    ours = pd.read_parquet(tmp_path / "out" / "trials.parquet").set_index("simulation_id").sort_index()
    before = pd.read_parquet(tmp_path / "plain_out" / "trials.parquet").set_index("simulation_id").sort_index()
    cols = ["task_id", "reward", "multi_gold_reward", "strict_reward", "strict_reason", "status"]
    pd.testing.assert_frame_equal(ours[cols], before[cols])
    assert before.upstream_json.isna().all()  # nothing recorded, nothing kept

    twelve = ours.loc[retail["simulations"][0]["id"]]
    up = UpstreamFields.model_validate_json(twelve.upstream_json)
    assert up.schema_version == 1 and up.evaluation_mode == "replay" and up.state_source == "replayed"
    calls = sum(len(m.get("tool_calls") or []) for m in retail["simulations"][0]["messages"])
    checks = len(retail["simulations"][0]["reward_info"]["action_checks"])
    assert up.replayed_actions == calls + checks
    assert up.replayed_by_label == {"trajectory": calls, "reference": checks}
    assert up.warnings and up.judge_scores == {"quality": 0.75, "nativeness": 1.0}
    assert up.gold_replay_incomplete and up.db_check_recorded is False and up.db_evaluated is False
    assert [a.action_id for a in up.failed_mutating_actions] == ["12_4"]
    assert "gold_replay_incomplete" in list(twelve["flags"])
    assert twelve.strict_reason.startswith("broken gold")  # the harness's own verdict, on the row
    others = ours.drop(index=twelve.name)
    assert not any("gold_replay_incomplete" in list(f) for f in others["flags"])
    assert all(not UpstreamFields.model_validate_json(u).gold_replay_incomplete for u in others.upstream_json)

    line = next(ln for ln in stdout.splitlines() if "gold replay incomplete" in ln)
    assert line.strip().startswith("task 12: the file's evaluator marks its gold replay incomplete (db_check null")
    assert "failed: 12_4 return_delivered_order_items (ValueError: Payment method should be" in line
    assert "the harness: broken gold: 12_4 return_delivered_order_items: ValueError" in line
    info = json.loads((tmp_path / "out" / "run.json").read_text(encoding="utf-8"))
    assert [(u["task_set_name"], u["task_set_version"]) for u in info["upstream"]] == [("retail", None)]
    assert "upstream" not in json.loads((tmp_path / "plain_out" / "run.json").read_text(encoding="utf-8"))


def test_a_bad_type_in_tau2_mains_fields_is_one_line_naming_the_field(retail, tmp_path):
    main = layouts.with_main_fields(retail, None, {})
    main["simulations"][0]["reward_info"]["evaluation_mode"] = "offline"
    main["simulations"][1]["reward_info"]["info"] = {"gold_replay_incomplete": "yes"}
    path = layouts.write_monolithic(main, tmp_path / "bad.json")
    done = harness("rescore", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in done.stderr
    assert "field 'reward_info.evaluation_mode'" in lines[0] and "'live' or 'replay'" in lines[0]
    main["simulations"][0]["reward_info"]["evaluation_mode"] = "live"
    layouts.write_monolithic(main, path)
    done = harness("rescore", str(path), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert "field 'reward_info.info.gold_replay_incomplete': expected a boolean, got a string 'yes'" in done.stderr


def test_the_names_tau2_registers_identify_no_version_and_a_version_token_does():
    # src/tau2/registry.py on main registers "airline", "retail" (and localized sets such as "airline_hi")
    assert version_named_by("airline", "airline") is None
    assert version_named_by("airline_hi", "airline") is None
    assert version_named_by(None, "airline") is None
    assert version_named_by("airline_tau3", "airline") == "tau3"
    assert version_named_by("tau2-bench-verified", "airline") == "verified"
    assert version_named_by("airline-τ2", "airline") == "tau2"
    assert version_named_by("retail_tau3", "airline") is None  # another domain's set
    assert version_named_by("airline_tau2_tau3", "airline") is None  # two versions: none identified


def test_a_task_set_name_decides_where_the_embedded_tasks_cannot(tmp_path):
    """aide's task 14 is the same task in τ² and Verified (not in τ³): its embedded task cannot tell those
    two apart, so the name decides; a name the embedded tasks contradict does not."""
    data = json.loads(real_run(AIDE).read_text(encoding="utf-8"))
    data["simulations"] = [s for s in data["simulations"] if s["task_id"] == "14"]
    data["tasks"] = [t for t in data["tasks"] if t["id"] == "14"]
    seen = {}
    for name in (None, "airline_verified", "airline_tau3"):
        run = layouts.with_main_fields(data, name, {})
        path = layouts.write_monolithic(run, tmp_path / f"{name}.json")
        stdout = _rescore(path, tmp_path / f"out_{name}")
        trials = pd.read_parquet(tmp_path / f"out_{name}" / "trials.parquet")
        seen[name] = (trials.task_version.iloc[0], stdout)
    assert seen[None][0] == "tau2" and "golds identical, tau2 chosen" in seen[None][1]
    assert seen["airline_verified"][0] == "verified"
    assert "info.task_set_name 'airline_verified' names verified too" in seen["airline_verified"][1]
    assert seen["airline_tau3"][0] == "tau2"
    assert "'airline_tau3' names tau3, but the embedded tasks decide" in seen["airline_tau3"][1]
    # no embedded tasks (tau2 main's dir metadata may carry none): the name identifies the version
    bare = layouts.with_main_fields({**data, "tasks": []}, "airline_verified", {})
    stdout = _rescore(layouts.write_monolithic(bare, tmp_path / "bare.json"), tmp_path / "out_bare")
    assert pd.read_parquet(tmp_path / "out_bare" / "trials.parquet").task_version.iloc[0] == "verified"
    assert "no embedded tasks; the version info.task_set_name names" in stdout
