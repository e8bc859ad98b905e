"""The two replays (#41): lenient, as upstream tau2 1.0.1's ``evaluate-trajs``, by default; strict, as the
pinned package, on request. Each case is an edited copy of a real run (../shared/real-runs, aide, τ²)."""

from __future__ import annotations

import copy
import json

import pandas as pd
import pytest
from tau2.data_model.simulation import SimulationRun

from envs import ReplayFlag, ReplayMode, engine_for, tool_call_pairs
from loophole_scoring import score_simulation
from tests.conftest import harness, real_run

AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"


@pytest.fixture(scope="module")
def aide() -> dict:
    return json.loads(real_run(AIDE).read_text(encoding="utf-8"))


def _sim(aide: dict, task_id: str) -> dict:
    return copy.deepcopy(next(s for s in aide["simulations"] if s["task_id"] == task_id))


def _score(raw: dict, replay: ReplayMode = ReplayMode.LENIENT):
    sim = SimulationRun.model_validate(raw)
    return score_simulation(sim, "airline", "tau2", engine_for("airline"), None, replay=replay)


def _rewards(scored) -> tuple:
    r = scored.result
    return r.single_gold.reward, r.multi_gold_reward, r.multi_gold_upper, scored.strict.reward


def _as_repr(content: str) -> str:
    """A tool output as a custom agent recorded it: the Python repr of the value, not JSON."""
    try:
        return repr(json.loads(content))
    except (json.JSONDecodeError, TypeError):
        return content


def _tool_messages(raw: dict, name: str) -> list[dict]:
    """The recorded tool messages answering calls to ``name``."""
    ids = {tc["id"] for m in raw["messages"] for tc in (m.get("tool_calls") or []) if tc["name"] == name}
    return [m for m in raw["messages"] if m["role"] == "tool" and m["id"] in ids]


def test_repr_outputs_score_as_the_original(aide):
    """Reads and writes recorded as Python reprs: lenient scores as the original, flagged; strict gives null."""
    checked = 0
    for task_id in ("19", "11", "17", "8"):  # a cancel, flights, flights+passengers+bags, a booking
        raw = _sim(aide, task_id)
        edited = copy.deepcopy(raw)
        for m in edited["messages"]:
            if m["role"] == "tool":
                m["content"] = _as_repr(m["content"])
        assert edited != raw
        original, lenient = _score(raw), _score(edited)
        assert _rewards(lenient) == _rewards(original), task_id
        assert original.result.replay_flags == {}
        assert ReplayFlag.STRICT_DIVERGES in lenient.result.replay_flags
        assert ReplayFlag.WRITE_OUTPUT_DIFFERS in lenient.result.replay_flags  # every case has a write
        strict = _score(edited, ReplayMode.STRICT)
        assert strict.result.single_gold.reward is None
        assert strict.result.single_gold.status == "replay_divergence"
        checked += original.result.single_gold.reward == 1.0
    assert checked == 4  # all four originals pass: a copy that scored 0 would prove little


def _insert_calls(raw: dict, after: int, calls: list[tuple[str, dict, str]]) -> dict:
    """``calls`` (name, arguments, recorded output) made by the agent after message ``after``."""
    edited = copy.deepcopy(raw)
    stamp = edited["messages"][after].get("timestamp")
    tool_calls = [
        {"id": f"inserted-{i}", "name": name, "arguments": args, "requestor": "assistant"}
        for i, (name, args, _) in enumerate(calls)
    ]
    new = [{"role": "assistant", "content": None, "tool_calls": tool_calls, "timestamp": stamp}]
    new += [
        {"role": "tool", "id": f"inserted-{i}", "content": out, "requestor": "assistant", "error": False,
         "timestamp": stamp}
        for i, (_, _, out) in enumerate(calls)
    ]
    edited["messages"][after + 1:after + 1] = new
    return edited


def test_think_and_unknown_tools_are_no_ops(aide):
    raw = _sim(aide, "19")
    first_user = next(i for i, m in enumerate(raw["messages"]) if m["role"] == "user")
    edited = _insert_calls(raw, first_user, [
        ("think", {"thought": "The user wants to cancel; check the 24h rule first."}, "Thought logged."),
        ("get_article", {"article_id": "cancellation-policy"}, '{"title": "Cancellations", "body": "..."}'),
    ])
    original, lenient = _score(raw), _score(edited)
    assert _rewards(original)[0] == 1.0
    assert _rewards(lenient) == _rewards(original)
    flags = lenient.result.replay_flags
    assert [c.split()[1] for c in flags[ReplayFlag.UNKNOWN_TOOL]] == ["think", "get_article"]
    assert ReplayFlag.STRICT_DIVERGES in flags  # the pinned package answers "Error: Tool 'think' not found"
    strict = _score(edited, ReplayMode.STRICT)
    assert strict.result.single_gold.reward is None and strict.result.single_gold.status == "replay_divergence"


