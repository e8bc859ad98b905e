"""Success tables from the ``trials`` table: pure functions, DataFrames in and out.

Loophole tasks come from the catalog (``gold_variants/catalog.yaml``), never from a list in the code.
Trials whose reward is null (infra errors, no judge) are left out of every rate and counted apart.
"""

from __future__ import annotations

import pandas as pd

from envs import CUSTOM
from gold_variants import load_catalog
from loophole_base import natural_key


def loophole_mask(trials: pd.DataFrame) -> pd.Series:
    catalog = load_catalog()
    sets = {d: catalog.loophole_tasks(d) for d in trials["domain"].unique()}
    return pd.Series(
        [t in sets.get(d, set()) for d, t in zip(trials["domain"], trials["task_id"], strict=True)],
        index=trials.index, dtype=bool,
    )


def upper_reward(trials: pd.DataFrame) -> pd.Series:
    """``multi_gold_upper`` (multi-gold counting uncertain credits), with ``multi_gold_reward`` where a run
    written before the three verdicts lacks it: with no uncertain credit the upper bound is multi-gold."""
    multi = trials["multi_gold_reward"]
    if "multi_gold_upper" not in trials:
        return multi.copy()
    return trials["multi_gold_upper"].fillna(multi)


def with_upper(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials with ``multi_gold_upper`` filled (``upper_reward``)."""
    return trials.assign(multi_gold_upper=upper_reward(trials))


def scored(trials: pd.DataFrame) -> pd.DataFrame:
    return with_upper(trials[trials["reward"].notna()]).assign(loophole=lambda df: loophole_mask(df))


def band(single: float, multi: float, upper: float, fmt: str = "{:.1%}") -> str:
    """The band ``single ≤ multi ≤ upper`` as text (``n/a`` for a missing rate)."""
    return " ≤ ".join("n/a" if v is None or v != v else fmt.format(v) for v in (single, multi, upper))


def success_by_agent(trials: pd.DataFrame) -> pd.DataFrame:
    """Per agent: trials, single- and multi-gold success, and both on loophole / non-loophole tasks (the upper
    bound is in ``band_by_agent``)."""
    df = scored(trials)
    rows = []
    for agent, g in df.groupby("agent_name", sort=True):
        lo, non = g[g.loophole], g[~g.loophole]
        rows.append({
            "agent": agent,
            "trials": len(g),
            "single_gold": g.reward.mean(),
            "multi_gold": g.multi_gold_reward.mean(),
            "loophole_trials": len(lo),
            "loophole_single": lo.reward.mean() if len(lo) else float("nan"),
            "loophole_multi": lo.multi_gold_reward.mean() if len(lo) else float("nan"),
            "non_loophole_single": non.reward.mean() if len(non) else float("nan"),
            "non_loophole_multi": non.multi_gold_reward.mean() if len(non) else float("nan"),
            "unscored": int(((trials.agent_name == agent) & trials.reward.isna()).sum()),
        })
    return pd.DataFrame(rows)


def loophole_task_table(trials: pd.DataFrame) -> pd.DataFrame:
    """Per loophole task and agent: successes / trials under the single gold, under multi-gold, and counting
    uncertain credits (``upper``)."""
    df = scored(trials)
    df = df[df.loophole]
    rows = []
    for (domain, version, task, agent), g in df.groupby(["domain", "task_version", "task_id", "agent_name"]):
        rows.append({
            "domain": domain, "task_version": version, "task_id": task, "agent": agent,
            "single": f"{int(g.reward.sum())}/{len(g)}", "multi": f"{int(g.multi_gold_reward.sum())}/{len(g)}",
            "single_rate": g.reward.mean(), "multi_rate": g.multi_gold_reward.mean(),
            "upper": f"{int(g.multi_gold_upper.sum())}/{len(g)}", "upper_rate": g.multi_gold_upper.mean(),
        })
    out = pd.DataFrame(rows)
    if len(out):
        out = by_task(out, ["domain", "task_version", "task_id"])
    return out.reset_index(drop=True)


def by_task(df: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """``df`` sorted by ``columns``, task ids (and any other column) in natural order (``natural_key``: 2
    before 13), stable; the index kept."""
    if df.empty:
        return df
    return df.sort_values(columns, key=lambda s: s.map(natural_key), kind="stable")


def band_by_agent(trials: pd.DataFrame) -> pd.DataFrame:
    """Per agent: single-gold ≤ multi-gold ≤ upper success, as rates and as one ``band`` string, and the
    trials only an uncertain credit passes (``upper`` counts them, ``multi`` does not)."""
    df = scored(trials)
    rows = []
    for agent, g in df.groupby("agent_name", sort=True):
        single, multi, upper = g.reward.mean(), g.multi_gold_reward.mean(), g.multi_gold_upper.mean()
        rows.append({
            "agent": agent, "trials": len(g), "single": single, "multi": multi, "upper": upper,
            "uncertain_trials": int((g.multi_gold_upper > g.multi_gold_reward).sum()),
            "band": band(single, multi, upper),
        })
    if not rows:
        return pd.DataFrame(columns=["agent", "trials", "single", "multi", "upper", "uncertain_trials", "band"])
    return pd.DataFrame(rows)


def replay_flag_counts(g: pd.DataFrame) -> str:
    """How many of a run's rows carry each replay flag (``trials.replay_flags``, most common first):
    "strict_replay_diverges (147), write_output_differs (12)". Empty where none does, or the run predates them."""
    if "replay_flags" not in g:
        return ""
    counts: dict[str, int] = {}
    for flags in g["replay_flags"]:
        for flag in flags if flags is not None else ():
            counts[str(flag)] = counts.get(str(flag), 0) + 1
    return ", ".join(f"{flag} ({n})" for flag, n in sorted(counts.items(), key=lambda c: (-c[1], c[0])))


def task_groups(trials: pd.DataFrame) -> pd.Series:
    """Which tasks a row's run was scored on: the pinned version, or ``custom:<tasks sha256[:12]>``, so that
    custom runs are never mixed into τ²/τ³ tables nor with custom runs of other tasks."""
    sha = trials["tasks_sha256"] if "tasks_sha256" in trials else pd.Series(None, index=trials.index, dtype=object)
    custom = trials.task_version == CUSTOM
    return trials.task_version.where(~custom, "custom:" + sha.fillna("unknown").astype(str).str[:12])
