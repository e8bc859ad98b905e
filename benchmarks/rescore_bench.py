"""Rescoring speed at the scale of a corpus: tau2's stock ``evaluate_simulation`` against our engine and
against our whole rescore pipeline.

Usage: python benchmarks/rescore_bench.py [--file RESULTS_FILE] [--scale N] [--sample S] [--workers W]
                                         [--leaderboard]
         (defaults: ../shared/real-runs/whissle_airline_tau3_1trial.json, N = 1000, S = 50, W = 1)
       python benchmarks/rescore_bench.py --large [MB]   (default 200: a results file of that size, see below)

The file's trajectories are repeated in order up to N, as trials of the same tasks are in a real corpus.
Stock tau2 costs about 0.8 s a trajectory and has no one-time part, so it is timed on the first S
distinct trajectories and extrapolated linearly to N (the output says so). Trajectories where stock tau2
raises (pydantic version noise in replayed tool outputs) are timed but compared only where stock returns.

Ours is timed twice. ``ours:`` is the engine alone: all N scored in this process after loading the
domain's database once (the one-time load timed on its own). ``pipeline:`` is the rescore end to end, as
``harness rescore FILE --out DIR --workers W`` runs it: the N trajectories are written out (streamed) as a
real results file in a temporary folder, then ``import_sources`` reads it and ``rescore_runs`` scores it
with W workers (W > 1: forked worker processes) and writes the Parquet run; the rewards are read back from that Parquet.
Rewards must be identical between stock and ours on the sample, ours identical across the repetitions
(engine and pipeline alike), and the pipeline's equal to the engine's; otherwise it stops with exit 1.
The peak resident memory of the whole process tree (this process, its worker processes, any
subprocess) is sampled from /proc every 50 ms (the tree walked again every 0.5 s), for the whole benchmark. ``--leaderboard`` also runs
``harness leaderboard FILE --out DIR --workers W`` on the same file as a subprocess, under a sampler of
its own tree, and prints its peak on its own line (the last line's peak leaves that subprocess out).
Before it, the CPU budget: a worker's steps timed one by one (CPU seconds, ``time.process_time``) on
chunks of 64 of the repeated file, as a worker runs them after its first chunk (decode, validate, the
agent's replay, the single gold, the conversation record, the variants and the strict band that read it, the rows), and the main process's CPU
during the pipeline (with worker processes), each per trajectory, and each against its target (``TARGETS_MS``:
the budget as a contract, #47; a step over its target says OVER). ``--replay strict`` times the pinned package's
replay instead of the default lenient one.
The last line is ``speedup=<pipeline end-to-end ratio at N> peak_rss_mb=<tree peak>``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
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

from tau2.data_model.simulation import SimulationRun  # noqa: E402
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation  # noqa: E402

from envs import ReplayEngine, ReplayMode, load_task_set  # noqa: E402
from loophole_ingest import import_results_file  # noqa: E402
from loophole_scoring import score_trajectory  # noqa: E402

DEFAULT_FILE = ROOT.parent / "shared/real-runs/whissle_airline_tau3_1trial.json"


def _fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(1)


def main(path: Path, scale: int, sample: int, workers: int = 1, board: bool = False,
         replay: str = "lenient") -> None:
    sampler = TreeRss(os.getpid())
    sampler.start()
    with tempfile.TemporaryDirectory(prefix="rescore-bench-") as tmp:
        # the pipeline first, while this process holds nothing of the engine's timing: its peak is its own
        big = _repeated_file(path, scale, Path(tmp) / f"repeated-{scale}.json")
        size_mb = big.stat().st_size / 1e6
        main_cpu = time.process_time()
        seconds, rewards = pipeline(big, Path(tmp) / "run", workers, replay)
        main_cpu = time.process_time() - main_cpu
        sampler.stop()
        pipeline_peak = sampler.peak_mb
        board_line = None
        if board:  # its own sampler: the figure on the last line is the rescore's, this one the leaderboard's
            board_seconds, board_peak = leaderboard_run(big, Path(tmp) / "board", workers)
            board_line = (f"leaderboard: harness leaderboard --workers {workers} on the same file: "
                          f"{board_seconds:.1f}s, peak_rss_mb={board_peak:.0f} (its whole process tree)")
    sampler = TreeRss(os.getpid())
    sampler.start()
    stock_per, first, stock, n_sample = engine_and_stock(path, scale, sample, replay)
    _check_pipeline(rewards, first, stock, scale)
    with tempfile.TemporaryDirectory(prefix="rescore-budget-") as tmp:
        # 8 timed chunks at corpus scale; a small run's budget times one (as many trajectories as it scores)
        cpu_budget(path, Path(tmp), replay, main_cpu / scale if workers > 1 else None,
                   chunks=max(1, min(8, scale // 64)))
    pipeline_ratio = stock_per * scale / seconds
    print(f"pipeline: {seconds:.3f}s for N={scale} end to end ({1000 * seconds / scale:.2f} ms/trajectory: "
          f"import_sources + rescore_runs with workers={workers} on a {size_mb:.0f} MB results file, all variants, "
          f"Parquet written; peak RSS of the process tree {pipeline_peak:.0f} MB)")
    print(f"pipeline rewards read back from the Parquet: identical to the engine's and across repetitions "
          f"{scale}/{scale}")
    print(f"pipeline end-to-end ratio at N={scale} (stock extrapolated from {n_sample}): {pipeline_ratio:.1f}")
    if board_line:
        print(board_line)
    sampler.stop()
    print(f"speedup={pipeline_ratio:.1f} peak_rss_mb={max(pipeline_peak, sampler.peak_mb):.0f}")


def engine_and_stock(path: Path, scale: int, sample: int, replay: str = "lenient"
                     ) -> tuple[float, list[float | None], list, int]:
    """Stock on the sample and our engine alone on N, in this process (printed and checked); stock's
    seconds a trajectory, our rewards on the file's trajectories, stock's on the sample, the sample size."""
    run = import_results_file(path)
    task_set = load_task_set(run.domain, run.task_version)
    sims = [SimulationRun.model_validate(item.raw) for item in run.simulations]
    if not sims:
        _fail(f"{path}: no simulations to time")
    tasks = [task_set.task(s.task_id) for s in sims]
    n_sample = min(sample, len(sims), scale)

    t0 = time.perf_counter()
    stock: list[float | None] = []
    for sim, task in zip(sims[:n_sample], tasks[:n_sample], strict=True):
        try:
            stock.append(evaluate_simulation(sim, task, EvaluationType.ALL, False, run.domain).reward)
        except Exception:  # noqa: BLE001 - stock raises on version noise; ours normalises it
            stock.append(None)
    stock_per = (time.perf_counter() - t0) / n_sample

    t0 = time.perf_counter()
    engine = ReplayEngine(run.domain)
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours = []
    for i in range(scale):
        score = score_trajectory(sims[i % len(sims)], tasks[i % len(sims)], engine, replay=ReplayMode(replay)
                                 ).single_gold
        ours.append((score.reward, score.status))
    t_warm = time.perf_counter() - t0
    ours_per = t_warm / scale

    first = ours[: len(sims)]
    unstable = [i for i in range(scale) if ours[i] != first[i % len(sims)]]
    compared = [(a, b[0]) for a, b in zip(stock, first, strict=False) if a is not None]
    mismatches = sum(a != b for a, b in compared)
    recorded = [json.loads(json.dumps((i.raw.get("reward_info") or {}).get("reward"))) for i in run.simulations]
    end_to_end = stock_per * scale / (t_load + t_warm)
    print(f"file={path.name} trajectories={len(sims)} repeated to N={scale} domain={run.domain} "
          f"version={run.task_version}")
    print(f"stock: {stock_per * n_sample:.2f}s on a sample of {n_sample} ({1000 * stock_per:.1f} ms/trajectory), "
          f"raised on {stock.count(None)}; at N={scale}: {stock_per * scale:.1f}s extrapolated linearly")
    print(f"ours:  {t_load + t_warm:.3f}s for N={scale} (one-time database load {t_load:.3f}s, "
          f"then {1000 * ours_per:.2f} ms/trajectory; gold replays cached per task)")
    print(f"rewards identical to stock on the sample where stock runs: {len(compared) - mismatches}/{len(compared)}")
    print(f"ours identical across repetitions: {scale - len(unstable)}/{scale}")
    print(f"ours equal recorded: {sum(a[0] == b for a, b in zip(first, recorded, strict=False))}/{len(first)}")
    if not compared:
        _fail(f"stock tau2 raised on all {n_sample} sampled trajectories: nothing to compare; raise --sample")
    if mismatches:
        _fail(f"rewards differ from stock tau2 on {mismatches} of {len(compared)} sampled trajectories")
    if unstable:
        _fail(f"our rewards differ across repetitions at {len(unstable)} of {scale} trajectories "
              f"(first at repetition index {unstable[0]})")
    print(f"warm ratio (per trajectory, load excluded): {stock_per / ours_per:.1f}")
    print(f"one-time load: {t_load:.3f}s")
    print(f"end-to-end ratio at N={scale} (stock extrapolated from {n_sample}): {end_to_end:.1f}")
    return stock_per, [a for a, _ in first], stock, n_sample


# --- the pipeline end to end: a real results file, read, scored and written as ``harness rescore`` does ---


def _repeated_file(source: Path, n: int, dest: Path) -> Path:
    """``source``'s simulations repeated in order to ``n``, written one at a time (fresh ids, as trials)."""
    base = json.loads(source.read_text(encoding="utf-8"))
    sims = base.pop("simulations")
    with open(dest, "w", encoding="utf-8") as fh:
        fh.write(json.dumps(base)[:-1] + ', "simulations": [')
        for i in range(n):
            sim = sims[i % len(sims)]
            fh.write(("" if i == 0 else ", ") + json.dumps({**sim, "id": f"{sim['id']}-{i}"}))
        fh.write("]}")
    return dest


