"""The four-point band strict ≤ single ≤ multi ≤ upper, and the do-nothing ceiling, from a ``trials`` table.

``strict`` is the share of scored trials whose ``strict_reward`` is 1: a trial on a broken gold's task (strict
null, marked) is scored by the single gold but is not a strict pass, so the four rates share one denominator and
the band holds as rates. A run written before the column has no strict figure: ``n/a``, never 0.
The do-nothing ceiling is ``audit golds``'s share of tasks a do-nothing trajectory passes, for the tasks the run
holds, per task version and domain.
"""

from __future__ import annotations

import pandas as pd

from analysis._audit_golds import audit_golds
from analysis._stats import bootstrap_ci, task_clusters
from analysis._tables import scored

BAND4_COLUMNS = ["agent", "task_version", "domain", "trials", "strict", "single", "multi", "upper", "band",
                 "broken_gold_trials", "do_nothing_ceiling"]


def band4(strict: float, single: float, multi: float, upper: float, fmt: str = "{:.1%}") -> str:
    return " ≤ ".join("n/a" if v is None or v != v else fmt.format(v) for v in (strict, single, multi, upper))


def strict_known(trials: pd.DataFrame) -> bool:
    return "strict_reward" in trials and bool(trials["strict_reward"].notna().any())


def broken_gold_rows(trials: pd.DataFrame) -> pd.Series:
    if "strict_reason" not in trials:
        return pd.Series(False, index=trials.index)
    return trials["strict_reason"].fillna("").str.startswith("broken gold")


def do_nothing_tasks(pairs: list[tuple[str, str]]) -> pd.DataFrame:
    """``audit golds`` rows (task_version, domain, task_id, passes_doing_nothing, broken_gold) for these
    (task_version, domain) pairs of pinned versions."""
    from envs import TASK_VERSIONS

    frames = []
    for version, domain in sorted(set(pairs)):
        if version in TASK_VERSIONS:
            frames.append(audit_golds([domain], [version]).golds)
    cols = ["task_version", "domain", "task_id", "passes_doing_nothing", "broken_gold"]
    return pd.concat(frames)[cols] if frames else pd.DataFrame(columns=cols)


def _keys(audit: pd.DataFrame) -> set[tuple[str, str, str]]:
    return set(zip(audit.task_version, audit.domain, audit.task_id, strict=True))


def band4_by_agent(trials: pd.DataFrame) -> pd.DataFrame:
    """Per agent, task version and domain: strict ≤ single ≤ multi ≤ upper success and the do-nothing ceiling
    on the same tasks (the audit's share of them a do-nothing trajectory passes)."""
    df = scored(trials)
    if df.empty:
        return pd.DataFrame(columns=BAND4_COLUMNS)
    known = strict_known(trials)
    audit = do_nothing_tasks(list(zip(df.task_version, df.domain, strict=True)))
    passes = _keys(audit[audit.passes_doing_nothing.eq(True)])
    rows = []
    for (agent, version, domain), g in df.groupby(["agent_name", "task_version", "domain"], sort=True):
        strict = float((g.strict_reward == 1.0).mean()) if known else float("nan")
        single, multi, upper = g.reward.mean(), g.multi_gold_reward.mean(), g.multi_gold_upper.mean()
        tasks = set(g.task_id)
        ceiling = (sum((version, domain, t) in passes for t in tasks) / len(tasks)) if version in set(audit.task_version) else float("nan")
        rows.append({
            "agent": agent, "task_version": version, "domain": domain, "trials": len(g),
            "strict": strict, "single": single, "multi": multi, "upper": upper,
            "band": band4(strict, single, multi, upper),
            "broken_gold_trials": int(broken_gold_rows(g).sum()),
            "do_nothing_ceiling": ceiling,
        })
    return pd.DataFrame(rows, columns=BAND4_COLUMNS)


BAND_POINTS = ("strict", "single", "multi", "upper")  # the band's order: each point at most the next
BAND_POINTS_COLUMNS = ["agent", "point", "rate", "ci_low", "ci_high", "trials", "tasks"]


def band_points(trials: pd.DataFrame, reps: int = 2000, seed: int = 42) -> pd.DataFrame:
    """Per agent (all its scored trials, every version and domain pooled), the four points of the band, each a
    success rate with its 95% interval, bootstrap clustered by task (``bootstrap_ci``; no interval with fewer
    than two tasks). One row per agent and point, in the band's order; strict is NaN for a run written before
    ``strict_reward`` (unknown, never 0). A broken gold's trial (strict null) is not a strict pass: the four
    rates share one denominator, as in ``band4_by_agent``."""
    df = scored(trials)
    known = strict_known(trials)
    rows = []
    for agent, g in df.groupby("agent_name", sort=True):
        clusters = task_clusters(g)
        several = len(set(clusters)) >= 2
        columns = {"strict": g["strict_reward"] if known else None, "single": g.reward,
                   "multi": g.multi_gold_reward, "upper": g.multi_gold_upper}
        for point in BAND_POINTS:
            values = columns[point]
            if values is None:
                rate = low = high = float("nan")
            else:
                success = (values.fillna(0).to_numpy(dtype=float) >= 1 - 1e-6).astype(float)
                rate = float(success.mean())
                low, high = bootstrap_ci(success, clusters, reps, seed) if several else (float("nan"),) * 2
            rows.append({"agent": agent, "point": point, "rate": rate, "ci_low": low, "ci_high": high,
                         "trials": len(g), "tasks": len(set(clusters))})
    return pd.DataFrame(rows, columns=BAND_POINTS_COLUMNS)


def contract_marks(trials: pd.DataFrame) -> pd.DataFrame:
    """Per trial: whether its task's gold is broken and whether doing nothing passes it (the viewer's marks)."""
    pairs = list(zip(trials.task_version, trials.domain, strict=True))
    audit = do_nothing_tasks(pairs)
    broken = _keys(audit[audit.broken_gold.eq(True)])
    passes = _keys(audit[audit.passes_doing_nothing.eq(True)])
    keys = list(zip(trials.task_version, trials.domain, trials.task_id, strict=True))
    return pd.DataFrame({
        "trajectory_id": trials.trajectory_id.to_numpy(),
        "broken_gold": [k in broken for k in keys],
        "do_nothing_passes": [k in passes for k in keys],
    }, index=trials.index)
