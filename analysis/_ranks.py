"""Rankings with their uncertainty: per domain and task version, each ranked run's rank under strict, single
and multi-gold, its loophole-free score beside the full one, how often each adjacent pair's order holds when
tasks are resampled, and Kendall's τ between the single and multi orders with its interval.

The method's paper asks benchmarks to report loophole-affected and loophole-free scores apart; single runs of
one agent differ by 7-11 points (tau2-bench#540), so a rank change is a claim only where the order survives
resampling. The bootstrap is clustered by task (a task's trials stay together: they share the task's
difficulty) and paired (every run of a group is scored on the same resampled tasks, as their ranks compare
them on the same tasks). Each group's seed is the sha256 of ``RANK_SEED_KEY`` and the group's name, so a run
added in another domain changes no other group's numbers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from tau2.metrics.agent_metrics import is_successful

from analysis._tables import loophole_mask, task_groups
from loophole_base import natural_key

RANK_SEED_KEY = "tau-loophole-harness/rank-sensitivity/v1"
RANK_REPS = 2_000
ORDER_HOLDS = 0.95  # an order that holds in fewer resamples than this is drawn and printed as uncertain

# a partial group's name ("partial (4 tasks)") may be shared by runs of other tasks: ``task_set`` tells them apart
GROUP = ["domain", "task_version", "task_group", "rank_group", "task_set"]
SCORINGS = ("strict", "single", "multi")  # ranked, in that order; loophole-free is ranked under the single gold
OUTCOMES = [*GROUP, "run", "name", "source_file", "source_sha256", "task_id", "loophole", *SCORINGS]


@dataclass
class RankSensitivity:
    """``ranks``: one row per ranked run; ``agreement``: one row per rank group (Kendall's τ, the seed)."""

    ranks: pd.DataFrame
    agreement: pd.DataFrame


def group_seed(key: str, group: tuple[str, ...]) -> int:
    """The seed of one rank group: the first 8 bytes of sha256 of ``key`` and the group's name."""
    return int.from_bytes(hashlib.sha256("|".join((key, *map(str, group))).encode("utf-8")).digest()[:8], "big")


def resample_tasks(n_tasks: int, reps: int, rng: np.random.Generator) -> np.ndarray:
    """``reps`` × ``n_tasks`` multiplicities: how often each task is drawn when ``n_tasks`` are drawn with
    replacement (a task drawn twice brings all its trials twice)."""
    return rng.multinomial(n_tasks, np.full(n_tasks, 1.0 / n_tasks), size=reps)


def resampled_rates(successes: np.ndarray, counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Success rates (reps × runs) over the trials of the drawn tasks: ``successes`` and ``counts`` are
    tasks × runs, ``weights`` reps × tasks. A run with no trial among the drawn tasks is NaN there."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (weights @ successes) / (weights @ counts)


def order_holds(upper: np.ndarray, lower: np.ndarray) -> float:
    """The share of resamples in which ``upper`` stays above ``lower``, a tie counting half (two runs with
    the same outcomes hold their order in 50%); resamples where either is undefined are left out."""
    keep = ~(np.isnan(upper) | np.isnan(lower))
    if not keep.any():
        return float("nan")
    u, lo = upper[keep], lower[keep]
    return float(np.mean(u > lo) + 0.5 * np.mean(u == lo))


def kendall_tau_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's τ-b of each row of ``x`` against the same row of ``y`` (reps × runs; scipy's τ-b, with
    ties, row by row): NaN where a row is all ties."""
    i, j = np.triu_indices(x.shape[1], 1)
    dx, dy = np.sign(x[:, j] - x[:, i]), np.sign(y[:, j] - y[:, i])
    pairs = len(i)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (dx * dy).sum(axis=1) / np.sqrt((pairs - (dx == 0).sum(axis=1)) * (pairs - (dy == 0).sum(axis=1)))


def ranking_outcomes(trials: pd.DataFrame, board: pd.DataFrame) -> pd.DataFrame:
    """One row per scored trial of a ranked run (``board``: ``analysis.leaderboard_table``'s), with its
    group, its run, its task, whether the task has a loophole, and its success under each scoring (strict
    NaN where the board has no strict score for the run)."""
    keys = ["source_file", "source_sha256", "domain", "task_group"]
    ranked = board[board.ranked.astype(bool)][[*keys, "task_version", "rank_group", "name", "strict_pass1"]]
    every = trials.assign(task_group=task_groups(trials))
    # the tasks each run covers, scored or not: the set the board ranks it among (``leaderboard_table``)
    sets = every.groupby(keys, dropna=False).task_id.agg(lambda ids: task_set_key(ids.unique())).rename("task_set")
    df = every[every.reward.notna()].drop(columns=["task_version"]).merge(ranked, on=keys, how="inner")
    df = df.merge(sets.reset_index(), on=keys, how="left")
    if df.empty:
        return pd.DataFrame(columns=OUTCOMES)
    strict = df["strict_reward"] if "strict_reward" in df else pd.Series(np.nan, index=df.index)
    return df.assign(
        run=df.source_file + "@" + df.source_sha256,
        loophole=loophole_mask(df).to_numpy(),
        single=_success(df.reward), multi=_success(df.multi_gold_reward),
        strict=np.where(df.strict_pass1.notna(), (strict == 1.0).astype(float), np.nan),
    )[OUTCOMES]


def task_set_key(task_ids: Iterable[object]) -> str:
    """A set of task ids as a short key: the first 12 hex digits of sha256 of the ids, sorted, comma-joined."""
    ids = sorted({str(t) for t in task_ids}, key=natural_key)
    return hashlib.sha256(",".join(ids).encode("utf-8")).hexdigest()[:12]


def _success(values: pd.Series) -> np.ndarray:
    return np.array([float(bool(is_successful(v))) for v in values], dtype=float)


def rank_sensitivity(trials: pd.DataFrame, board: pd.DataFrame, reps: int = RANK_REPS,
                     key: str = RANK_SEED_KEY) -> RankSensitivity:
    """The ranks and their uncertainty for a leaderboard's ranked runs (``rank_table`` of
    ``ranking_outcomes``)."""
    return rank_table(ranking_outcomes(trials, board), reps, key)


def rank_table(outcomes: pd.DataFrame, reps: int = RANK_REPS, key: str = RANK_SEED_KEY) -> RankSensitivity:
    """From one row per scored trial (``OUTCOMES``' columns): per rank group, each run's rates and ranks,
    the share of ``reps`` task resamples in which it stays above the next run (single and multi orders),
    and Kendall's τ between the single and multi orders (scipy's τ-b) with its 95% percentile interval."""
    ranks, agreement = [], []
    for group, g in outcomes.groupby(GROUP, sort=True, dropna=False):
        seed = group_seed(key, group)
        r, a = _group(g, reps, np.random.default_rng(seed))
        ranks.append(r)
        agreement.append({**dict(zip(GROUP, group, strict=True)), **a, "resamples": reps, "seed_key": key,
                          "seed": str(seed)})
    if not ranks:
        return RankSensitivity(pd.DataFrame(columns=RANK_COLUMNS), pd.DataFrame(columns=AGREEMENT_COLUMNS))
    return RankSensitivity(pd.concat(ranks, ignore_index=True)[RANK_COLUMNS],
                           pd.DataFrame(agreement)[AGREEMENT_COLUMNS])


RANK_COLUMNS = [
    *GROUP, "name", "source_file", "source_sha256", "tasks", "trials",
    "strict_pass1", "single_pass1", "multi_pass1", "loophole_free_single", "loophole_free_multi", "loophole_free_tasks",
    "rank_strict", "rank_single", "rank_multi", "rank_loophole_free", "single_position", "multi_position",
    "single_next", "single_order_holds", "multi_next", "multi_order_holds",
]
AGREEMENT_COLUMNS = [*GROUP, "runs", "tasks", "kendall_tau", "tau_ci_low", "tau_ci_high", "tau_resamples_defined",
                     "uncertain_single", "uncertain_multi", "resamples", "seed_key", "seed"]


def _group(g: pd.DataFrame, reps: int, rng: np.random.Generator) -> tuple[pd.DataFrame, dict]:
    from scipy.stats import kendalltau

    runs = g.groupby("run", sort=True).agg(
        name=("name", "first"), source_file=("source_file", "first"), source_sha256=("source_sha256", "first"),
        tasks=("task_id", "nunique"), trials=("task_id", "size"),
        strict_pass1=("strict", "mean"), single_pass1=("single", "mean"), multi_pass1=("multi", "mean"),
    )
    free = g[~g.loophole.astype(bool)].groupby("run")
    runs["loophole_free_single"] = free.single.mean()
    runs["loophole_free_multi"] = free.multi.mean()
    runs["loophole_free_tasks"] = free.task_id.nunique().reindex(runs.index).fillna(0).astype(int)
    for scoring, column in (("strict", "strict_pass1"), ("single", "single_pass1"), ("multi", "multi_pass1"),
                            ("loophole_free", "loophole_free_single")):
        runs[f"rank_{scoring}"] = runs[column].rank(ascending=False, method="min").astype("Int64")
    tasks = sorted(g.task_id.unique())
    weights = resample_tasks(len(tasks), reps, rng)
    cells = g.groupby(["task_id", "run"])
    counts = cells.size().unstack(fill_value=0).reindex(index=tasks, columns=runs.index, fill_value=0).to_numpy(float)
    rates = {}
    for scoring in ("single", "multi"):
        wins = cells[scoring].sum().unstack(fill_value=0)
        wins = wins.reindex(index=tasks, columns=runs.index, fill_value=0).to_numpy(float)
        rates[scoring] = resampled_rates(wins, counts, weights)
        # the order: the higher rate first, a tie by name (the order a reader sees); each run's share over the next
        order = sorted(range(len(runs)), key=lambda i: (-runs[f"{scoring}_pass1"].iloc[i], runs["name"].iloc[i]))
        runs[f"{scoring}_position"] = pd.Series(np.argsort(order) + 1, index=runs.index)
        nxt, holds = [None] * len(runs), [np.nan] * len(runs)
        for above, below in zip(order, order[1:], strict=False):
            nxt[above] = runs["name"].iloc[below]
            holds[above] = order_holds(rates[scoring][:, above], rates[scoring][:, below])
        runs[f"{scoring}_next"], runs[f"{scoring}_order_holds"] = nxt, holds
    runs = runs.reset_index(drop=True).assign(**{c: g[c].iloc[0] for c in GROUP})
    tau = low = high = np.nan
    defined = 0
    if len(runs) >= 2:
        tau = float(kendalltau(runs.single_pass1, runs.multi_pass1).statistic)
        taus = kendall_tau_rows(rates["single"], rates["multi"])
        taus = taus[~np.isnan(taus)]
        defined = len(taus)
        if defined:
            low, high = (float(v) for v in np.percentile(taus, [2.5, 97.5]))
    agreement = {
        "runs": len(runs), "tasks": len(tasks), "kendall_tau": tau, "tau_ci_low": low, "tau_ci_high": high,
        "tau_resamples_defined": defined,
        "uncertain_single": int((runs.single_order_holds < ORDER_HOLDS).sum()),
        "uncertain_multi": int((runs.multi_order_holds < ORDER_HOLDS).sum()),
    }
    return runs.sort_values(["multi_position"]), agreement


def group_title(row: Any) -> str:
    """A rank group as a reader names it: "airline tau2", with ", partial (4 tasks)" for a partial one."""
    domain, group, rank_group = row.domain, row.task_group, row.rank_group
    return f"{domain} {group}" + ("" if rank_group == "full" else f", {rank_group}")


def tau_text(a: Any) -> str:
    """Kendall's τ of one group with its interval, in words ("" where τ is undefined: one run, or ties)."""
    tau, low, high = a.kendall_tau, a.tau_ci_low, a.tau_ci_high
    if tau != tau:  # NaN
        return f"Kendall's τ (single against multi order): undefined ({a.runs} run(s) or tied scores)"
    interval = "" if low != low else f" [{low:.2f}, {high:.2f}]"
    return (f"Kendall's τ (single against multi order): {tau:.2f}{interval}, 95% percentile interval over "
            f"{a.resamples:,} resamples of the {a.tasks} tasks, seed sha256 of "
            f"'{a.seed_key}' and the group")


def holds_text(next_name: object, share: Any, name_next: bool = True) -> str:
    """One run's order over the next: "97.5% over B", "62.0% over C, uncertain" ("" for the last run);
    without ``name_next`` (a table in that order, where the next is the row below): "62.0%, uncertain"."""
    if share is None or share != share:
        return ""
    uncertain = ", uncertain" if float(share) < ORDER_HOLDS else ""
    return f"{100 * float(share):.1f}%" + (f" over {next_name}" if name_next else "") + uncertain


def ranks_markdown(sens: RankSensitivity, domain: str, task_group: str) -> list[str]:
    """The ranks and their uncertainty of one board section (domain, task group) as Markdown lines: a table per
    rank group of two or more runs, Kendall's τ under each (``ranks.csv`` has every group)."""
    cols = ["rank_multi", "rank_single", "rank_strict", "rank_loophole_free", "name", "multi_pass1", "single_pass1",
            "strict_pass1", "loophole_free_single", "loophole_free_multi", "multi order holds", "single order holds"]
    lines: list[str] = []
    here = sens.agreement[(sens.agreement.domain == domain) & (sens.agreement.task_group == task_group)
                          & (sens.agreement.runs >= 2)]  # one run alone: the board above says all there is
    for a in here.itertuples(index=False):
        g = sens.ranks[(sens.ranks[GROUP] == [getattr(a, c) for c in GROUP]).all(axis=1)]
        lines += ["", f"### Ranks and their uncertainty: {group_title(a)}", "",
                  "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in g.itertuples(index=False):
            cells = [holds_text(r.multi_next, r.multi_order_holds) if c == "multi order holds"
                     else holds_text(r.single_next, r.single_order_holds) if c == "single order holds"
                     else _cell(getattr(r, c)) for c in cols]
            lines.append("| " + " | ".join(cells) + " |")
        lines += ["", tau_text(a) + "."]
    return lines


def _cell(v: object) -> str:
    if v is None or v is pd.NA or (isinstance(v, float) and v != v):
        return "n/a"
    return f"{v:.3f}" if isinstance(v, float) else str(v)