def pipeline(path: Path, out: Path, workers: int, replay: str = "lenient") -> tuple[float, list[float | None]]:
    """Seconds for ``harness rescore``'s steps on ``path``, and the rewards read back, in file order."""
    import pyarrow.parquet as pq

    from harness.rescoring import import_sources, rescore_provenance, rescore_runs
    from loophole_store import record_run

    t0 = time.perf_counter()
    runs, _notes = import_sources([str(path)], None, False)
    rescore_runs(runs, out, workers=workers, replay=ReplayMode(replay))
    record_run(out, rescore_provenance(runs, None, replay=ReplayMode(replay)))
    seconds = time.perf_counter() - t0
    table = pq.read_table(out / "trials.parquet", columns=["trajectory_id", "reward"])
    index = [int(t.split(":")[-2]) for t in table.column("trajectory_id").to_pylist()]
    rewards: list[float | None] = [None] * len(index)
    for i, reward in zip(index, table.column("reward").to_pylist(), strict=True):
        rewards[i] = reward
    return seconds, rewards


def cpu_budget(path: Path, tmp: Path, replay: str, main_per: float | None, chunk: int = 64,
               chunks: int = 8) -> None:
    """Print a worker's CPU per trajectory, step by step, on ``chunks`` chunks of ``chunk`` trajectories of
    ``path`` repeated (the first chunk, which loads the database and the golds, is left out)."""
    import gc

    from envs import engine_for
    from harness._rescore_chunks import _row_of
    from harness.rescoring import import_sources
    from loophole_base import gc_paused as collector_paused
    from loophole_ingest import SimulationSpans
    from loophole_ingest._identity import (
        identified,  # the validation alone, as read_simulations runs it
    )
    from loophole_ingest._spans import (
        read_spans,  # the decode alone (read_simulations also validates)
    )
    from loophole_scoring import (
        golds_for,
        replay_prediction,
        score_against_gold,
        strict_verdict,
        trajectory_record,
    )
    from loophole_scoring._trajectory import _score_variant

    big = _repeated_file(path, chunk * (chunks + 1), tmp / "budget.json")
    (run,), _ = import_sources([str(big)], None, False)
    found = SimulationSpans(big)
    spans = list(found)
    engine, mode = engine_for(run.domain), ReplayMode(replay)
    task_set = load_task_set(run.domain, run.task_version)
    steps = dict.fromkeys(TARGETS_MS, 0.0)
    timed = 0
    for c in range(chunks + 1):
        group, lo = spans[c * chunk:(c + 1) * chunk], found.start + 1 if c == 0 else spans[c * chunk - 1][1]
        if c >= 2:  # as a worker scores its chunks after the second (``harness._rescore_chunks._chunk``)
            gc.disable()
        clock = {}
        t = time.process_time()
        raws = read_spans(big, lo, group, c == 0)
        clock["decode"] = time.process_time() - t
        t = time.process_time()
        with collector_paused():  # as read_simulations validates a chunk
            items = [identified(run, c * chunk + k, raw) for k, raw in enumerate(raws)]
        clock["validate"] = time.process_time() - t
        for step in ("replay", "single gold", "record", "variants", "strict", "row"):
            clock[step] = 0.0
        for k, item in enumerate(items):
            sim = item.sim
            assert sim is not None
            task = task_set.task(sim.task_id)
            variants, _ = golds_for(run.domain, run.task_version, task)
            t = time.process_time()
            predicted = replay_prediction(engine, sim.messages, mode)
            clock["replay"] += time.process_time() - t
            t = time.process_time()
            gold = score_against_gold(sim, task, engine, predicted)
            clock["single gold"] += time.process_time() - t
            t = time.process_time()  # the conversation read once, before the verdicts that read it
            record = trajectory_record(sim.messages, run.domain, run.task_version, task, engine, variants)
            clock["record"] += time.process_time() - t
            t = time.process_time()
            [_score_variant(sim, task, engine, predicted, None, v, record) for v in variants]
            clock["variants"] += time.process_time() - t
            t = time.process_time()
            strict_verdict(gold.reward, sim.messages, run.domain, run.task_version, task, engine, record)
            clock["strict"] += time.process_time() - t
            t = time.process_time()
            _row_of(run, c * chunk + k, item)
            clock["row"] += time.process_time() - t
        n_items = len(items)
        raws, items = [], []  # dropped before the collector resumes, as a worker's chunk drops them
        gc.enable()
        if c == 1:
            gc.freeze()  # as a worker does from its second chunk on
        if c:
            timed += n_items
            for step, seconds in clock.items():
                steps[step] += seconds
    print(f"CPU budget ({replay} replay; ms of CPU per trajectory, {timed} trajectories in chunks of {chunk}; "
          f"each step against its target, the budget of 600x on 2 workers, #47):")
    for line in budget_table({step: 1000 * seconds / timed for step, seconds in steps.items()},
                             None if main_per is None else 1000 * main_per):
        print(line)


