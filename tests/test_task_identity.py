"""Task identity is verified per simulation (#36 item 1): a file whose task ids are wrong is scored against
the tasks its evidence names (remapped, the file's id kept), or refused with a reason; never against the
wrong task. Expected values come from the original files and tasks.json, not from the remapping code."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from tests.conftest import TAU_DATA, harness, real_run

AIRLINE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
RETAIL = "toolorchestra_retail_tau2_1trial.json"


def _trials(out) -> pd.DataFrame:
    return pd.read_parquet(out / "trials.parquet").sort_values("trajectory_id").reset_index(drop=True)


def _rescore(path, out) -> str:
    done = harness("rescore", str(path), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def original(tmp_path_factory):
    out = tmp_path_factory.mktemp("original") / "run"
    _rescore(real_run(AIRLINE), out)
    return _trials(out)


def test_shuffled_ids_are_remapped_to_the_tasks_the_file_recorded(tmp_path, original):
    data = json.loads(real_run(AIRLINE).read_text())
    sims = data["simulations"]
    true_ids = [s["task_id"] for s in sims]
    shuffled = true_ids[7:] + true_ids[:7]  # every simulation names another simulation's task
    moved = sum(a != b for a, b in zip(true_ids, shuffled, strict=True))
    assert moved > 40
    for s, wrong in zip(sims, shuffled, strict=True):
        s["task_id"] = wrong
    path = tmp_path / "shuffled.json"
    path.write_text(json.dumps(data))

    # Simulation 31 (task 46) has no gold actions and authenticates nobody: its evidence rules out the
    # shuffled id (a task with actions) but names no single task, so it is refused (judged by hand).
    refused = sims[31]["id"]
    out = tmp_path / "run"
    stdout = _rescore(path, out)
    notes = [line for line in stdout.splitlines() if "task ids remapped" in line]
    assert len(notes) == 1 and notes[0].startswith("note: ")
    assert f"task ids remapped: {moved - 1} of {len(sims)}" in notes[0] and "; 1 refused" in notes[0]
    trials = _trials(out).set_index("simulation_id")
    assert trials.loc[refused].status == "error" and trials.loc[refused].reason.startswith("task identity:")
    kept = [(s["id"], t, w) for s, t, w in zip(sims, true_ids, shuffled, strict=True) if s["id"] != refused]
    # scored against the task each conversation is about, the file's id kept where it differs
    assert [trials.task_id[sid] for sid, _, _ in kept] == [t for _, t, _ in kept]
    assert [trials.file_task_id[sid] for sid, _, _ in kept] == [w if w != t else None for _, t, w in kept]
    # the same rewards as the untouched file
    ids = [sid for sid, _, _ in kept]
    theirs = original.set_index("simulation_id")
    assert trials.reward[ids].equals(theirs.reward[ids])
    assert trials.multi_gold_reward[ids].equals(theirs.multi_gold_reward[ids])
    assert trials["flags"].map(lambda f: "task_id_remapped" in list(f)).sum() == moved - 1


def test_a_simulation_no_task_fits_is_refused_with_a_reason(tmp_path):
    data = json.loads(real_run(AIRLINE).read_text())
    sims = data["simulations"]
    victim = next(s for s in sims if (s.get("reward_info") or {}).get("action_checks"))
    for check in victim["reward_info"]["action_checks"]:
        check["action"]["action_id"] = "nowhere_" + check["action"]["action_id"]
        check["action"]["arguments"] = {"reservation_id": "ZZZZZ9"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    out = tmp_path / "run"
    stdout = _rescore(path, out)
    assert "1 refused" in stdout
    trials = _trials(out).set_index("simulation_id")
    row = trials.loc[victim["id"]]
    assert row.status == "error" and pd.isna(row.reward)
    assert row.reason.startswith("task identity:") and "match no task" in row.reason
    assert trials.drop(victim["id"]).reward.notna().all()


def test_toolorchestra_retail_is_scored_against_the_tasks_it_recorded(tmp_path):
    from analysis import leaderboard_table as leaderboard

    path = real_run(RETAIL)
    sims = json.loads(path.read_text())["simulations"]
    tasks = json.loads((TAU_DATA / "tau2" / "retail" / "tasks.json").read_text())
    own_ids = {frozenset(a["action_id"] for a in t["evaluation_criteria"]["actions"]): t["id"] for t in tasks}
    expected = {}
    for s in sims:
        checks = (s.get("reward_info") or {}).get("action_checks")
        if checks:
            expected[s["id"]] = own_ids[frozenset(c["action"]["action_id"] for c in checks)]
    assert sum(expected[s["id"]] != s["task_id"] for s in sims if s["id"] in expected) == 111
    # the two without checks, judged by hand from the conversation: a grill cancellation asking which
    # t-shirts (task 24), and an air purifier's order W4284542 (task 57)
    expected[sims[14]["id"]] = "24"
    expected[sims[52]["id"]] = "57"

    out = tmp_path / "run"
    stdout = _rescore(path, out)
    assert "task ids remapped: 113 of 114 simulations" in stdout
    trials = _trials(out)
    got = dict(zip(trials.simulation_id, trials.task_id, strict=True))
    assert all(got[sid] == tid for sid, tid in expected.items())
    recorded = trials[trials.recorded_reward.notna() & trials.reward.notna()]
    assert len(recorded) == len(sims) and (recorded.recorded_reward == recorded.reward).all()

    board = leaderboard(trials, {("retail", "tau2"): len(tasks)}, reps=10)
    assert board.flag_cause.iloc[0] == "task ids remapped: 113"
    assert board.disagreements.iloc[0] == 0


def test_checks_recorded_against_another_versions_golds_still_name_their_task():
    from loophole_ingest import import_results_file

    # whissle recorded on tau3; tau3 changed some golds' actions (task 9: tau3 checks 9_1, tau2 has 9_0 and 9_1)
    run = import_results_file(real_run("whissle_airline_tau3_1trial.json"), task_version="tau2")
    assert run.identity is not None and run.identity.refused == {} and run.identity.remapped == {}
    assert len(run.simulations) == 50 and all(s.sim is not None for s in run.simulations)
