"""A small converter: a monolithic ``tau2 run`` results object into the other layouts tau2 1.0 writes, and
the tau2 1.0 field changes, so that tests build their fixtures from ../shared/real-runs (never committed)."""

from __future__ import annotations

import copy
import json
from pathlib import Path


def subset(data: dict, n: int) -> dict:
    """The first ``n`` simulations and the tasks they name."""
    out = copy.deepcopy(data)
    out["simulations"] = out["simulations"][:n]
    ids = {s["task_id"] for s in out["simulations"]}
    out["tasks"] = [t for t in out["tasks"] if t["id"] in ids]
    return out


def write_monolithic(data: dict, path: Path, indent: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent), encoding="utf-8")
    return path


def write_folder_run(data: dict, folder: Path) -> Path:
    """tau2 1.0 text runs: ``<run>/results.json`` holding the same object (indented, as tau2 1.0 writes it)."""
    return write_monolithic({**data, "format_version": "1.0"}, folder / "results.json", indent=2)


def write_dir_run(data: dict, folder: Path) -> Path:
    """tau2 1.0's dir layout: metadata and ``simulation_index`` in results.json, one file per simulation."""
    sims = data["simulations"]
    index = [
        {
            "id": s["id"],
            "task_id": s["task_id"],
            "trial": s.get("trial"),
            "reward": (s.get("reward_info") or {}).get("reward"),
            "termination_reason": s["termination_reason"],
            "agent_cost": s.get("agent_cost"),
            "duration": s.get("duration"),
        }
        for s in sims
    ]
    meta = {k: v for k, v in data.items() if k != "simulations"}
    write_monolithic(
        {**meta, "simulations": [], "simulation_index": index}, folder / "results.json"
    )
    for s in sims:
        write_monolithic(s, folder / "simulations" / f"{s['id']}.json")
    return folder


def with_v1_fields(data: dict) -> dict:
    """Fields tau2 1.0 adds (all of which the harness must ignore)."""
    out = copy.deepcopy(data)
    out["info"]["text_streaming_config"] = {"enabled": False}
    out["info"]["agent_info"]["voice_settings"] = None
    out["info"]["workers"] = 4  # tau2 1.0.1: controller mode and its per-provider leases
    out["info"]["provider_limits"] = {"openai": 40, "gemini": 20}
    for t in out["tasks"]:
        t["issues"] = [{"id": "i1", "title": "t", "description": "d", "status": "open"}]
    for s in out["simulations"]:
        s.update(
            mode="half_duplex", ticks=None, review={"summary": "ok", "errors": []}, policy=None,
            agent_usage={"provider": "openai", "model": "gpt-4.1", "input_tokens": 1200, "output_tokens": 310,
                         "cost": 0.0124, "breakdown": [{"kind": "text", "input_tokens": 1200}]},
            user_usage=None,
        )
        for m in s["messages"]:
            m.update(is_audio=False, turn_taking_action=None)
    return out


def with_v1_terminations(data: dict, reasons: dict[int, str]) -> dict:
    """Simulation ``i`` ended with ``reasons[i]``; its recorded reward is 0, as tau2 1.0 records it."""
    out = copy.deepcopy(data)
    for i, reason in reasons.items():
        s = out["simulations"][i]
        s["termination_reason"] = reason
        s["reward_info"] = {
            "reward": 0.0,
            "reward_basis": None,
            "info": {"note": f"terminated: {reason}"},
        }
    return out


def with_null_messages(data: dict, i: int) -> dict:
    """A full-duplex simulation: ``messages: null``, only ticks."""
    out = copy.deepcopy(data)
    out["simulations"][i]["messages"] = None
    out["simulations"][i]["ticks"] = [{"tick": 0, "events": []}]
    return out


# --- tau2 main's fields (#48 item 6), written as its models define them --------------------------------------

def failed_gold_write(action_id: str, tool_name: str, error: str) -> dict:
    """One record of ``replay_golden_actions`` (sierra-research/tau2-bench main,
    src/tau2/evaluator/evaluator_env.py): a gold write that raised, as ``RewardInfo.info`` lists it."""
    return {"action_id": action_id, "tool_name": tool_name, "requestor": "assistant", "error_type": "ValueError",
            "error": error}


def with_main_fields(data: dict, task_set_name: str | None, incomplete: dict[int, list[dict]]) -> dict:
    """``data`` as tau2 main writes it after ``evaluate-trajs --scores reward,quality,nativeness``:
    - ``info.task_set_name`` (src/tau2/scripts/evaluate_trajectories.py reads ``results.info.task_set_name``);
    - per ``RewardInfo`` the provenance of docs/evaluation.md ("Evaluator provenance": ``evaluation_mode``,
      ``state_source``, ``replayed_actions`` labelled trajectory/reference, ``warnings``; PR #467);
    - for simulation ``i`` in ``incomplete``, #499's ``_resolve_db_check`` outcome of a match on an incomplete
      gold: ``db_check`` None and ``info = {gold_replay_incomplete, failed_mutating_actions, db_evaluated}``;
    - ``quality_info`` as ``evaluate_quality`` returns ``QualityInfo`` (src/tau2/judges/quality/harness.py) and a
      ``nativeness_info`` with its score (src/tau2/judges/attach.py attaches both to the simulation)."""
    out = copy.deepcopy(data)
    if task_set_name is not None:
        out["info"]["task_set_name"] = task_set_name
    for i, s in enumerate(out["simulations"]):
        ri = s.setdefault("reward_info", {"reward": 0.0})
        calls = [tc for m in s["messages"] for tc in (m.get("tool_calls") or [])]
        ri.update(
            evaluation_mode="replay", state_source="replayed",
            replayed_actions=[{"source": "trajectory", "name": tc["name"], "arguments": tc["arguments"]} for tc in calls]
            + [{"source": "reference", "name": c["action"]["name"], "arguments": c["action"]["arguments"]}
               for c in ri.get("action_checks") or []],
            warnings=["lenient replay (strict_replay=False): recorded tool outputs were not compared"],
        )
        if i in incomplete:
            ri["db_check"] = None
            ri["info"] = {"gold_replay_incomplete": True, "failed_mutating_actions": incomplete[i],
                          "db_evaluated": False}
        s["quality_info"] = {"score": 0.75, "factor_checks": [], "rubric_version": "quality-rubric-v1",
                             "metrics_version": "v1", "num_pass": 3, "num_fail": 1, "num_no_opportunity": 0,
                             "num_deferred": 2, "num_errors": 0, "score_coverage": 0.667}
        s["nativeness_info"] = {"score": 1.0, "factor_checks": []}
    return out


def streamed_simulations(path: Path) -> list:
    """A results file's simulations as ``loophole_ingest``'s stream reader reads them, one member at a time: what
    every span of the file must decode to."""
    from loophole_ingest._jsonstream import ARRAY, elements, members, open_stream

    stream = open_stream(path)
    try:
        for key, value in members(stream):
            if key == "simulations" and value is ARRAY:
                return list(elements(stream, "simulations"))
    finally:
        stream.close()
    raise AssertionError("no simulations")
