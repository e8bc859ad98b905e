"""The main job's time beside Ray's start: ``harness sweep configs/offline-demo.yaml`` (600 trials, embedded Ray)
as a user runs it, timed from the outside, with its phases timed from the inside.

Usage: python benchmarks/main_job_bench.py [--baseline REV] [--repeat N] [--config PATH] [--ray-only]
       python benchmarks/main_job_bench.py --baseline 1b7bdf2 --repeat 3   # against the settings before #42.6

Each run is a fresh ``python -c`` process in the tree it measures (this tree, and with ``--baseline`` a
temporary git worktree of REV, run interleaved so that a busy machine slows both alike), into a fresh output
folder. Printed per run, in seconds:

- ``main job``: the process's wall time, start to exit (what the user waits for);
- ``ray.init``: the call that starts embedded Ray (``harness.execution.init_ray``);
- ``ray up``: process start until the sweep's workers are ready and the first trial is sent (Python and
  the CLI's imports, ``ray.init``, the worker processes' imports and databases: the progress bar's 0/600);
- ``trials``: the trials phase; ``after``: writing, the summary, Ray's shutdown and the process's exit;
  ``ray.shutdown``: within ``after``, Ray's shutdown where the CLI calls it (not printed where Ray's own exit
  hook stops it, which first sleeps half a second).

Then the best run of each tree (the least disturbed on a shared machine), and the ratio this tree / REV last
(below 1 is faster). ``--ray-only``: ``init_ray`` alone in a fresh process, no sweep (``process``: that
process's wall time, its imports and Ray's shutdown included). The figures are wall
times; on a machine shared with other work they are inflated, so compare the two trees of one run only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "configs" / "offline-demo.yaml"

# Run inside the measured process: times init_ray and the trials phase, then hands the CLI the argv. Only
# names both trees have (``harness.execution.init_ray``, ``harness.sweeping.driver.SweepLoop.run``) are used.
_PROBE = """
import atexit, json, os, sys, time
T0 = time.perf_counter()
marks = {}
import harness.execution as execution
import harness.sweeping.driver as driver

def timed(owner, name, label):
    original = getattr(owner, name)
    def wrapper(*args, **kwargs):
        marks.setdefault(label + "_start", time.perf_counter() - T0)
        try:
            return original(*args, **kwargs)
        finally:
            marks[label + "_end"] = time.perf_counter() - T0
    setattr(owner, name, wrapper)

import ray

timed(execution, "init_ray", "ray_init")
timed(driver.SweepLoop, "run", "trials")
timed(ray, "shutdown", "ray_stop")  # a call by the CLI: Ray's exit hook holds the unwrapped function
atexit.register(lambda: open(os.environ["BENCH_MARKS"], "w").write(json.dumps(marks)))
"""
_MAIN = _PROBE + "sys.argv = ['harness', *json.loads(os.environ['BENCH_ARGV'])]\nfrom harness.cli.main import main\nmain()\n"
_RAY_ONLY = _PROBE + "execution.init_ray(None, os.cpu_count() or 1)\n"


def _env(tree: Path, marks: Path, argv: list[str]) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree), "BENCH_MARKS": str(marks), "BENCH_ARGV": json.dumps(argv),
            "HARNESS_TAU_DATA": os.environ.get("HARNESS_TAU_DATA", str(ROOT.parent / "shared" / "tau-data")),
            "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def run_once(tree: Path, config: Path, ray_only: bool = False) -> dict[str, float]:
    """One fresh process in ``tree``: the main job (or ``init_ray`` alone); its phases in seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        import yaml

        job = yaml.safe_load(config.read_text())
        job["output"] = str(Path(tmp) / "out")
        (Path(tmp) / "job.yaml").write_text(yaml.safe_dump(job))
        marks_file = Path(tmp) / "marks.json"
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _RAY_ONLY if ray_only else _MAIN], cwd=tree,
                              env=_env(tree, marks_file, ["sweep", str(Path(tmp) / "job.yaml")]),
                              capture_output=True, text=True)
        wall = time.perf_counter() - t0
        if proc.returncode != 0 or not marks_file.exists():
            sys.exit(f"error: the run in {tree} failed (exit {proc.returncode}): {proc.stderr.strip()[-800:]}")
        marks = json.loads(marks_file.read_text())
    phases = {"process" if ray_only else "main job": wall, "ray.init": marks["ray_init_end"] - marks["ray_init_start"]}
    if not ray_only:
        phases["ray up"] = marks["trials_start"]
        phases["trials"] = marks["trials_end"] - marks["trials_start"]
        phases["after"] = wall - marks["trials_end"]
        if "ray_stop_start" in marks:  # else Ray stopped in its exit hook, untimed (within "after")
            phases["ray.shutdown"] = marks["ray_stop_end"] - marks["ray_stop_start"]
    return phases


def line(label: str, phases: dict[str, float]) -> str:
    return f"{label}: " + "  ".join(f"{name} {seconds:.2f}s" for name, seconds in phases.items())


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--baseline", metavar="REV", help="also run REV's tree (a temporary git worktree), interleaved")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--config", type=Path, default=DEMO, help="the sweep config (default: the offline demo)")
    p.add_argument("--ray-only", action="store_true", help="time init_ray alone, no sweep")
    a = p.parse_args()
    trees = {"ours": ROOT}
    old = None
    if a.baseline:
        # beside the project, so that ../shared resolves from the old tree too
        old = ROOT.parent / f".bench-{os.getpid()}"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old), a.baseline], check=True)
        trees = {"baseline": old, "ours": ROOT}
    try:
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for i in range(a.repeat):
            for name, tree in trees.items():
                runs[name].append(run_once(tree, a.config.resolve(), a.ray_only))
                print(line(f"run {i + 1} {name}", runs[name][-1]), flush=True)
    finally:
        if old is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)
            shutil.rmtree(old, ignore_errors=True)
    what = "ray.init" if a.ray_only else "main job"
    best = {name: min(r, key=lambda phases: phases[what]) for name, r in runs.items()}
    print(f"{os.cpu_count()} cores; {a.config.name}; best of {a.repeat} by {what}:")
    for name, phases in best.items():
        print(line(f"{name} ({a.baseline})" if name == "baseline" else name, phases))
    if "baseline" in best:
        if not a.ray_only:
            print(f"ray.init ours/baseline={best['ours']['ray.init'] / best['baseline']['ray.init']:.2f}")
        print(f"{what} ours/baseline={best['ours'][what] / best['baseline'][what]:.2f}")


if __name__ == "__main__":
    main()