def _without_call(raw: dict, name: str) -> dict:
    """The copy in which the agent never made its calls to ``name``."""
    edited = copy.deepcopy(raw)
    ids = {tc["id"] for m in edited["messages"] for tc in (m.get("tool_calls") or []) if tc["name"] == name}
    kept = []
    for m in edited["messages"]:
        if m["role"] == "tool" and m["id"] in ids:
            continue
        if m.get("tool_calls"):
            m["tool_calls"] = [tc for tc in m["tool_calls"] if tc["id"] not in ids] or None
            if m["tool_calls"] is None and not m.get("content"):
                continue
        kept.append(m)
    edited["messages"] = kept
    return edited


@pytest.mark.parametrize("recorded", ["guard", "error"])
def test_a_write_recorded_as_failed_is_skipped(aide, recorded):
    """The run's guard blocked ``cancel_reservation`` (or the tool failed): the database never changed, so
    the lenient replay skips it, where upstream replays it and scores the cancellation the run never made."""
    raw = _sim(aide, "19")
    edited = copy.deepcopy(raw)
    (message,) = _tool_messages(edited, "cancel_reservation")
    if recorded == "guard":
        message["content"] = "[BLOCKED] cancel_reservation: refused by the deployment's policy guard"
    else:
        message["content"], message["error"] = "Error: upstream service unavailable", True
    never = _without_call(raw, "cancel_reservation")
    lenient, absent = _score(edited), _score(never)
    assert _rewards(_score(raw))[0] == 1.0
    assert lenient.result.single_gold.reward == absent.result.single_gold.reward == 0.0
    assert lenient.result.single_gold.db_match is False
    assert lenient.result.replay_flags[ReplayFlag.RECORDED_FAILURE_SKIPPED] == ["#2 cancel_reservation"]
    # the replay's end state is the state without the write, record for record
    engine = engine_for("airline")
    sim, gone = (SimulationRun.model_validate(r) for r in (edited, never))
    skipped = engine.replay_trajectory(tool_call_pairs(sim.messages), ReplayMode.LENIENT)
    made = engine.replay_trajectory(tool_call_pairs(SimulationRun.model_validate(raw).messages))
    assert engine.states_equal(skipped.state, engine.replay_trajectory(tool_call_pairs(gone.messages)).state)
    assert not engine.states_equal(skipped.state, made.state)
    # strict replays it and stops at the output that differs
    assert _score(edited, ReplayMode.STRICT).result.single_gold.status == "replay_divergence"


def test_a_write_that_fails_on_replay_too_is_kept_as_tau2_runs_it(aide):
    """A recorded error that the replay reproduces is no skipped write: nothing to flag, strict agrees."""
    raw = _sim(aide, "19")
    call = next(tc for m in raw["messages"] for tc in (m.get("tool_calls") or [])
                if tc["name"] == "cancel_reservation")
    call["arguments"] = {"reservation_id": "NOSUCH"}
    (message,) = _tool_messages(raw, "cancel_reservation")
    sim = SimulationRun.model_validate(raw)
    tool_call = next(tc for m in sim.messages for tc in (getattr(m, "tool_calls", None) or []) if tc.id == call["id"])
    live = engine_for("airline").respond([tool_call])[0]  # what tau2 answers it
    assert live.error
    message["content"], message["error"] = live.content, True
    lenient, strict = _score(raw), _score(raw, ReplayMode.STRICT)
    assert lenient.result.replay_flags == {}
    assert _rewards(lenient) == _rewards(strict)
    assert lenient.result.single_gold.reward == 0.0


