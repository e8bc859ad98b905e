"""A benchmark of this tree against an earlier commit, in one run: the same benchmark script runs in a
checkout of each (a temporary git worktree), interleaved, and the best time of each is compared.

Usage: python benchmarks/against_commit.py REV benchmarks/rescore_bench.py [ARGS...] [--repeat N]
       python benchmarks/against_commit.py HEAD~1 benchmarks/leaderboard_bench.py --copies 2 --page-sample 0
       python benchmarks/against_commit.py REV --rows RESULTS_FILE... [--out NOTE]

Each benchmark script puts its own tree first on ``sys.path``, so each side runs its own code with the one
installed environment. The figure compared is the line the benchmark prints for our side (``ours: …s``).
The ratio (this tree / REV; above 1 is slower) is printed last.

``--rows`` compares scoring rows instead of time: each side rescores the results files (``harness.rescore``, its
own code first on ``sys.path``) and the rows that differ are printed, one a line: file | simulation | task |
column | before -> after, over ``trials`` (``reward``, ``strict_reward``, ``strict_reason``) and ``scores`` (each
gold's ``verdict``, ``reward``, ``reason``); ``--out`` writes the same lines to a file.
"""

from __future__ import annotations

import argparse
import json
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


# Run in each tree (``python -c``): rescore the files named on the command line, write the rows compared as JSON.
_ROWS = """
import json, sys, tempfile
from pathlib import Path
from harness import rescore
with tempfile.TemporaryDirectory() as tmp:
    run = rescore([Path(f) for f in sys.argv[2:]], Path(tmp) / "run").run
t, s = run.trials, run.scores
t = t.assign(file=t["source_file"].map(lambda p: Path(p).name))
keys = ["file", "simulation_id", "task_id", "trial"]
s = s[["trajectory_id", "gold_id", "verdict", "reward", "reason"]].merge(t[["trajectory_id", *keys]], on="trajectory_id")
out = {"trials": t[[*keys, "reward", "strict_reward", "strict_reason"]].to_dict("records"),
       "scores": s.drop(columns="trajectory_id").to_dict("records")}
Path(sys.argv[1]).write_text(json.dumps(out, default=str))
"""
_TRIALS = ("reward", "strict_reward", "strict_reason")
_SCORES = ("verdict", "reward", "reason")


def _rows(tree: Path, files: list[str], out: Path) -> dict:
    env = {**os.environ, "HARNESS_TAU_DATA": str(ROOT.parent / "shared" / "tau-data"), "PYTHONPATH": str(tree)}
    proc = subprocess.run([sys.executable, "-c", _ROWS, str(out), *files], capture_output=True, text=True, env=env,
                          cwd=tree)
    if proc.returncode != 0:
        sys.exit(f"error: rescoring in {tree} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")
    return json.loads(out.read_text())


def _shown(value: object) -> str:
    return "null" if value is None or value != value else str(value)  # NaN is null


def changed_rows(before: dict, after: dict) -> list[str]:
    """Each row whose compared columns differ between the two rescorings: file | simulation | task | column |
    before -> after."""
    lines = []
    for table, columns, key in (("trials", _TRIALS, ()), ("scores", _SCORES, ("gold_id",))):
        old = {(r["file"], r["simulation_id"], r["task_id"], r["trial"], *(r[k] for k in key)): r for r in before[table]}
        for r in after[table]:
            k = (r["file"], r["simulation_id"], r["task_id"], r["trial"], *(r[c] for c in key))
            was = old.get(k)
            for column in columns:
                a, b = _shown(was[column]) if was is not None else "absent", _shown(r[column])
                if a != b:
                    where = f"{table}.{column}" if not key else f"{table}[{r['gold_id']}].{column}"
                    lines.append(f"{r['file']} | {r['simulation_id']} | task {r['task_id']} | {where} | {a} -> {b}")
    return lines


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("rev")
    p.add_argument("script", nargs="?")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--rows", nargs="+", metavar="RESULTS_FILE", help="compare scoring rows of these files")
    p.add_argument("--out", type=Path, help="with --rows: write the changed rows here too")
    a, rest = p.parse_known_args()
    if a.rows is None and a.script is None:
        p.error("a benchmark script, or --rows RESULTS_FILE...")
    # beside the project, so that a benchmark's ../shared default resolves in the old tree too
    old = ROOT.parent / f".bench-{os.getpid()}"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old), a.rev], check=True)
    try:
        if a.rows is not None:
            files = [str(Path(f).resolve()) for f in a.rows]
            lines = changed_rows(_rows(old, files, old / ".rows.json"), _rows(ROOT, files, old / ".rows-tree.json"))
            text = "\n".join(lines)
            print(text or "no row changed")
            print(f"{len(lines)} changed row(s) against {a.rev}")
            if a.out is not None:
                a.out.write_text(text + "\n" if text else "")
            return
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
