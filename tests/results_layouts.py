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
