"""One file, one score, on every machine (#42 item 1): a τ² run rescored where τ³'s and Verified's data are
absent gets the same trials and scores as where they are present, since every variant's gold is catalog data
(``gold_variants/report_golds.yaml``); and the figures the docs quote for that run are the rescore's."""

from __future__ import annotations

import json
import os
import re

import pandas as pd
import pytest

from tests.conftest import ROOT, TAU_DATA, harness, real_run

AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"


@pytest.fixture(scope="module")
def rescored(tmp_path_factory) -> dict[str, tuple[str, object]]:
    """The aide run rescored twice through the CLI: with every pinned version's data, and offline with a
    $HARNESS_TAU_DATA holding only τ²'s files and an empty cache (no τ³, no Verified)."""
    base = tmp_path_factory.mktemp("everywhere")
    tau2_only = base / "tau2-only"
    tau2_only.mkdir()
    (tau2_only / "tau2").symlink_to(TAU_DATA / "tau2", target_is_directory=True)
    out = {}
    for name, data in (("all", str(TAU_DATA)), ("tau2_only", str(tau2_only))):
        env = {**os.environ, "HARNESS_TAU_DATA": data, "HARNESS_OFFLINE": "1",
               "XDG_CACHE_HOME": str(base / f"cache-{name}")}
        proc = harness("rescore", str(real_run(AIDE)), "--out", str(base / name), env=env, timeout=300)
        assert proc.returncode == 0, proc.stderr
        out[name] = (proc.stdout, base / name)
    return out


def test_the_other_versions_data_changes_nothing(rescored):
    (said_all, all_dir), (said_tau2, tau2_dir) = rescored["all"], rescored["tau2_only"]
    assert "τ³ data not available" in said_tau2 and "Verified data not available" in said_tau2  # really absent
    assert "tau3 23/50" in said_all  # and really present in the other
    for table in ("trials", "scores"):
        a, b = pd.read_parquet(all_dir / f"{table}.parquet"), pd.read_parquet(tau2_dir / f"{table}.parquet")
        assert list(a.columns) == list(b.columns) and len(a) == len(b), table
        for column in a.columns:  # every column: no timestamp or output path is stored in these rows
            assert a[column].astype(str).tolist() == b[column].astype(str).tolist(), (table, column)
    run_all, run_tau2 = (json.loads((d / "run.json").read_text()) for d in (all_dir, tau2_dir))
    assert _without_times(run_all) == _without_times(run_tau2)  # the same provenance, catalog hash included
    # the variants that need another version's gold are among what both credit
    trials = pd.read_parquet(tau2_dir / "trials.parquet")
    credited = {g for ids in trials.matched_gold_ids for g in ids}
    assert "C35.profile_birth_date" in credited


def _without_times(info: dict) -> dict:
    return {k: (_without_times(v) if isinstance(v, dict) else v) for k, v in info.items() if k != "written_at"}


def test_the_docs_quote_the_rescore_s_figures(rescored):
    """docs/contract.md's strict / single / multi / upper counts and docs/data.md's pass^1 of the aide run are
    the rescore's (the same on any machine, the test above shows)."""
    trials = pd.read_parquet(rescored["tau2_only"][1] / "trials.parquet")
    n = len(trials)
    passed = [int((trials[c] == 1.0).sum()) for c in ("strict_reward", "reward", "multi_gold_reward", "multi_gold_upper")]
    contract = " ".join((ROOT / "docs" / "contract.md").read_text().split())
    assert f"aide τ² airline {' / '.join(map(str, passed))} of {n}" in contract
    data = " ".join((ROOT / "docs" / "data.md").read_text().split())
    quoted = re.search(r"claude-sonnet-4-5 ([\d.]+)% / ([\d.]+)% under τ²'s golds", data)
    assert quoted is not None
    assert (float(quoted[1]), float(quoted[2])) == (100 * passed[1] / n, 100 * passed[2] / n)
