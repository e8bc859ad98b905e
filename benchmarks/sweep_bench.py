"""Sweep throughput: 200 trials against the scripted server at 50 ms per completion, concurrency 8.

Usage: python benchmarks/sweep_bench.py [--trials-per-task 4]

Runs, in one process: our sweep (embedded Ray, threaded workers) and tau2's own ``run_tasks`` thread pool
on the same workload (airline tau2, 50 tasks x 4 trials, scripted gold agent and user). The ideal is the
latency bound: completions x latency / concurrency. Our wall time is the trials phase (Ray and the workers'
one-time start are reported separately). Ratios are printed, ours against the ideal last.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HARNESS_TAU_DATA", str(ROOT.parent / "shared" / "tau-data"))
sys.path.insert(0, str(ROOT))

from harness._quiet import set_log_level  # noqa: E402

set_log_level(False)

from envs import load_task_set  # noqa: E402
from harness.config import SweepConfig  # noqa: E402
from harness.scripted_llm import Faults, ScriptedLLMServer, register_scripted_models  # noqa: E402
from harness.sweep import run_sweep  # noqa: E402

LATENCY = 0.05
CONCURRENCY = 8


def ours(api_base: str, trials: int, out: Path) -> tuple[float, float]:
    config = SweepConfig.model_validate({
        "name": "bench",
        "agents": [{"name": "gold", "model": "openai/scripted-agent", "args": {"api_base": api_base, "api_key": "x"}}],
        "user_simulator": {"model": "openai/scripted-user", "args": {"api_base": api_base, "api_key": "x"}},
        "domains": ["airline"], "task_versions": ["tau2"], "tasks": "all", "trials": trials,
        "max_concurrency": CONCURRENCY, "output": str(out), "flush_every": 32,
    })
    t0 = time.perf_counter()
    _, progress = run_sweep(config, workers=int(os.environ.get("BENCH_WORKERS", "0")) or None)
    total = time.perf_counter() - t0
    return progress.finished_at - progress.started_at, total


def tau2_runner(api_base: str, trials: int) -> float:
    from tau2.run import run_tasks

    tasks = list(load_task_set("airline", "tau2").tasks)
    args = {"api_base": api_base, "api_key": "x", "num_retries": 0}
    t0 = time.perf_counter()
    run_tasks(
        "airline", tasks, "llm_agent", "user_simulator",
        llm_agent="openai/scripted-agent", llm_args_agent=args,
        llm_user="openai/scripted-user", llm_args_user=args,
        num_trials=trials, max_concurrency=CONCURRENCY, console_display=False, log_level="ERROR",
    )
    return time.perf_counter() - t0


def main() -> None:
    register_scripted_models()  # the same for both runners (ours registers it in every worker too)
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials-per-task", type=int, default=4)
    parser.add_argument("--skip-tau2", action="store_true")
    a = parser.parse_args()
    with ScriptedLLMServer(faults=Faults(latency_s=LATENCY)) as server, tempfile.TemporaryDirectory() as tmp:
        tmp = os.environ.get("BENCH_KEEP", tmp)
        ours_s, ours_total = ours(server.api_base, a.trials_per_task, Path(tmp) / "bench")
        completions = server.counts["agent"] + server.counts["user"]
        ideal = completions * LATENCY / CONCURRENCY
        n = 50 * a.trials_per_task
        print(f"trials={n} completions={completions} latency={LATENCY}s concurrency={CONCURRENCY}")
        print(f"ideal (latency bound): {ideal:.2f}s")
        print(f"ours: {ours_s:.2f}s trials phase ({ours_total:.2f}s with Ray and worker start-up)")
        if not a.skip_tau2:
            before = completions
            tau2_s = tau2_runner(server.api_base, a.trials_per_task)
            print(f"tau2 run_tasks: {tau2_s:.2f}s ({server.counts['agent'] + server.counts['user'] - before} completions)")
            print(f"tau2_runner/ours={tau2_s / ours_s:.2f}")
        print(f"ours/ideal={ours_s / ideal:.2f}")


if __name__ == "__main__":
    main()