def test_rescore_cli_default_and_strict(aide, tmp_path):
    """Through the CLI: the default scores the repr copy and says how many rows carry each flag;
    ``--replay strict`` keeps today's nulls; ``run.json`` and each row name the mode."""
    data = copy.deepcopy(aide)
    data["simulations"] = [s for s in data["simulations"] if s["task_id"] in ("19", "11", "40")]
    data["tasks"] = [t for t in data["tasks"] if t["id"] in ("19", "11", "40")]
    for s in data["simulations"]:
        if s["task_id"] != "40":
            for m in s["messages"]:
                if m["role"] == "tool":
                    m["content"] = _as_repr(m["content"])
    path = tmp_path / "repr.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    lenient = harness("rescore", str(path), "--out", str(tmp_path / "lenient"))
    assert lenient.returncode == 0, lenient.stderr
    assert "2 trajectories replay-flagged strict_replay_diverges" in lenient.stdout
    trials = pd.read_parquet(tmp_path / "lenient" / "trials.parquet").set_index("task_id")
    assert set(trials.replay_mode) == {"lenient"}
    assert list(trials.loc["40", "replay_flags"]) == []
    assert trials.reward.notna().all()
    assert (trials.reward == trials.recorded_reward).all()
    assert json.loads((tmp_path / "lenient" / "run.json").read_text())["replay"] == "lenient"
    from analysis import analyze_trials
    from loophole_store import open_run

    (note,) = [n for n in analyze_trials(open_run(tmp_path / "lenient").trials, reps=10).notes if "replay flags" in n]
    assert "strict_replay_diverges (2), write_output_differs (2) trials" in note  # the report's notes say it
    strict = harness("rescore", str(path), "--out", str(tmp_path / "strict"), "--replay", "strict")
    assert strict.returncode == 0, strict.stderr
    rows = pd.read_parquet(tmp_path / "strict" / "trials.parquet").set_index("task_id")
    assert rows.reward.isna().sum() == 2 and rows.loc["40", "reward"] == trials.loc["40", "reward"]
    assert set(rows.status) == {"replay_divergence", "ok"}
    import harness as api  # the CLI's one-line error is this HarnessInputError's text (test_cli_api_parity)
    from loophole_base import HarnessInputError

    with pytest.raises(HarnessInputError, match=r"^--replay 'loose': must be one of \['lenient', 'strict'\]$"):
        api.rescore([path], tmp_path / "bad", replay="loose")
    assert not (tmp_path / "bad").exists()


def _corpus() -> list:
    from tests.conftest import REAL_RUNS, SHARED

    return sorted(REAL_RUNS.glob("*.json")) + sorted((SHARED / "dev-corpus" / "runs").glob("*.json"))


def test_lenient_equals_strict_wherever_strict_does_not_diverge():
    """On every shared run and the dev corpus: the two replays give the same rewards, verdicts, reasons and
    explanations, row by row and gold by gold (strict itself equals the pinned evaluator: test_rescore_parity
    and the property test)."""
    from loophole_ingest import import_results_file

    compared = diverged = 0
    for path in _corpus():
        run = import_results_file(path)
        engine = engine_for(run.domain)
        for item in run.simulations:
            if item.sim is None:
                continue
            both = [score_simulation(item.sim, run.domain, run.task_version, engine, None, replay=mode)
                    for mode in (ReplayMode.LENIENT, ReplayMode.STRICT)]
            if ReplayFlag.STRICT_DIVERGES in both[0].result.replay_flags:
                diverged += 1
                continue
            lenient, strict = ([(s.gold_id, s.reward, s.verdict, s.reason, s.db_match, s.explanation_json)
                                for s in scored.result.scores] + [scored.strict] for scored in both)
            assert lenient == strict, (path.name, item.sim.task_id)
            compared += 1
    assert compared >= 500 and diverged == 0  # none of these files diverges: all are compared


def test_a_call_whose_arguments_cannot_be_read_is_refused_naming_the_call_and_field(aide, tmp_path):
    """The one simulation whose final state cannot be known: a write's arguments that are no JSON object.
    Its refusal names the message, the call and the field (not the first member of tau2's message union)."""
    import harness as api
    from loophole_base import HarnessInputError

    data = copy.deepcopy(aide)
    data["simulations"] = [_sim(aide, "19")]
    index, call = next((i, tc) for i, m in enumerate(data["simulations"][0]["messages"])
                       for tc in (m.get("tool_calls") or []) if tc["name"] == "cancel_reservation")
    call["arguments"] = '{"reservation_id": "EHGLP'  # cut off mid-string
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(HarnessInputError) as err:
        api.rescore([path], tmp_path / "out")
    message = str(err.value)
    assert "\n" not in message and not (tmp_path / "out").exists()
    assert f"field 'messages.{index}.tool_calls.0.arguments' (the call to cancel_reservation): " in message
    assert "valid dictionary" in message
