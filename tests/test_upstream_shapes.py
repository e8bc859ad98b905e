"""Every file upstream scores (#48 item 5): tool outputs written as content parts, and a simulation without
recorded actions whose task id its evidence cannot prove. Each case is an edited copy of a shared real run,
made here (never committed); the expected rows are the original file's rows, or the rewards upstream tau2
1.0.1's lenient replay gives (../shared/reference/tau2-upstream-replay.md: it scores against the file's
task id and applies every write), worked out by hand below."""

from __future__ import annotations

import copy
import json

import pandas as pd
import pytest

from tests.conftest import harness, real_run

AIRLINE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
RETAIL = "toolorchestra_retail_tau2_1trial.json"
SAME = ["task_id", "reward", "multi_gold_reward", "multi_gold_upper", "strict_reward", "status", "reason",
        "matched_gold_ids", "replay_flags", "record_json"]


def _rescore(path, out, *extra: str) -> str:
    done = harness("rescore", str(path), "--out", str(out), *extra)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _trials(out) -> pd.DataFrame:
    return pd.read_parquet(out / "trials.parquet").set_index("simulation_id").sort_index()


def _as_parts(content: str, form: int) -> object:
    parts = [{"type": "text", "text": content}]
    return [parts, json.dumps(parts), repr(parts)][form % 3]  # the list, its JSON, its Python repr


@pytest.fixture(scope="module")
def aide_rows(tmp_path_factory):
    out = tmp_path_factory.mktemp("aide") / "run"
    _rescore(real_run(AIRLINE), out)
    return _trials(out)


def test_tool_outputs_written_as_content_parts_score_as_the_text_they_hold(tmp_path, aide_rows):
    """Every tool output of the aide run rewritten as content parts, in each of the three forms: every row is
    the original's (reward, multi-gold, strict, the conversation record), flagged ``content_parts``; upstream
    1.0.1 applies these writes too (a differing output is only a warning there), so it scores them as the
    file records. Before the reading, the list form failed tau2's validation and the string forms hid the
    outputs from the conversation reading (task 33 was credited by a variant it does not meet)."""
    data = json.loads(real_run(AIRLINE).read_text(encoding="utf-8"))
    n = 0
    for sim in data["simulations"]:
        for m in sim["messages"]:
            if m["role"] == "tool":
                m["content"] = _as_parts(m["content"], n)
                n += 1
    path = tmp_path / "parts.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "run"
    stdout = _rescore(path, out)
    assert "trajectories flagged content_parts" in stdout
    rows = _trials(out)
    assert n > 300 and len(rows) == len(aide_rows) == 50
    pd.testing.assert_frame_equal(rows[SAME], aide_rows[SAME])
    assert all(list(f) == ["content_parts"] for f in rows["flags"])
    assert (aide_rows.reward == 1.0).sum() >= 30  # passes to keep: a run of zeros would prove little


def _tool_messages(sim: dict, name: str) -> list[dict]:
    ids = {tc["id"] for m in sim["messages"] for tc in (m.get("tool_calls") or []) if tc["name"] == name}
    return [m for m in sim["messages"] if m["role"] == "tool" and m["id"] in ids]


def test_a_booking_in_content_parts_is_kept_and_an_error_in_parts_is_a_failed_write(tmp_path, aide_rows):
    """Task 8's ``book_reservation`` recorded as parts holding the reservation's repr (``reservation_id='…'
    …``, as the held-out files write it) is a successful booking: applied, reward 1 (upstream applies it
    too). The same call recorded as parts holding tau2's ``Error: …`` changed nothing in its run: skipped,
    as the plain ``Error: …`` is, and the reward falls to 0."""
    data = json.loads(real_run(AIRLINE).read_text(encoding="utf-8"))
    sim = next(s for s in data["simulations"] if s["task_id"] == "8")
    booked, failed = copy.deepcopy(sim), copy.deepcopy(sim)
    failed["id"] = sim["id"] + "-failed"
    (message,) = _tool_messages(booked, "book_reservation")
    record = json.loads(message["content"])
    message["content"] = repr([{"type": "text", "text": " ".join(f"{k}={v!r}" for k, v in record.items())}])
    (message,) = _tool_messages(failed, "book_reservation")
    message["content"] = json.dumps([{"type": "text", "text": "Error: payment declined"}])
    data["simulations"] = [booked, failed]
    path = tmp_path / "booking.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "run"
    _rescore(path, out)
    rows = _trials(out)
    assert aide_rows.reward[sim["id"]] == 1.0
    kept = rows.loc[sim["id"]]
    assert kept.reward == 1.0 and "recorded_failure_skipped" not in list(kept.replay_flags)
    assert "write_output_differs" in list(kept.replay_flags)  # a repr, not tau2's JSON: applied all the same
    gone = rows.loc[failed["id"]]
    assert gone.reward == 0.0 and "recorded_failure_skipped" in list(gone.replay_flags)


