"""A benchmark of this tree against an earlier commit, in one run: the same benchmark script runs in a
checkout of each (a temporary git worktree), interleaved, and the best time of each is compared.

Usage: python benchmarks/against_commit.py REV benchmarks/rescore_bench.py [ARGS...] [--repeat N]
       python benchmarks/against_commit.py HEAD~1 benchmarks/leaderboard_bench.py --copies 2 --page-sample 0

Each benchmark script puts its own tree first on ``sys.path``, so each side runs its own code with the one
installed environment. The figure compared is the line the benchmark prints for our side (``ours: …s``).
The ratio (this tree / REV; above 1 is slower) is printed last.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OURS = re.compile(r"^ours:\s+(?:full pipeline\s+)?([0-9.]+)s", re.M)


def _run(tree: Path, script: str, args: list[str]) -> float:
    env = {**os.environ, "HARNESS_TAU_DATA": str(ROOT.parent / "shared" / "tau-data"), "PYTHONPATH": str(tree)}
    proc = subprocess.run([sys.executable, str(tree / script), *args], capture_output=True, text=True, env=env,
                          cwd=tree)
    match = OURS.search(proc.stdout)
    if proc.returncode != 0 or match is None:
        sys.exit(f"error: {tree / script} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    return float(match.group(1))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("rev")
    p.add_argument("script")
    p.add_argument("--repeat", type=int, default=3)
    a, rest = p.parse_known_args()
    # beside the project, so that a benchmark's ../shared default resolves in the old tree too
    old = ROOT.parent / f".bench-{os.getpid()}"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old), a.rev], check=True)
    try:
        times: dict[str, list[float]] = {"rev": [], "tree": []}
        for _ in range(a.repeat):  # interleaved, so a busy machine slows both alike
            times["rev"].append(_run(old, a.script, rest))
            times["tree"].append(_run(ROOT, a.script, rest))
        rev, tree = min(times["rev"]), min(times["tree"])
        print(f"{a.script} {' '.join(rest)}")
        print(f"{a.rev}: best {rev:.3f}s of {times['rev']}")
        print(f"this tree: best {tree:.3f}s of {times['tree']}")
        print(f"ratio={tree / rev:.3f}")
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], check=False)
        shutil.rmtree(old, ignore_errors=True)


if __name__ == "__main__":
    main()
