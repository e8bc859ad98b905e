"""A benchmark of this tree against an earlier commit, in one run: the same benchmark script runs in a
checkout of each (a temporary git worktree), interleaved, and the best time of each is compared.

Usage: python benchmarks/against_commit.py REV benchmarks/rescore_bench.py [ARGS...] [--repeat N]
       python benchmarks/against_commit.py HEAD~1 benchmarks/leaderboard_bench.py --copies 2 --page-sample 0
       python benchmarks/against_commit.py REV --rows PATH... [--replay strict] [--out NOTE]

``--rows``: no timing; ``harness rescore PATH... --skip-bad`` runs in each checkout and every Parquet table it
writes is compared column by column, every row. It prints each table's differing columns with how many rows
differ, and exits 1 if any does, but ``catalog_sha256``, which hashes the catalog's and the reading's source:
it differs whenever their code does (said on its own line), never because of what was read. Then the rows whose
verdicts differ are listed one a line, file | simulation | task | column | before -> after, over ``trials``
(``reward``, ``strict_reward``, ``strict_reason``) and ``scores`` (each gold's ``verdict``, ``reward``,
``reason``): the list a note gives a reason for each line of; ``--out`` writes it to a file too.

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


SOURCE_HASH = "catalog_sha256"  # differs whenever the catalog's or the reading's code does


def _rescore(tree: Path, paths: list[str], replay: str, out: Path) -> None:
    env = {**os.environ, "HARNESS_TAU_DATA": str(ROOT.parent / "shared" / "tau-data"), "PYTHONPATH": str(tree)}
    proc = subprocess.run([sys.executable, "-m", "harness.cli.main", "rescore", *paths, "--out", str(out),
                           "--replay", replay, "--skip-bad"], capture_output=True, text=True, env=env, cwd=tree)
    if proc.returncode != 0:
        sys.exit(f"error: harness rescore in {tree} failed (exit {proc.returncode}): {proc.stderr.strip()[-500:]}")


_TRIALS = ("reward", "strict_reward", "strict_reason")
_SCORES = ("verdict", "reward", "reason")


def _shown(value: object) -> str:
    return "null" if value is None or value != value else str(value)  # NaN is null


def _verdict_rows(run: Path) -> dict:
    """A rescored run's rows as ``changed_rows`` reads them: each keyed by file, simulation, task and trial."""
    import pandas as pd

    trials = pd.read_parquet(run / "trials.parquet")
    trials["file"] = trials["source_file"].map(lambda f: Path(str(f)).name)
    key = trials[["trajectory_id", "file", "simulation_id", "task_id", "trial"]]
    scores = pd.read_parquet(run / "scores.parquet")
    scores = scores.drop(columns=[c for c in key.columns if c != "trajectory_id" and c in scores.columns])
    scores = scores.merge(key, on="trajectory_id")
    return {"trials": trials.to_dict("records"), "scores": scores.to_dict("records")}


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


def compare_rows(old: Path, paths: list[str], replay: str, note: Path | None = None) -> int:
    """Rows of ``harness rescore`` on ``paths`` in ``old`` and in this tree, every column; 1 where any differs."""
    import tempfile

    import pyarrow.parquet as pq

    paths = [str(Path(p).resolve()) for p in paths]
    with tempfile.TemporaryDirectory(prefix="against-rows-") as tmp:
        _rescore(old, paths, replay, Path(tmp) / "rev")
        _rescore(ROOT, paths, replay, Path(tmp) / "tree")
        differ = False
        for table in sorted(p.name for p in (Path(tmp) / "rev").glob("*.parquet")):
            a, b = pq.read_table(Path(tmp) / "rev" / table), pq.read_table(Path(tmp) / "tree" / table)
            if a.schema != b.schema or a.num_rows != b.num_rows:
                print(f"{table}: schema or row count differs ({a.num_rows} rows, then {b.num_rows})")
                differ = True
                continue
            columns = {c: sum(x != y for x, y in zip(a.column(c).to_pylist(), b.column(c).to_pylist(), strict=True))
                       for c in a.column_names}
            changed = {c: n for c, n in columns.items() if n}
            for column, n in changed.items():
                why = " (the catalog's and the reading's source hash: their code differs)" if column == SOURCE_HASH else ""
                print(f"{table}: {column} differs in {n} of {a.num_rows} rows{why}")
            differ = differ or any(c != SOURCE_HASH for c in changed)
            if not changed:
                print(f"{table}: identical, {a.num_rows} rows, every column")
        lines = changed_rows(_verdict_rows(Path(tmp) / "rev"), _verdict_rows(Path(tmp) / "tree"))
        print("\n".join(lines) if lines else "no verdict changed")
        print(f"{len(lines)} changed verdict row(s)")
        if note is not None:
            note.write_text("".join(f"{line}\n" for line in lines))
        print(f"rows ({replay} replay): {'DIFFER' if differ else 'identical'}")
        return 1 if differ else 0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("rev")
    p.add_argument("script", nargs="?")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--rows", nargs="+", metavar="PATH", help="compare the rows rescoring PATH... writes, not times")
    p.add_argument("--replay", choices=["lenient", "strict"], default="lenient", help="with --rows")
    p.add_argument("--out", type=Path, help="with --rows: write the changed verdict rows here too")
    a, rest = p.parse_known_args()
    if (a.script is None) == (a.rows is None) or (a.rows is not None and rest):
        p.error("give a benchmark script (and its arguments) or --rows PATH..., not both")
    # beside the project, so that a benchmark's ../shared default resolves in the old tree too
    old = ROOT.parent / f".bench-{os.getpid()}"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(old), a.rev], check=True)
    try:
        if a.rows is not None:
            sys.exit(compare_rows(old, a.rows, a.replay, a.out))
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
