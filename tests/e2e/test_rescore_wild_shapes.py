"""Results shapes from the wild (issue 26), each built at test time from a shared real run: read (a bare list
of simulations, one simulation bare or wrapped) or refused in one line that says why (a fork's
``reward_basis: null``, simulations stripped of their ids); and a run with its own tool set, said once per file."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest
from tau2.data_model.simulation import SimulationRun
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

from envs import load_task_set
from loophole_base import HarnessInputError
from tests import results_layouts as layouts
from tests.conftest import harness, real_run

AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
RETAIL3 = "whissle_retail_tau3_5sims.json"
N = 10


@pytest.fixture(scope="module")
def base() -> dict:
    return layouts.subset(json.loads(real_run(AIDE).read_text()), N)


def _by_sim(out: Path, source: Path) -> pd.DataFrame:
    trials = pd.read_parquet(out / "trials.parquet")
    return trials[trials.source_file == str(source.resolve())].set_index("simulation_id")


def _notes(stdout: str, name: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("note: ") and name in line]


def test_bare_list_of_simulations_is_detected_and_scored_as_its_wrapped_file(base, tmp_path):
    """A tau2 1.0 leaderboard submission: a JSON list of simulations, no info, no tasks."""
    tree = tmp_path / "in"
    wrapped = layouts.write_monolithic(base, tree / "wrapped.json")
    bare = layouts.write_monolithic(layouts.with_v1_fields(base)["simulations"], tree / "bare.json")
    retail3 = json.loads(real_run(RETAIL3).read_text())
    bare3 = layouts.write_monolithic(retail3["simulations"], tree / "bare_retail_tau3.json")
    out = tmp_path / "out"
    proc = harness("rescore", str(tree), "--out", str(out), "--judge", "recorded")
    assert proc.returncode == 0, proc.stderr
    ours, theirs = _by_sim(out, bare), _by_sim(out, wrapped)
    assert len(ours) == N and ours.reward.notna().all()
    for column in ("task_id", "reward", "multi_gold_reward", "status", "recorded_reward"):
        assert ours[column].to_dict() == theirs[column].to_dict(), column
    assert set(ours.domain) == {"airline"} and set(ours.task_version) == {"tau2"}
    (note,) = _notes(proc.stdout, "bare.json")
    assert "no 'info' or 'tasks' (a list of simulations)" in note and "domain airline from the tool calls" in note
    # τ³ retail: the version comes from the recorded gold actions and reward basis, not a default
    r3 = _by_sim(out, bare3)
    assert set(r3.domain) == {"retail"} and set(r3.task_version) == {"tau3"}
    assert list(r3.reward) == list(r3.recorded_reward) and len(r3) == 5
    (note3,) = _notes(proc.stdout, "bare_retail_tau3.json")
    assert "detected from the recorded gold actions" in note3


def test_single_simulation_bare_or_wrapped_with_null_reward_info(base, tmp_path):
    """Per-task files from custom scripts: one simulation, ``reward_info: null``, maybe wrapped."""
    sim = copy.deepcopy(next(s for s in base["simulations"] if s["reward_info"]["reward"] == 1.0))
    recorded = sim["reward_info"]["reward"]
    task = load_task_set("airline", "tau2").by_id[sim["task_id"]]
    stock = evaluate_simulation(
        SimulationRun.model_validate(sim), task, EvaluationType.ALL, False, "airline"
    ).reward
    sim["reward_info"] = None
    single = layouts.write_monolithic(sim, tmp_path / "in" / "task_single.json")
    inner = {k: v for k, v in sim.items() if k != "task_id"}  # the wrapper alone names the task
    wrapped = layouts.write_monolithic(
        {"task_id": sim["task_id"], "reward": recorded, "simulation_run": inner},
        tmp_path / "in" / "task_wrapped.json",
    )
    out = tmp_path / "out"
    proc = harness(
        "rescore", str(single), str(wrapped), "--out", str(out), "--domain", "airline",
        "--task-version", "tau2",
    )
    assert proc.returncode == 0, proc.stderr
    a, b = _by_sim(out, single), _by_sim(out, wrapped)
    assert len(a) == len(b) == 1
    assert a.iloc[0].reward == b.iloc[0].reward == stock
    assert a.iloc[0].task_id == b.iloc[0].task_id == sim["task_id"]
    assert pd.isna(a.iloc[0].recorded_reward) and b.iloc[0].recorded_reward == recorded
    assert "(one simulation)" in _notes(proc.stdout, "task_single.json")[0]


def test_fork_with_null_reward_basis_is_refused_in_one_line(base, tmp_path):
    """AgentChangeBench: its tasks carry ``reward_basis: null``; its rewards come from its own evaluator."""
    fork = copy.deepcopy(base)
    for t in fork["tasks"]:
        t["id"] += "_systematic"
        t["evaluation_criteria"]["reward_basis"] = None
    for s in fork["simulations"]:
        s["task_id"] += "_systematic"
    path = layouts.write_monolithic(fork, tmp_path / "fork.json")
    out = tmp_path / "out"
    proc = harness("rescore", str(path), "--out", str(out))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "fork.json" in lines[0], proc.stderr
    assert "evaluation_criteria.reward_basis' is null" in lines[0] and "tau2's evaluator cannot score" in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("shape", ["monolithic", "list"])
def test_simulations_stripped_of_their_ids_are_refused_naming_the_fields(base, tmp_path, shape):
    from harness.rescoring import import_sources

    data = copy.deepcopy(base)
    for s in data["simulations"][:3]:
        del s["task_id"]
    for s in data["simulations"][5:9]:
        del s["termination_reason"]
    path = layouts.write_monolithic(
        data if shape == "monolithic" else data["simulations"], tmp_path / "stripped.json"
    )

    def refusal() -> str:
        with pytest.raises(HarnessInputError) as err:
            runs, _ = import_sources([str(path)], None, False)
            for run in runs:
                list(run.iter_simulations())
        return str(err.value)

    message = refusal()
    assert "\n" not in message and "stripped.json" in message
    assert f"3 of {N} lack field 'task_id'" in message
    assert f"4 of {N} lack field 'termination_reason'" in message


def test_a_run_with_its_own_tools_is_one_note_per_file(base, tmp_path):
    """An agent with a wiki tool: one line for the file. By default its calls are no-ops, as tau2 1.0.1's
    lenient replay runs them (rows flagged); the pinned package's strict replay cannot replay them."""
    data = copy.deepcopy(base)
    renamed = []
    for s in data["simulations"][:3]:
        call = next(tc for m in s["messages"] for tc in m.get("tool_calls") or [])
        call["name"] = "list_articles"
        renamed.append(s["id"])
    # an agent that invents a tool in a tau2 run gets tau2's error back: it replays, and is no custom tool set
    s = data["simulations"][3]
    call = next(tc for m in s["messages"] for tc in m.get("tool_calls") or [])
    call["name"] = "lookup_everything"
    result = next(m for m in s["messages"] if m.get("role") == "tool" and m.get("id") == call["id"])
    result.update(content="Error: Tool 'lookup_everything' not found.", error=True)
    path = layouts.write_monolithic(data, tmp_path / "wiki_agent.json")
    lenient = harness("rescore", str(path), "--out", str(tmp_path / "lenient"))
    assert lenient.returncode == 0, lenient.stderr
    (note,) = _notes(lenient.stdout, "wiki_agent.json")
    assert f"list_articles (3), in 3 of {N} simulations" in note and "no-ops, as tau2 1.0.1" in note
    scored = _by_sim(tmp_path / "lenient", path)
    for sim_id in renamed:  # the renamed calls were reads: the original's reward, flagged
        row = scored.loc[sim_id]
        assert row.status == "ok" and row.reward == row.recorded_reward
        assert {"unknown_tool", "strict_replay_diverges"} <= set(row.replay_flags)
    out = tmp_path / "out"
    proc = harness("rescore", str(path), "--out", str(out), "--replay", "strict")
    assert proc.returncode == 0, proc.stderr
    notes = _notes(proc.stdout, "wiki_agent.json")
    assert len(notes) == 1, proc.stdout
    assert f"list_articles (3), in 3 of {N} simulations" in notes[0] and "cannot replay them" in notes[0]
    assert "lookup_everything" not in proc.stdout
    trials = _by_sim(out, path)
    assert len(trials) == N
    for sim_id in renamed:
        row = trials.loc[sim_id]
        assert row.status == "replay_divergence" and pd.isna(row.reward)
        assert row.reason.startswith("custom tools: the agent called list_articles")
    invented = trials.loc[data["simulations"][3]["id"]]
    # scored, as tau2's own evaluator scores the edited simulation (a NaN reward is "not None" too)
    stock = evaluate_simulation(
        SimulationRun.model_validate(data["simulations"][3]),
        load_task_set("airline", "tau2").by_id[invented.task_id], EvaluationType.ALL, False, "airline",
    ).reward
    assert invented.status == "ok" and pd.notna(invented.reward) and invented.reward == stock
