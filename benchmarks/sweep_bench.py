"""Sweep throughput: 200 trials against the scripted server at 50 ms per completion, concurrency 8.

Usage: python benchmarks/sweep_bench.py [--trials-per-task 4] [--latency 0.05] [--skip-tau2]

Runs, in one process: our sweep (embedded Ray, threaded workers) and tau2's own ``run_tasks`` thread pool
on the same workload (airline tau2, 50 tasks x 4 trials, scripted gold agent and user). The ideal is the
latency bound: completions x latency / concurrency. Our wall time is the trials phase (Ray and the workers'
one-time start are reported separately). Ratios are printed, ours against the ideal last.

Also printed: the most requests the server answered at once (the concurrency really held) and the machine's
busy CPU during the trials phase (Linux ``/proc/stat``), with the floor it sets: busy core-seconds spread
over every core. Where that floor nears the ideal, the run is CPU-bound, not latency-bound.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
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


class CpuSampler:
    """Machine-wide busy CPU seconds (``/proc/stat``) sampled every 50 ms, to tell CPU-bound from waiting."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def busy_s() -> float:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + fields[4]  # idle + iowait
        return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.perf_counter(), self.busy_s()))
            time.sleep(0.05)

    def __enter__(self) -> CpuSampler:
        if Path("/proc/stat").exists():
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def between(self, t0: float, t1: float) -> float | None:
        inside = [b for t, b in self.samples if t0 <= t <= t1]
        return inside[-1] - inside[0] if len(inside) > 1 else None


def ours(api_base: str, trials: int, out: Path) -> tuple[float, float, float | None]:
    config = SweepConfig.model_validate({
        "name": "bench",
        "agents": [{"name": "gold", "model": "openai/scripted-agent", "args": {"api_base": api_base, "api_key": "x"}}],
        "user_simulator": {"model": "openai/scripted-user", "args": {"api_base": api_base, "api_key": "x"}},
        "domains": ["airline"], "task_versions": ["tau2"], "tasks": "all", "trials": trials,
        "max_concurrency": CONCURRENCY, "output": str(out), "flush_every": 32,
    })
    t0 = time.perf_counter()
    with CpuSampler() as cpu:
        _, progress = run_sweep(config, workers=int(os.environ.get("BENCH_WORKERS", "0")) or None)
    total = time.perf_counter() - t0
    return progress.finished_at - progress.started_at, total, cpu.between(progress.started_at, progress.finished_at)


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
    parser.add_argument("--latency", type=float, default=LATENCY,
                        help="seconds per completion (the target is set at 0.05; longer shows the CPU-bound share)")
    a = parser.parse_args()
    with ScriptedLLMServer(faults=Faults(latency_s=a.latency)) as server, tempfile.TemporaryDirectory() as tmp:
        tmp = os.environ.get("BENCH_KEEP", tmp)
        ours_s, ours_total, busy = ours(server.api_base, a.trials_per_task, Path(tmp) / "bench")
        completions = server.counts["agent"] + server.counts["user"]
        ideal = completions * a.latency / CONCURRENCY
        n = 50 * a.trials_per_task
        print(f"trials={n} completions={completions} latency={a.latency}s concurrency={CONCURRENCY} "
              f"(most requests in flight at the server: {server.max_inflight})")
        print(f"ideal (latency bound): {ideal:.2f}s")
        print(f"ours: {ours_s:.2f}s trials phase ({ours_total:.2f}s with Ray and worker start-up)")
        if busy is not None:
            cores = os.cpu_count() or 1
            print(f"machine CPU busy in the trials phase: {busy:.1f} core-s of {cores * ours_s:.1f} "
                  f"({busy / (cores * ours_s):.0%} of {cores} cores; {1000 * busy / n:.0f} ms per trial, scripted server included)")
            # were that CPU spread perfectly over every core, the trials phase could not be shorter than this
            print(f"CPU floor (busy / cores): {busy / cores:.2f}s = {busy / cores / ideal:.2f}x the ideal")
        if not a.skip_tau2:
            before = completions
            tau2_s = tau2_runner(server.api_base, a.trials_per_task)
            print(f"tau2 run_tasks: {tau2_s:.2f}s ({server.counts['agent'] + server.counts['user'] - before} completions)")
            print(f"tau2_runner/ours={tau2_s / ours_s:.2f}")
        print(f"ours/ideal={ours_s / ideal:.2f}")


if __name__ == "__main__":
    main()