def _no_actions(sim: dict, task_id: str) -> dict:
    """``sim`` as a file that names ``task_id`` and whose evaluator recorded no gold actions."""
    edited = copy.deepcopy(sim)
    edited["task_id"] = task_id
    edited["reward_info"]["action_checks"] = []
    edited["reward_info"]["communicate_checks"] = []
    return edited


def test_no_actions_and_an_unprovable_task_id_is_scored_as_upstream_when_every_candidate_agrees(tmp_path):
    """τ² retail 24 and 57 are the tasks without gold actions. Two toolorchestra conversations relabelled
    57 with no recorded actions; each authenticates a user neither task has, so the evidence fits both.
    - simulation 0 returns an item: the database differs from the initial one, which is both tasks' gold,
      so 24 and 57 both give 0, and so does upstream (it scores 57): scored 0, flagged ``task_id_unproved``;
    - simulation 2 writes nothing and never says 24's ``polyester``/``cotton``: 57 gives 1, 24 gives 0, so
      the task decides the reward: refused, with both rewards and a message that names 57 among the fits."""
    data = json.loads(real_run(RETAIL).read_text(encoding="utf-8"))
    writes, reads = data["simulations"][0], data["simulations"][2]
    text = json.dumps(reads["messages"]).lower()
    assert "polyester" not in text and "cotton" not in text
    data["simulations"] = [_no_actions(writes, "57"), _no_actions(reads, "57")]
    path = tmp_path / "no_actions.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "run"
    stdout = _rescore(path, out)
    rows = _trials(out)
    scored, refused = rows.loc[writes["id"]], rows.loc[reads["id"]]
    assert scored.reward == 0.0 and scored.status == "ok" and scored.task_id == "57"
    assert list(scored["flags"]) == ["task_id_unproved"]
    assert refused.reward is None or pd.isna(refused.reward)
    assert refused.status == "error"
    assert "fits 2 tasks (24, 57), its own among them" in refused.reason
    assert "not its own" not in refused.reason
    assert "(task 24: 0, task 57: 1)" in refused.reason
    note = next(line for line in stdout.splitlines() if "task_id_unproved" in line)
    assert "1 refused" in note and "1 without recorded actions scored against the file's task" in note


def _only_lookups(sim: dict) -> dict:
    """``sim`` with no tool call but its ``find_user_id_*`` lookups: the user is known only from their output."""
    out = copy.deepcopy(sim)
    out["reward_info"]["action_checks"] = None  # the users decide, not the recorded checks
    kept: set[str] = set()
    messages = []
    for m in out["messages"]:
        if m.get("tool_calls"):
            m["tool_calls"] = [tc for tc in m["tool_calls"] if tc["name"].startswith("find_user_id")] or None
            kept |= {tc["id"] for tc in m["tool_calls"] or []}
        if m["role"] != "tool" or m["id"] in kept:
            messages.append(m)
    out["messages"] = messages
    return out


def test_task_identity_decided_at_import_reads_content_parts_as_text(tmp_path):
    """The identity decided up front (``verify_identity``: one read of the file before scoring) knows a user
    from the output of a ``find_user_id_*`` call. Written as parts, that output is read as its text: every
    decision equals the plain text's (toolorchestra's ids need remapping; here only those lookups tell)."""
    from loophole_ingest import import_results_file

    data = json.loads(real_run(RETAIL).read_text(encoding="utf-8"))
    data["simulations"] = [_only_lookups(s) for s in data["simulations"]]
    text = tmp_path / "text.json"
    text.write_text(json.dumps(data), encoding="utf-8")
    for sim in data["simulations"]:
        for m in sim["messages"]:
            if m["role"] == "tool":
                m["content"] = _as_parts(m["content"], 0)  # the list form
    parts = tmp_path / "parts.json"
    parts.write_text(json.dumps(data), encoding="utf-8")
    by_text, by_parts = (import_results_file(p, verify_identity=True).identity for p in (text, parts))
    assert by_text is not None and by_parts is not None
    assert len(by_text.remapped) >= 20  # the lookups decide them
    assert (by_parts.remapped, by_parts.refused) == (by_text.remapped, by_text.refused)
