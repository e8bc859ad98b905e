"""Every table of ``harness analyze`` for one run directory, computed once for the CLI and the report."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from analysis._contract import band4_by_agent
from analysis._stats import (
    cell_variance,
    check_pass_k_convention,
    counterfactual,
    infra_errors,
    loophole_gap,
    model_split,
    overlap_test,
    pass_k,
    reading_choices,
    variance_by_agent,
    version_comparison,
)
from analysis._tables import (
    band_by_agent,
    loophole_task_table,
    replay_flag_counts,
    success_by_agent,
)
from analysis._versions import against_mask, moves_across_versions, native, ranks_across_versions


@dataclass
class AnalysisBundle:
    trials: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    pass_k_convention: str = "tau2"  # a key of PASS_K_CONVENTIONS: what the pass_k table computed


def analyze_trials(trials: pd.DataFrame, reps: int = 10_000, seed: int = 42,
                   pass_k_convention: str = "tau2") -> AnalysisBundle:
    check_pass_k_convention(pass_k_convention)
    scored_against = against_mask(trials)
    every = trials
    trials = native(trials)  # rows scored against another version's golds feed only the cross-version tables
    bundle = AnalysisBundle(trials, pass_k_convention=pass_k_convention)
    if scored_against.any():
        versions = ", ".join(sorted(every[scored_against].task_version.unique()))
        bundle.notes.append(
            f"{int(scored_against.sum())} rows scored against other versions' golds ({versions}; rescore "
            "--against-version) are left out of the per-run tables and shown in cross_version and "
            "ranks_across_versions"
        )
    unscored = trials[trials.reward.isna()]
    if len(unscored):
        reasons = ", ".join(f"{n} {s}" for s, n in unscored.status.value_counts().items())
        bundle.notes.append(f"{len(unscored)} trials have no reward and are left out ({reasons})")
    flagged = replay_flag_counts(trials)
    if flagged:
        modes = ", ".join(sorted(str(m) for m in trials.get("replay_mode", pd.Series(dtype=str)).dropna().unique()))
        bundle.notes.append(
            f"replay flags ({modes or 'lenient'} replay, tau2 1.0.1's evaluate-trajs): {flagged} trials; "
            "strict_replay_diverges counts the rewards the pinned package's strict replay would leave null"
        )
    per_cell = trials[trials.reward.notna()].groupby(["agent_name", "task_id"]).size()
    if len(per_cell) and per_cell.max() < 2:
        bundle.notes.append("one trial per agent and task: pass^k stops at k=1, variance and CIs are undefined")
    bundle.notes.append(
        f"confidence intervals: 95% bootstrap clustered by task (tasks resampled, then trials within them), "
        f"{reps} repetitions, seed {seed}"
    )
    bundle.notes.append(
        "band per agent: strict ≤ single gold ≤ multi-gold ≤ upper; upper also counts the credits scored uncertain"
    )
    if trials.agent_name.nunique() < 2:
        bundle.notes.append("one agent: rank and lead comparisons between agents are empty")
    t = bundle.tables
    t["success"] = success_by_agent(trials)
    t["band"] = band_by_agent(trials)
    t["band4"] = band4_by_agent(trials)  # strict ≤ single ≤ multi ≤ upper and the do-nothing ceiling (#35)
    t["pass_k"] = pass_k(trials, pass_k_convention)
    t["infra_errors"] = infra_errors(trials)
    bundle.notes.append(_pass_k_note(pass_k_convention, t["infra_errors"]))
    t["loophole_gap_single"] = loophole_gap(trials, reps, seed, "reward")
    t["loophole_gap_multi"] = loophole_gap(trials, reps, seed, "multi_gold_reward")
    t["variance_single"] = cell_variance(trials, "reward")
    t["variance_multi"] = cell_variance(trials, "multi_gold_reward")
    t["variance_by_agent"] = variance_by_agent(trials)
    t["counterfactual"] = counterfactual(trials)
    t["model_split"] = model_split(trials)
    t["loophole_tasks"] = loophole_task_table(trials)
    t["readings"] = reading_choices(trials)
    t["versions"] = version_comparison(trials)
    t["overlap"] = _overlap(trials, bundle.notes)
    if scored_against.any():
        t["cross_version"] = moves_across_versions(every)
        t["ranks_across_versions"] = ranks_across_versions(every)
    return bundle


def _pass_k_note(convention: str, infra: pd.DataFrame) -> str:
    """Which pass^k convention the tables use, and what it did with the simulations infrastructure errors ended,
    in one sentence (the convention's definition is ``PASS_K_CONVENTIONS``, under the report's pass^k table and
    in docs/report.md; the simulations are the ``infra_errors`` table)."""
    line = f"pass^k convention {convention}: {_PASS_K_SHORT[convention]}"
    if infra.empty:
        return line + ", no simulation ended by an infrastructure error"
    did = "left out of" if convention == "tau2" else "counted as failures in"
    return f"{line}, {len(infra)} simulations ended by infrastructure errors were {did} pass^k (table infra_errors)"


_PASS_K_SHORT = {"tau2": "tau2's estimator", "infra-fail": "infrastructure errors as failed trials"}


def _overlap(trials: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """Per domain: do the catalog's loophole tasks fall inside the tasks tau3 changed by chance?"""
    from envs import TauDataError, diff_versions, load_task_set
    from gold_variants import load_catalog

    rows = []
    for domain in sorted(trials["domain"].dropna().unique()):
        loophole = load_catalog().loophole_tasks(domain)
        if not loophole:
            continue
        try:
            changed = set(diff_versions(domain).changed_ids)
        except TauDataError:  # one sentence, never the raw error (its path and URL): docs/data.md says how to fix it
            notes.append(f"overlap test skipped for {domain}: τ³'s task data could not be read here (docs/data.md)")
            continue
        n_tasks = len(load_task_set(domain, "tau2").tasks)
        hit = len(changed & loophole)
        rows.append({"domain": domain, "tasks": n_tasks, "changed_by_tau3": len(changed), "loophole_tasks": len(loophole),
                     "loophole_changed": hit, "p_value": overlap_test(n_tasks, len(changed), len(loophole), hit)})
    return pd.DataFrame(rows)


ANALYZE_MADE_BY = "harness analyze"


def write_tables(bundle: AnalysisBundle, out: Path) -> list[Path]:
    """Each table as CSV and Parquet, the folder built whole and swapped in (``atomic_folder``): a folder
    that holds anything an earlier ``analyze`` did not write there is refused, never overwritten."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from loophole_base import atomic_folder

    out = Path(out)
    names = []
    with atomic_folder(out, made_by=ANALYZE_MADE_BY, label="--out") as tmp:
        for name, df in bundle.tables.items():
            (tmp / f"{name}.csv").write_text(df.to_csv(index=False), encoding="utf-8")
            table = pa.Table.from_pandas(df.astype({c: str for c in df.columns if df[c].dtype == object}),
                                         preserve_index=False)
            pq.write_table(table, tmp / f"{name}.parquet")
            names += [f"{name}.csv", f"{name}.parquet"]
    return [out / n for n in names]