# The budget as a contract (#47): ms of CPU per trajectory for each step. 600x stock on 2 workers leaves about
# 2.15 ms a trajectory in all; each step's share of it, the record's under 1 ms. A worker's steps are timed one
# by one (``cpu_budget``); the main process (finding spans, staging and writing Parquet) from the pipeline.
TARGETS_MS = {
    "decode": 0.15,
    "validate": 0.20,
    "replay": 0.50,
    "single gold": 0.09,
    "record": 0.90,
    "variants": 0.07,
    "strict": 0.07,
    "row": 0.15,
}
WORKER_TARGET_MS = round(sum(TARGETS_MS.values()), 3)
MAIN_TARGET_MS = 0.25
STEP_NAMES = {
    "record": "record (the conversation read once; variants and strict read it)",
    "worker": "a rescore worker, all its steps",
    "main": "the main process (finding spans, staging Parquet), from the pipeline",
}


def budget_table(measured: dict[str, float], main_ms: float | None) -> list[str]:
    """The budget's lines: each step, its ms, its target and whether it is within it; the main process's
    measured only with worker processes (with one, the main process scores too: its own share is not apart)."""

    def line(name: str, ms: float | None, target: float) -> str:
        if ms is None:
            return f"| {name} | n/a (one worker: the main process scores too) | {target:.3f} | - |"
        shown = round(ms, 3)  # judged as printed: 0.07004 reads 0.070, within a target of 0.070
        return f"| {name} | {shown:.3f} | {target:.3f} | {'yes' if shown <= target else 'OVER'} |"

    lines = ["| step | ms | target ms | within |", "|---|---|---|---|"]
    lines += [line(STEP_NAMES.get(step, step), measured[step], target) for step, target in TARGETS_MS.items()]
    lines.append(line(STEP_NAMES["worker"], sum(measured.values()), WORKER_TARGET_MS))
    lines.append(line(STEP_NAMES["main"], main_ms, MAIN_TARGET_MS))
    return lines


