"""One file, one score, on every machine (#42 item 1): a τ² run rescored where τ³'s and Verified's data are
absent gets the same trials and scores as where they are present, since every variant's gold is catalog data
(``gold_variants/report_golds.yaml``); and the figures the docs quote for that run are the rescore's."""

from __future__ import annotations

import json
import os
import re

import pandas as pd
import pytest

from envs import TauDataError, load_task_set, pinned_gold_version
from tests.conftest import ROOT, TAU_DATA, harness, real_run

AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
WHISSLE = "whissle_airline_tau3_1trial.json"


def _env(base, name: str, data: str) -> dict[str, str]:
    return {**os.environ, "HARNESS_TAU_DATA": data, "HARNESS_OFFLINE": "1", "XDG_CACHE_HOME": str(base / f"cache-{name}")}


# Run in each rescore's process before the CLI: every variant of every τ² task of both domains, as JSON.
_DUMP_VARIANTS = """
import json, pathlib
from gold_variants import all_variants
pathlib.Path({path!r}).write_text(json.dumps(
    {{d: {{t: [v.model_dump(mode="json") for v in vs] for t, vs in all_variants(d, "tau2").items()}}
      for d in ("airline", "retail")}}, sort_keys=True))
"""


def _tau2_only(base) -> str:
    """A $HARNESS_TAU_DATA holding only τ²'s files (no τ³, no Verified)."""
    folder = base / "tau2-only"
    if not folder.exists():
        folder.mkdir()
        (folder / "tau2").symlink_to(TAU_DATA / "tau2", target_is_directory=True)
    return str(folder)


@pytest.fixture(scope="module")
def rescored(tmp_path_factory) -> dict[str, tuple[str, object]]:
    """The aide run rescored twice through the CLI: with every pinned version's data, and offline with a
    $HARNESS_TAU_DATA holding only τ²'s files and an empty cache (no τ³, no Verified)."""
    base = tmp_path_factory.mktemp("everywhere")
    out = {}
    for name, data in (("all", str(TAU_DATA)), ("tau2_only", _tau2_only(base))):
        proc = harness("rescore", str(real_run(AIDE)), "--out", str(base / name), env=_env(base, name, data),
                       timeout=300, patch=_DUMP_VARIANTS.format(path=str(base / f"{name}-variants.json")))
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


def test_a_version_that_needs_missing_data_is_refused_not_guessed(tmp_path):
    """A results file without embedded tasks (a bare list of simulations) is placed by its recorded gold actions.
    Two τ³ simulations whose golds differ from τ²'s: with every version's data they are τ³; with only τ²'s the
    version would be a guess (it was "tau2 assumed", scored against the wrong gold), so it is refused in one line."""
    sims = json.loads(real_run(WHISSLE).read_text())["simulations"]
    tau2, tau3 = load_task_set("airline", "tau2"), load_task_set("airline", "tau3")
    picked = [s for s in sims if s["task_id"] in ("2", "7")]
    assert len(picked) == 2 and all(tau2.task(s["task_id"]).evaluation_criteria.actions
                                    != tau3.task(s["task_id"]).evaluation_criteria.actions for s in picked)
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(picked))
    full = harness("rescore", str(bare), "--out", str(tmp_path / "all"), env=_env(tmp_path, "all", str(TAU_DATA)))
    assert full.returncode == 0, full.stderr
    assert set(pd.read_parquet(tmp_path / "all" / "trials.parquet").task_version) == {"tau3"}
    only = harness("rescore", str(bare), "--out", str(tmp_path / "only"),
                   env=_env(tmp_path, "only", _tau2_only(tmp_path)))
    assert only.returncode != 0 and not (tmp_path / "only" / "trials.parquet").exists()
    (line,) = only.stderr.strip().splitlines()
    assert line.startswith(f"error: {bare}") and "τ³ and Verified data is not available" in line, line


def test_a_custom_task_s_pinned_gold_is_never_matched_by_what_is_at_hand(isolated_data):
    """Which pinned version a custom task's gold is (its variants) raises where a version it must compare is
    missing, rather than skipping it (a gold no tau2 task has needs tau3 and Verified to be compared)."""
    import envs._detect as detect

    detect._pinned_golds.cache_clear()
    task = load_task_set("airline", "tau2").task("1")
    assert pinned_gold_version("airline", task) == "tau2"  # decided by tau2, always at hand
    other = task.model_copy(update={"evaluation_criteria": None})  # a gold no tau2 task has
    with pytest.raises(TauDataError):
        pinned_gold_version("airline", other)
    detect._pinned_golds.cache_clear()



def test_every_tau2_variant_is_offered_without_the_other_versions_data(rescored):
    """Every clause rule and task report, on every τ² task of both domains (not only the aide run's): the variants
    the rescore process with only τ²'s data yields are those the one with every version's yields (each process
    wrote them before its rescore: no cache carries one version's data into the other)."""
    (_, all_dir), (_, tau2_dir) = rescored["all"], rescored["tau2_only"]
    offered = [json.loads((d.parent / f"{d.name}-variants.json").read_text()) for d in (all_dir, tau2_dir)]
    assert offered[0] == offered[1]
    assert any(v["loophole_id"] == "TB85" for v in offered[1]["airline"]["33"])  # a borrowed gold among them
    assert sum(len(vs) for d in offered[1].values() for vs in d.values()) >= 16
