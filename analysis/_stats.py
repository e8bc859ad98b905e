"""The paper's statistics (§4, Appendix A.4) over the ``trials`` table; DataFrames in and out.

Every function takes the trials table (from ``rescore`` or ``sweep``), leaves out unscored trials (null
reward), groups by agent (``agent_name``), and says so where trials are too few instead of printing a number.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from tau2.metrics.agent_metrics import is_successful, pass_hat_k

from analysis._tables import by_task, scored, with_upper

REWARDS = {"single_gold": "reward", "multi_gold": "multi_gold_reward", "multi_gold_upper": "multi_gold_upper"}


def _success(values: pd.Series) -> pd.Series:
    """tau2's success test per reward; a null reward stays null (unknown, not a failure)."""
    return values.map(lambda r: pd.NA if pd.isna(r) else bool(is_successful(r))).astype("boolean")


def cluster_bootstrap(
    values: np.ndarray, clusters: np.ndarray, reps: int, rng: np.random.Generator
) -> np.ndarray:
    """``reps`` bootstrap replicates of the mean of ``values``, clustered: each replicate resamples the
    clusters (tasks) with replacement, then the trials within each drawn cluster with replacement, and
    takes the mean over the trials drawn. Trials of one task are correlated (same task, same difficulty),
    so resampling trials alone understates the spread; inspect_ai's clustered bootstrap does the same.
    With one trial per cluster this is the ordinary (trial-level) bootstrap."""
    values = np.asarray(values, dtype=float)
    _, codes = np.unique(np.asarray(clusters, dtype=str), return_inverse=True)
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    padded = np.zeros((len(sizes), sizes.max()))
    for c, (start, size) in enumerate(zip(starts, sizes, strict=True)):
        padded[c, :size] = values[order[start : start + size]]
    k, width = len(sizes), sizes.max()
    out = np.empty(reps)
    step = max(1, 2_000_000 // max(1, k * width))  # replicates per batch: bounded memory
    for lo in range(0, reps, step):
        n = min(step, reps - lo)
        picks = rng.integers(0, k, (n, k))  # clusters drawn
        drawn = sizes[picks]  # their sizes
        within = (rng.random((n, k, width)) * drawn[..., None]).astype(int)  # trials drawn within each
        mask = np.arange(width)[None, None, :] < drawn[..., None]
        total = np.where(mask, padded[picks[..., None], within], 0.0).sum(axis=(1, 2))
        out[lo : lo + n] = total / drawn.sum(axis=1)
    return out


def bootstrap_ci(
    values: np.ndarray, clusters: np.ndarray, reps: int = 10_000, seed: int | np.random.Generator = 42
) -> tuple[float, float]:
    """95% percentile interval of the mean, bootstrap clustered by ``clusters`` (``cluster_bootstrap``)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    low, high = np.percentile(cluster_bootstrap(values, clusters, reps, rng), [2.5, 97.5])
    return float(low), float(high)


def task_clusters(df: pd.DataFrame) -> np.ndarray:
    """The cluster of each trial: its task (domain, task version, task id)."""
    return (df["domain"].astype(str) + "/" + df["task_version"].astype(str) + "/" + df["task_id"].astype(str)).to_numpy()


PASS_K_CONVENTIONS = {
    "tau2": "tau2's estimator: per task C(c,k)/C(n,k) over its scored trials, averaged over the tasks with at least "
            "k; simulations ended by infrastructure errors left out (tau2's compute_metrics)",
    "infra-fail": "infrastructure errors count as failed trials: per task C(c,k)/C(n,k) with n every simulation "
                  "scored or ended by an infrastructure error, averaged over those tasks (tau2-bench#493, #497)",
}
"""The two documented pass^k conventions (``analyze --pass-k``); ``tau2`` is the default."""

INFRA_ERROR = "infra_error"  # loophole_scoring.Status.INFRA_ERROR, as stored in ``trials.status``


def check_pass_k_convention(convention: str) -> str:
    from loophole_base import HarnessInputError

    if convention not in PASS_K_CONVENTIONS:
        raise HarnessInputError(f"--pass-k: unknown convention {convention!r}; known: {', '.join(PASS_K_CONVENTIONS)}")
    return convention


def infra_errors(trials: pd.DataFrame) -> pd.DataFrame:
    """The simulations ended by an infrastructure error (``status`` infra_error, reward null), one row each:
    what pass^k leaves out (``tau2``) or counts as a failure (``infra-fail``); never dropped unlisted."""
    columns = ["agent", "domain", "task_version", "task_id", "trial", "trajectory_id", "reason"]
    if "status" not in trials:
        return pd.DataFrame(columns=columns)
    hit = trials[(trials["status"] == INFRA_ERROR) & trials["reward"].isna()]
    out = pd.DataFrame({
        "agent": hit["agent_name"], "domain": hit["domain"], "task_version": hit["task_version"],
        "task_id": hit["task_id"], "trial": hit["trial"] if "trial" in hit else pd.NA,
        "trajectory_id": hit["trajectory_id"], "reason": hit["reason"] if "reason" in hit else "",
    }, columns=columns)
    return by_task(out, ["agent", "domain", "task_version", "task_id", "trial"]).reset_index(drop=True)


def pass_k(trials: pd.DataFrame, convention: str = "tau2") -> pd.DataFrame:
    """pass^k for k = 1..(fewest trials of any task), C(c,k)/C(n,k) averaged over tasks (``convention``, one of
    ``PASS_K_CONVENTIONS``: ``tau2`` leaves out simulations ended by infrastructure errors, as tau2 does;
    ``infra-fail`` counts them as failed trials), single-gold, multi-gold and its upper bound (uncertain
    credits counted) side by side, per agent, domain and task version; ``infra_errors`` counts the
    simulations the convention left out or counted as failures (``infra_errors()`` lists them)."""
    check_pass_k_convention(convention)
    scored_rows = with_upper(trials[trials["reward"].notna()])
    successes = {name: _success(scored_rows[col]) for name, col in REWARDS.items()}
    df = scored_rows[["agent_name", "domain", "task_version", "task_id"]].assign(**successes)
    infra = infra_errors(trials)
    if convention == "infra-fail" and len(infra):
        failed = infra.rename(columns={"agent": "agent_name"})[["agent_name", "domain", "task_version", "task_id"]]
        df = pd.concat([df, failed.assign(**{name: False for name in REWARDS})], ignore_index=True)
    counts = infra.groupby(["agent", "domain", "task_version"]).size()
    rows = []
    for (agent, domain, version), g in df.groupby(["agent_name", "domain", "task_version"]):
        per_task = g.groupby("task_id")
        max_k = int(per_task.size().min())
        for k in range(1, max_k + 1):
            row = {"agent": agent, "domain": domain, "task_version": version, "k": k, "tasks": per_task.ngroups}
            for name in REWARDS:
                known = [t[name].dropna() for _, t in per_task]
                row[name] = float(np.mean([pass_hat_k(len(s), int(s.sum()), k) for s in known if len(s) >= k]))
            row["infra_errors"] = int(counts.get((agent, domain, version), 0))
            row["convention"] = convention
            rows.append(row)
    columns = ["agent", "domain", "task_version", "k", "tasks", *REWARDS, "infra_errors", "convention"]
    return pd.DataFrame(rows, columns=columns)


def loophole_gap(trials: pd.DataFrame, reps: int = 10_000, seed: int = 42, reward: str = "reward") -> pd.DataFrame:
    """Per agent: success on non-loophole minus loophole tasks, with a bootstrap 95% CI.

    The bootstrap is clustered by task (``cluster_bootstrap``): within each stratum the tasks are resampled,
    then the trials within them, at the original sizes; the two strata independently; percentile
    interval; fixed seed. With fewer than two tasks in a stratum there is no interval (NaN, and a note).
    """
    df = scored(trials)
    df = df.assign(success=_success(df[reward])).dropna(subset=["success"])
    rng = np.random.default_rng(seed)
    rows = []
    for agent, g in df.groupby("agent_name", sort=True):
        lo_df, non_df = g[g.loophole], g[~g.loophole]
        lo, non = lo_df.success.to_numpy(dtype=float), non_df.success.to_numpy(dtype=float)
        row = {"agent": agent, "loophole_trials": len(lo), "non_loophole_trials": len(non),
               "loophole": lo.mean() if len(lo) else np.nan, "non_loophole": non.mean() if len(non) else np.nan}
        row["gap"] = row["non_loophole"] - row["loophole"]
        lo_tasks, non_tasks = task_clusters(lo_df), task_clusters(non_df)
        if len(set(lo_tasks)) >= 2 and len(set(non_tasks)) >= 2:
            boot = cluster_bootstrap(non, non_tasks, reps, rng) - cluster_bootstrap(lo, lo_tasks, reps, rng)
            row["ci_low"], row["ci_high"] = np.percentile(boot, [2.5, 97.5])
            row["note"] = ""
        else:
            row["ci_low"] = row["ci_high"] = np.nan
            row["note"] = "too few tasks for a confidence interval"
        rows.append(row)
    return pd.DataFrame(rows)


def cell_variance(trials: pd.DataFrame, reward: str = "reward") -> pd.DataFrame:
    """Within-task cross-trial variance: population variance (ddof=0) of the binary outcomes in each
    agent x task cell, averaged per group (loophole / non-loophole), with the cell counts."""
    df = scored(trials)
    cells = (
        df.assign(success=_success(df[reward]).astype(float))
        .groupby(["agent_name", "domain", "task_version", "task_id"])
        .agg(var=("success", lambda s: float(np.var(s.dropna().to_numpy(), ddof=0))), n=("success", "count"),
             loophole=("loophole", "first"))
        .reset_index()
    )
    rows = []
    for group, g in cells.groupby("loophole"):
        multi = g[g.n >= 2]
        rows.append({
            "group": "loophole" if group else "non_loophole",
            "cells": len(multi),
            "mean_variance": multi["var"].mean() if len(multi) else np.nan,
            "note": "" if len(multi) else "one trial per cell: variance undefined",
        })
    return pd.DataFrame(rows)


def counterfactual(trials: pd.DataFrame, reward: str = "reward") -> pd.DataFrame:
    """Per domain, each agent's overall rate and its rate with the loophole tasks removed, and the lead of
    each agent over the next one in that domain's ranking, both ways (agents are never ranked across
    domains: their tasks differ)."""
    df = scored(trials)
    rows = []
    for (domain, agent), g in df.groupby(["domain", "agent_name"], sort=True):
        s = _success(g[reward]).astype(float)  # a run of loophole tasks only: NaN without them, not pd.NA
        rows.append({"domain": domain, "agent": agent, "overall": s.mean(), "without_loophole": s[~g.loophole].mean()})
    columns = ["domain", "agent", "overall", "without_loophole", "lead_over_next", "lead_over_next_without_loophole"]
    if not rows:
        return pd.DataFrame(columns=columns)
    parts = []
    for _domain, g in pd.DataFrame(rows).groupby("domain", sort=True):
        g = g.sort_values("overall", ascending=False).reset_index(drop=True)
        g["lead_over_next"] = g["overall"] - g["overall"].shift(-1)
        g["lead_over_next_without_loophole"] = g["without_loophole"] - g["without_loophole"].shift(-1)
        parts.append(g)
    return pd.concat(parts, ignore_index=True)[columns]


def model_split(trials: pd.DataFrame, reward: str = "reward", loophole_only: bool = True) -> pd.DataFrame:
    """Per task and agent: successes / trials (the shape of the paper's Table 1)."""
    df = scored(trials)
    if loophole_only:
        df = df[df.loophole]
    df = df.assign(success=_success(df[reward]))
    table = df.groupby(["domain", "task_version", "task_id", "agent_name"]).success.agg(["sum", "count"])
    cells = (table["sum"].astype(int).astype(str) + "/" + table["count"].astype(str)).unstack("agent_name")
    return by_task(cells.reset_index(), ["domain", "task_version", "task_id"]).reset_index(drop=True)


def reading_choices(trials: pd.DataFrame) -> pd.DataFrame:
    """Which reading each agent's trials matched on each loophole task (from ``matched_gold_ids``): the shape
    of the paper's Appendix E. ``none`` is a trial that matched no gold."""
    df = scored(trials)
    df = df[df.loophole]
    rows = []
    for r in df.itertuples():
        matched = list(r.matched_gold_ids) if r.matched_gold_ids is not None else []
        rows.append({"agent": r.agent_name, "domain": r.domain, "task_version": r.task_version, "task_id": r.task_id,
                     "reading": ",".join(matched) if matched else "none"})
    if not rows:
        return pd.DataFrame(columns=["agent", "domain", "task_version", "task_id", "reading", "trials"])
    out = pd.DataFrame(rows)
    out = out.groupby(list(out.columns)).size().rename("trials").reset_index()
    return by_task(out, ["agent", "domain", "task_version", "task_id", "reading"]).reset_index(drop=True)


def version_comparison(trials: pd.DataFrame, reward: str = "reward") -> pd.DataFrame:
    """Per agent and task, success under each pair of task versions the agent ran (τ² → τ³, τ² → Verified,
    τ³ → Verified, in that order), for the tasks run under both; ``delta`` is the later minus the earlier."""
    from envs import TASK_VERSIONS

    columns = ["agent_name", "domain", "task_id", "version_a", "version_b", "success_a", "success_b", "delta"]
    df = scored(trials)
    df = df.assign(success=_success(df[reward]).astype(float))
    wide = df.pivot_table(index=["agent_name", "domain", "task_id"], columns="task_version", values="success",
                          aggfunc="mean")
    present = [v for v in TASK_VERSIONS if v in wide.columns]
    parts = []
    for i, a in enumerate(present):
        for b in present[i + 1:]:
            pair = wide[[a, b]].dropna().reset_index().rename(columns={a: "success_a", b: "success_b"})
            parts.append(pair.assign(version_a=a, version_b=b, delta=pair.success_b - pair.success_a))
    if not parts or all(p.empty for p in parts):
        return pd.DataFrame(columns=columns)
    out = pd.concat([p for p in parts if not p.empty], ignore_index=True)[columns]
    return by_task(out, ["agent_name", "domain", "version_a", "version_b", "task_id"]).reset_index(drop=True)


def overlap_test(population: int, changed: int, drawn: int, overlap: int) -> float:
    """P(X >= overlap) when ``drawn`` tasks are picked from ``population`` of which ``changed`` were changed
    (hypergeometric): the chance that the loophole tasks fall inside tau3's changes by accident."""
    # imported here: scipy.stats is ~0.6 s of CPU that every verb reading this module (view, report, sweep's
    # summary ...) paid at start-up, for the one statistic that needs it
    from scipy.stats import hypergeom

    return float(hypergeom.sf(overlap - 1, population, changed, drawn))


def cross_version_moves(trials_a: pd.DataFrame, trials_b: pd.DataFrame, reward: str = "reward") -> pd.DataFrame:
    """The same trajectories scored against two task versions' golds (``rescore --task-version``): per domain
    and task, how many verdicts stay, rise (0 → 1) or fall (1 → 0) from run A's version to run B's. Airline
    and retail tasks share ids ("5" is in both): the domain is part of the key, never pooled."""
    key = ["source_sha256", "simulation_id"]
    a = trials_a[[*key, "domain", "task_id", "task_version", reward]].rename(
        columns={reward: "a", "task_version": "version_a"})
    b = trials_b[[*key, "task_version", reward]].rename(columns={reward: "b", "task_version": "version_b"})
    both = a.merge(b, on=key).dropna(subset=["a", "b"])
    if both.empty:
        return pd.DataFrame(columns=["domain", "task_id", "version_a", "version_b", "trajectories", "rise", "fall",
                                     "same"])
    both = both.assign(
        rise=(_success(both.b) & ~_success(both.a)), fall=(_success(both.a) & ~_success(both.b))
    )
    out = both.groupby(["domain", "task_id", "version_a", "version_b"]).agg(
        trajectories=("a", "size"), rise=("rise", "sum"), fall=("fall", "sum")
    ).reset_index()
    out["same"] = out.trajectories - out.rise - out.fall
    return by_task(out, ["domain", "task_id", "version_a", "version_b"]).reset_index(drop=True)


def variance_by_agent(trials: pd.DataFrame, reward: str = "reward") -> pd.DataFrame:
    """Within-task variance and the single/multi-gold gap per agent on loophole and other tasks: how the
    arms of a policy-fix experiment compare."""
    df = scored(trials)
    rows = []
    for (agent, loophole), g in df.groupby(["agent_name", "loophole"]):
        cells = g.assign(s=_success(g[reward]).astype(float)).groupby(["domain", "task_version", "task_id"]).s
        sizes = cells.count()
        var = cells.agg(lambda s: float(np.var(s.dropna().to_numpy(), ddof=0)))[sizes >= 2]
        rows.append({
            "agent": agent, "group": "loophole" if loophole else "non_loophole", "cells": len(var),
            "mean_variance": var.mean() if len(var) else np.nan,
            "single_gold": _success(g.reward).mean(), "multi_gold": _success(g.multi_gold_reward).mean(),
            "multi_gold_upper": _success(g.multi_gold_upper).mean(),
            "gap_points": 100 * (_success(g.multi_gold_reward).mean() - _success(g.reward).mean()),
        })
    return pd.DataFrame(rows)