def _check_pipeline(rewards: list[float | None], engine: list[float | None], stock: list[float | None],
                    scale: int) -> None:
    if len(rewards) != scale:
        _fail(f"the pipeline wrote {len(rewards)} trials rows for {scale} trajectories")
    n = len(engine)
    differ = [i for i in range(scale) if rewards[i] != engine[i % n]]
    if differ:
        _fail(f"pipeline rewards read back from Parquet differ from the engine's (and across repetitions) at "
              f"{len(differ)} of {scale} trajectories (first at index {differ[0]})")
    off = sum(a is not None and a != b for a, b in zip(stock, rewards, strict=False))
    if off:
        _fail(f"pipeline rewards differ from stock tau2 on {off} sampled trajectories")


def leaderboard_run(path: Path, out: Path, workers: int) -> tuple[float, float]:
    """``harness leaderboard`` as a user runs it, under its own tree sampler: seconds and peak MB."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "harness.cli.main", "leaderboard", str(path), "--out", str(out),
         "--workers", str(workers)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )
    sampler = TreeRss(proc.pid)
    t0 = time.perf_counter()
    sampler.start()
    stdout, stderr = proc.communicate()
    seconds = time.perf_counter() - t0
    sampler.stop()
    if proc.returncode != 0:
        _fail(f"harness leaderboard failed (exit {proc.returncode}): {stderr.strip()[-300:]}")
    return seconds, sampler.peak_mb


class TreeRss(threading.Thread):
    """The peak of the summed resident memory of a process and all its descendants, polled from /proc:
    every ``every`` seconds the known processes' RSS, and every ``rescan`` seconds the tree itself (a walk
    of all of /proc, too costly at 20 Hz in the process it measures: it held the GIL from the pipeline)."""

    def __init__(self, root: int, every: float = 0.05, rescan: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.root, self.every, self.rescan, self.peak_mb = root, every, rescan, 0.0
        self._stop_event = threading.Event()
        self._pids: list[int] = []
        self._scanned = -1e9

    def run(self) -> None:
        while not self._stop_event.is_set():
            self.sample()
            self._stop_event.wait(self.every)

    def sample(self, rescan: bool = False) -> None:
        if rescan or time.monotonic() - self._scanned >= self.rescan:
            self._pids, self._scanned = tree_pids(self.root), time.monotonic()
        self.peak_mb = max(self.peak_mb, sum(_rss_bytes(p) for p in self._pids) / 2**20)

    def stop(self) -> None:
        self._stop_event.set()
        self.join()
        self.sample(rescan=True)


def tree_pids(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


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
        parser = argparse.ArgumentParser(description="rescoring speed against stock tau2")
        parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="results file to time")
        parser.add_argument("--scale", type=int, default=1000, help="trajectories scored by ours (repeated)")
        parser.add_argument("--sample", type=int, default=50, help="trajectories timed on stock tau2")
        parser.add_argument("--workers", type=int, default=1, help="rescore workers of the pipeline (>1: worker processes)")
        parser.add_argument("--leaderboard", action="store_true", help="also time harness leaderboard on the file")
        parser.add_argument("--replay", choices=["lenient", "strict"], default="lenient",
                            help="the replay to time: lenient (tau2 1.0.1, the default) or strict (the pinned package)")
        args = parser.parse_args()
        if args.scale < 1 or args.sample < 1 or args.workers < 1:
            parser.error("--scale, --sample and --workers must be at least 1")
        main(args.file, args.scale, args.sample, args.workers, args.leaderboard, args.replay)
