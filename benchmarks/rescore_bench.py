"""Rescoring speed: tau2's stock ``evaluate_simulation`` against our engine, same trajectories, one run.

Usage: python benchmarks/rescore_bench.py [RESULTS_FILE]   (default: ../shared/real-runs/whissle_airline_tau3_1trial.json)

Both sides run on one core in this process. Ours includes loading the domain database once (the per-worker
setup). Trajectories where stock tau2 raises (pydantic version noise in replayed tool outputs) are timed
for both but compared only where stock returns. The rewards must be identical; the ratio is printed last.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HARNESS_TAU_DATA", str(ROOT.parent / "shared" / "tau-data"))
sys.path.insert(0, str(ROOT))

from harness._quiet import set_log_level  # noqa: E402

set_log_level(False)

from tau2.data_model.simulation import SimulationRun  # noqa: E402
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation  # noqa: E402

from envs import load_task_set  # noqa: E402
from envs.replay import ReplayEngine  # noqa: E402
from harness.importers import import_results_file  # noqa: E402
from harness.scoring import score_trajectory  # noqa: E402


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared/real-runs/whissle_airline_tau3_1trial.json"
    run = import_results_file(path)
    task_set = load_task_set(run.domain, run.task_version)
    sims = [SimulationRun.model_validate(item.raw) for item in run.simulations]
    tasks = [task_set.task(s.task_id) for s in sims]

    t0 = time.perf_counter()
    stock: list[float | None] = []
    for sim, task in zip(sims, tasks, strict=True):
        try:
            stock.append(evaluate_simulation(sim, task, EvaluationType.ALL, False, run.domain).reward)
        except Exception:  # noqa: BLE001 - stock raises on version noise; ours normalises it
            stock.append(None)
    t_stock = time.perf_counter() - t0

    t0 = time.perf_counter()
    engine = ReplayEngine(run.domain)
    ours = [score_trajectory(sim, task, engine).single_gold.reward for sim, task in zip(sims, tasks, strict=True)]
    t_ours = time.perf_counter() - t0

    compared = [(a, b) for a, b in zip(stock, ours, strict=True) if a is not None]
    mismatches = sum(a != b for a, b in compared)
    recorded = [json.loads(json.dumps((i.raw.get("reward_info") or {}).get("reward"))) for i in run.simulations]
    print(f"file={path.name} trajectories={len(sims)} domain={run.domain} version={run.task_version}")
    print(f"stock: {t_stock:.2f}s ({1000 * t_stock / len(sims):.1f} ms/trajectory), raised on {stock.count(None)}")
    print(f"ours:  {t_ours:.3f}s ({1000 * t_ours / len(sims):.2f} ms/trajectory, database load included)")
    print(f"rewards identical where stock runs: {len(compared) - mismatches}/{len(compared)}")
    print(f"ours equal recorded: {sum(a == b for a, b in zip(ours, recorded, strict=True))}/{len(sims)}")
    if mismatches:
        print("REWARDS DIFFER", file=sys.stderr)
        sys.exit(1)
    print(f"speedup={t_stock / t_ours:.1f}")


if __name__ == "__main__":
    main()
