"""Leaderboard at scale: about 1,000 real trajectories, all variants, both domains, in one process.

Usage: python benchmarks/leaderboard_bench.py [--copies 5] [--stock-sample 40]

The four real runs in ../shared/real-runs are copied N times (each copy re-tagged so it is a distinct
submission with its own sha256), then the full pipeline runs: import, rescore with every variant, the
leaderboard table. Stock tau2 re-evaluation of that many trajectories takes many minutes, so it is timed
on a sample of trajectories in the same process and scaled per trajectory (stated in the output).
The target is <= 60 s for the pipeline; the speedup is printed last.

The trial viewer (``harness view``) is then built for the same run: build time, total size, the largest
page, and (with Playwright and Chromium installed) load times of the index and a sample of trial pages
in headless Chromium (target: under 1 s each).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
os.environ.setdefault("HARNESS_TAU_DATA", str(SHARED / "tau-data"))
sys.path.insert(0, str(ROOT))

from harness._quiet import set_log_level  # noqa: E402

set_log_level(False)

import loophole_store as store  # noqa: E402
from analysis import leaderboard_table  # noqa: E402
from envs import load_task_set  # noqa: E402
from harness.rescoring import import_all, rescore_runs  # noqa: E402
from loophole_report import build_site  # noqa: E402


def make_copies(dest: Path, copies: int) -> int:
    n = 0
    for src in sorted((SHARED / "real-runs").glob("*.json")):
        data = json.loads(src.read_text())
        for c in range(copies):
            data["info"]["agent_info"]["llm"] = f"{data['info']['agent_info'].get('llm')}-copy{c}"
            (dest / f"{src.stem}-copy{c}.json").write_text(json.dumps(data))
            n += len(data["simulations"])
    return n


def stock_seconds_per_trajectory(sample: int) -> float:
    from tau2.data_model.simulation import SimulationRun
    from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

    items = []
    for src in sorted((SHARED / "real-runs").glob("*.json")):
        run = import_all([str(src)], None, False)[0]
        ts = load_task_set(run.domain, run.task_version)
        if any("NL_ASSERTION" in [b.value for b in t.evaluation_criteria.reward_basis] for t in ts.tasks[:5]):
            continue  # stock cannot evaluate NL assertions without its judge
        items += [(run.domain, ts, item.raw) for item in run.simulations]
    random.Random(0).shuffle(items)
    t0 = time.perf_counter()
    for domain, ts, raw in items[:sample]:
        sim = SimulationRun.model_validate(raw)
        try:
            evaluate_simulation(sim, ts.task(sim.task_id), EvaluationType.ALL, False, domain)
        except ValueError:
            pass  # version noise: stock raises, after doing the work
    return (time.perf_counter() - t0) / min(sample, len(items))


def page_load_seconds(site: Path, sample: int) -> list[float]:
    """Seconds to load the index, then each of the largest ``sample`` trial pages (load event)."""
    import shutil

    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return []
    if exe is None:
        return []
    pages = sorted((site / "t").glob("*.html"), key=lambda p: p.stat().st_size, reverse=True)[:sample]
    times = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        for path in [site / "index.html", *pages]:
            t0 = time.perf_counter()
            page.goto(path.as_uri(), wait_until="load")
            times.append(time.perf_counter() - t0)
        browser.close()
    return times


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--copies", type=int, default=5)
    p.add_argument("--stock-sample", type=int, default=40)
    p.add_argument("--page-sample", type=int, default=30, help="trial pages loaded in Chromium")
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "in", Path(tmp) / "out"
        src.mkdir()
        n = make_copies(src, a.copies)
        t0 = time.perf_counter()
        runs = import_all([str(src)], None, False)
        rescore_runs(runs, out)
        trials = store.read_table(out, "trials")
        counts = {(d, v): len(load_task_set(d, v).tasks) for d, v in trials[["domain", "task_version"]].drop_duplicates().itertuples(index=False)}
        board = leaderboard_table(trials, counts)
        ours = time.perf_counter() - t0
        scores = store.read_table(out, "scores")
        site = build_site(out, Path(tmp) / "viewer")
        loads = page_load_seconds(Path(tmp) / "viewer", a.page_sample)
    per_stock = stock_seconds_per_trajectory(a.stock_sample)
    print(f"trajectories={n} runs={len(runs)} leaderboard_rows={len(board)} scores_rows={len(scores)} (gold + variants)")
    print(f"ours: full pipeline {ours:.1f}s ({1000 * ours / n:.1f} ms/trajectory, target <= 60 s)")
    print(f"viewer: {site.pages} pages built in {site.seconds:.1f}s, {site.bytes / 1e6:.1f} MB in all, "
          f"largest page {site.largest_page_bytes / 1e3:.0f} kB")
    if loads:
        print(f"viewer page loads in headless Chromium: index {loads[0]:.2f}s, slowest of {len(loads) - 1} "
              f"trial pages {max(loads[1:]):.2f}s (target < 1 s each)")
    else:
        print("viewer page loads: not measured (needs playwright and chromium)")
    print(f"stock tau2: {1000 * per_stock:.0f} ms/trajectory on a sample of {a.stock_sample}, "
          f"so about {per_stock * n / 60:.1f} min for {n} (single gold only)")
    print(f"speedup={per_stock * n / ours:.1f}")


if __name__ == "__main__":
    main()
