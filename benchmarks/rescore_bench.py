"""Rescoring speed: tau2's stock ``evaluate_simulation`` against our engine, same trajectories, one run.

Usage: python benchmarks/rescore_bench.py [RESULTS_FILE]   (default: ../shared/real-runs/whissle_airline_tau3_1trial.json)
       python benchmarks/rescore_bench.py --large [MB]   (default 200: a results file of that size, see below)

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
from harness.ingest import import_results_file  # noqa: E402
from loophole_scoring import score_trajectory  # noqa: E402


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



# --- a large results file: memory and time of the import, whole-file against streaming -----------
# tau2 1.0 runs with many trials (or voice ticks) reach hundreds of MB. The file is the aide airline run's
# simulations repeated with fresh ids. "whole" reads the file as the harness did before streaming (one
# json.loads of the file, held while scoring); "streaming" reads one simulation at a time. Scoring and the
# Parquet writes are the same code. Each side runs in its own child process, so each peak RSS is its own.


def _large_file(mb: int, dest: Path) -> Path:
    base = json.loads((ROOT.parent / "shared/real-runs/aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text())
    sims = base.pop("simulations")
    with open(dest, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(base)[:-1] + ', "simulations": [')
        n = 0
        while fh.tell() < mb * 1_000_000:
            for sim in sims:
                fh.write(("" if n == 0 else ", ") + json.dumps({**sim, "id": f"{sim['id']}-{n}", "trial": n // len(sims)}))
                n += 1
        fh.write("]}")
    return dest


def _child(mode: str, path: str, out: str) -> None:
    import resource

    from harness.rescoring import rescore_runs

    t0 = time.perf_counter()
    run = import_results_file(Path(path))
    if mode == "whole":  # the file parsed in one piece and held, then the same scoring and writing
        data = json.loads(Path(path).read_bytes())
        run._raw_simulations = lambda: iter(data["simulations"])  # type: ignore[method-assign]
    n = rescore_runs([run], Path(out))[0].count
    elapsed = time.perf_counter() - t0
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"mode": mode, "trajectories": n, "seconds": elapsed, "peak_rss_mb": peak_mb}))


def large(mb: int) -> None:
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = _large_file(mb, Path(tmp) / "large.json")
        size = path.stat().st_size / 1e6
        results = {}
        for mode in ("whole", "streaming"):
            proc = subprocess.run(
                [sys.executable, __file__, "--child", mode, str(path), str(Path(tmp) / f"out-{mode}")],
                capture_output=True, text=True, check=False,
            )
            if proc.returncode != 0:
                print(proc.stderr[-2000:], file=sys.stderr)
                sys.exit(1)
            results[mode] = json.loads(proc.stdout.strip().splitlines()[-1])
        for mode, r in results.items():
            print(f"{mode}: {size:.0f} MB file, {r['trajectories']} trajectories, {r['seconds']:.1f} s, "
                  f"peak RSS {r['peak_rss_mb']:.0f} MB")
        w, s = results["whole"], results["streaming"]
        print(f"large file: streaming peak RSS {s['peak_rss_mb']:.0f} MB (target <= 1024), "
              f"time ratio whole/streaming={w['seconds'] / s['seconds']:.2f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(*sys.argv[2:5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--large":
        large(int(sys.argv[2]) if len(sys.argv) > 2 else 200)
    else:
        main()
