"""Sweep throughput: 200 trials against the scripted server at 50 ms per completion, concurrency 8.

Usage: python benchmarks/sweep_bench.py [--trials-per-task N] [--latency 0.05] [--concurrency 8]
                                        [--rate-limit R] [--skip-tau2]

Runs, in one process: our sweep (embedded Ray, threaded workers) and tau2's own ``run_tasks`` thread pool
on the same workload (airline tau2, 50 tasks x N trials, scripted gold agent and user). The ideal is the
latency bound: completions x latency / concurrency. Our wall time is the trials phase (Ray and the workers'
one-time start are reported separately). Ratios are printed, ours against the ideal last.

The workload grows with the concurrency: N = max(4, concurrency / 4) trials per task unless given, so
each slot runs a dozen trials or so, as in a real sweep (18 models x 164 tasks x 4 trials on 64 slots is
over 180 trials a slot). With only three trials a slot (200 trials on 64), no schedule reaches the ideal:
a trial's completions are sequential and the longest takes 23 of them, which alone is 1.24x that ideal.
The critical path (the longest trial's completions x latency) is printed beside the ideal.

Also printed: the most requests the server answered at once (the concurrency really held) and the machine's
busy CPU during the trials phase (Linux ``/proc/stat``), with the floor it sets: busy core-seconds spread
over every core. Where that floor nears the ideal, the run is CPU-bound, not latency-bound. The harness's
own CPU (this process and its Ray processes, less the scripted server's thread) is printed per completion.

``--rate-limit R``: the server allows each model R requests a second (above it: 429 with Retry-After).
Printed last: ``trials_lost=N`` (trials without a scored row) and ``rate_use=X``, the completions a second
of the busiest model (the scripted agent's) in the trials phase over R. tau2's runner is skipped then.
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
from harness.sweeping import run_sweep  # noqa: E402
from loophole_scripted_llm import Faults, ScriptedLLMServer, register_scripted_models  # noqa: E402

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


def _proc_cpu_s(stat: Path) -> float:
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def harness_cpu_s(server_tid: int | None) -> float:
    """CPU seconds of this process and every process under it (Ray's), less the scripted server's thread."""
    parents: dict[int, int] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parents[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    ours = {os.getpid()}
    grew = True
    while grew:
        below = {pid for pid, ppid in parents.items() if ppid in ours} - ours
        ours |= below
        grew = bool(below)
    total = 0.0
    for pid in ours:
        try:
            total += _proc_cpu_s(Path(f"/proc/{pid}/stat"))
        except OSError:
            continue
    if server_tid is not None:
        total -= _proc_cpu_s(Path(f"/proc/self/task/{server_tid}/stat"))
    return total


def ours(api_base: str, trials: int, out: Path, server_tid: int | None = None) -> tuple[float, float, float | None, float]:
    config = SweepConfig.model_validate({
        "name": "bench",
        "agents": [{"name": "gold", "model": "openai/scripted-agent", "args": {"api_base": api_base, "api_key": "x"}}],
        "user_simulator": {"model": "openai/scripted-user", "args": {"api_base": api_base, "api_key": "x"}},
        "domains": ["airline"], "task_versions": ["tau2"], "tasks": "all", "trials": trials,
        "max_concurrency": CONCURRENCY, "output": str(out), "flush_every": 32,
    })
    t0 = time.perf_counter()
    marks: dict[str, float] = {}

    def on_progress(progress) -> None:  # type: ignore[no-untyped-def]
        if progress.started_at is not None and "cpu0" not in marks:
            marks["cpu0"] = harness_cpu_s(server_tid)  # workers are up: the trials phase starts

    with CpuSampler() as cpu:
        _, progress = run_sweep(config, on_progress, workers=int(os.environ.get("BENCH_WORKERS", "0")) or None)
        harness_cpu = harness_cpu_s(server_tid) - marks.get("cpu0", 0.0)
    total = time.perf_counter() - t0
    busy = cpu.between(progress.started_at, progress.finished_at)
    return progress.finished_at - progress.started_at, total, busy, harness_cpu


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


def longest_trial_completions(out: Path) -> int:
    """The most LLM completions one trial made: its messages written by the agent or the user simulator,
    less the agent's fixed greeting (tau2's first message, no LLM call)."""
    import json

    import loophole_store as store

    trials = store.read_table(out, "trials")
    return max(
        sum(m.get("role") in ("assistant", "user") for m in json.loads(text)) - 1 for text in trials["messages_json"]
    )


def trials_lost(out: Path, expected: int) -> int:
    """Trials without a scored row: missing, or ended as an error or infra error."""
    import loophole_store as store

    trials = store.read_table(out, "trials")
    return expected - int((~trials["status"].isin(["error", "infra_error"])).sum())


def main() -> None:
    global CONCURRENCY
    register_scripted_models()  # the same for both runners (ours registers it in every worker too)
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials-per-task", type=int, default=None,
                        help="trials of each of the 50 tasks (default: max(4, concurrency / 4))")
    parser.add_argument("--skip-tau2", action="store_true")
    parser.add_argument("--latency", type=float, default=LATENCY,
                        help="seconds per completion (the target is set at 0.05; longer shows the CPU-bound share)")
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY, help="trials in flight (max_concurrency)")
    parser.add_argument("--rate-limit", type=float, default=0.0,
                        help="requests a second the server allows each model (0: unlimited)")
    a = parser.parse_args()
    CONCURRENCY = a.concurrency
    if a.trials_per_task is None:
        a.trials_per_task = max(4, -(-CONCURRENCY // 4))
    faults = Faults(latency_s=a.latency, rate_limit_rps=a.rate_limit)
    with ScriptedLLMServer(faults=faults) as server, tempfile.TemporaryDirectory() as tmp:
        tmp = os.environ.get("BENCH_KEEP", tmp)
        out = Path(tmp) / "bench"
        ours_s, ours_total, busy, harness_cpu = ours(server.api_base, a.trials_per_task, out, server._thread.native_id)
        completions = server.answered["scripted-agent"] + server.answered["scripted-user"]
        ideal = completions * a.latency / CONCURRENCY
        n = 50 * a.trials_per_task
        print(f"trials={n} completions={completions} latency={a.latency}s concurrency={CONCURRENCY} "
              f"(most requests in flight at the server: {server.max_inflight})")
        longest = longest_trial_completions(out)
        print(f"ideal (latency bound): {ideal:.2f}s; critical path (longest trial, {longest} completions): "
              f"{longest * a.latency:.2f}s")
        print(f"ours: {ours_s:.2f}s trials phase ({ours_total:.2f}s with Ray and worker start-up)")
        print(f"harness CPU in the trials phase: {harness_cpu:.1f} s = {1000 * harness_cpu / completions:.1f} ms "
              f"per completion (this process and its Ray processes, scripted server excluded)")
        if busy is not None:
            cores = os.cpu_count() or 1
            print(f"machine CPU busy in the trials phase: {busy:.1f} core-s of {cores * ours_s:.1f} "
                  f"({busy / (cores * ours_s):.0%} of {cores} cores; {1000 * busy / n:.0f} ms per trial, scripted server included)")
            # were that CPU spread perfectly over every core, the trials phase could not be shorter than this
            print(f"CPU floor (busy / cores): {busy / cores:.2f}s = {busy / cores / ideal:.2f}x the ideal")
            # on a shared machine most of that may be other users': the harness's own share tells them apart
            print(f"of which the harness: {harness_cpu:.1f} core-s ({harness_cpu / ours_s:.2f} cores on average); "
                  f"the scripted server and other processes: {busy - harness_cpu:.1f} core-s")
        if not a.skip_tau2 and not a.rate_limit:
            before = completions
            tau2_s = tau2_runner(server.api_base, a.trials_per_task)
            print(f"tau2 run_tasks: {tau2_s:.2f}s ({server.counts['agent'] + server.counts['user'] - before} completions)")
            print(f"tau2_runner/ours={tau2_s / ours_s:.2f}")
        print(f"ours/ideal={ours_s / ideal:.2f}")
        if a.rate_limit:
            agent_rate = server.answered["scripted-agent"] / ours_s
            print(f"refused with 429: {server.counts['fault_rate_limited']}; scripted-agent {agent_rate:.1f}/s, "
                  f"scripted-user {server.answered['scripted-user'] / ours_s:.1f}/s (allowed {a.rate_limit:g}/s each)")
            print(f"trials_lost={trials_lost(out, n)} rate_use={agent_rate / a.rate_limit:.2f}")


if __name__ == "__main__":
    main()
