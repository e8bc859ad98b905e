"""One run's trajectories scored against several task versions' golds (``rescore --against-version``): the
verdicts that move and the agents' ranks under each version's single gold and under multi-gold."""

from __future__ import annotations

import pandas as pd

from analysis._stats import _success, cross_version_moves
from loophole_store import AGAINST_VERSION_FLAG


def against_mask(trials: pd.DataFrame) -> pd.Series:
    """Rows scored against another task version's golds than the run was recorded on."""
    if "flags" not in trials:
        return pd.Series(False, index=trials.index)
    return trials["flags"].map(lambda f: f is not None and AGAINST_VERSION_FLAG in list(f)).astype(bool)


def native(trials: pd.DataFrame) -> pd.DataFrame:
    """The rows each run was recorded on (what every per-run table reads)."""
    return trials[~against_mask(trials)]


def moves_across_versions(trials: pd.DataFrame) -> pd.DataFrame:
    """Per domain and task, the verdicts that stay, rise or fall from the recorded version to each other version, under
    the single gold and under multi-gold."""
    mask = against_mask(trials)
    if not mask.any():
        return pd.DataFrame(columns=["scoring", "domain", "task_id", "version_a", "version_b", "trajectories", "rise",
                                     "fall", "same"])
    recorded, other = trials[~mask], trials[mask]
    parts = []
    for _version, rows in other.groupby("task_version"):
        for scoring, column in (("single", "reward"), ("multi", "multi_gold_reward")):
            moved = cross_version_moves(recorded, rows, column)
            parts.append(moved.assign(scoring=scoring))
    out = pd.concat(parts, ignore_index=True)
    return out[["scoring", *[c for c in out.columns if c != "scoring"]]]


def ranks_across_versions(trials: pd.DataFrame) -> pd.DataFrame:
    """Per domain, golds' version and agent: pass^1 under the single gold and under multi-gold on the
    trajectories scored under every version, and the agent's rank under each (1 = best). A loophole-robust
    ranking barely moves across versions; ``rank_spread_*`` is how far an agent's rank moves."""
    mask = against_mask(trials)
    if not mask.any():
        return pd.DataFrame(columns=["domain", "agent_name", "golds", "trajectories", "single_pass1", "multi_pass1",
                                     "rank_single", "rank_multi", "rank_spread_single", "rank_spread_multi"])
    df = trials.assign(golds=trials.task_version)
    key = ["source_sha256", "simulation_id"]
    versions = df.groupby(key).golds.nunique()
    everywhere = versions[versions == df.golds.nunique()].index
    df = df.set_index(key).loc[everywhere].reset_index()
    df = df[df.reward.notna()]
    rows = df.groupby(["domain", "golds", "agent_name"]).agg(
        trajectories=("reward", "size"),
        single_pass1=("reward", lambda s: _success(s).mean()),
        multi_pass1=("multi_gold_reward", lambda s: _success(s).mean()),
    ).reset_index()
    grouped = rows.groupby(["domain", "golds"])
    rows["rank_single"] = grouped.single_pass1.rank(ascending=False, method="min").astype(int)
    rows["rank_multi"] = grouped.multi_pass1.rank(ascending=False, method="min").astype(int)
    per_agent = rows.groupby(["domain", "agent_name"])
    rows["rank_spread_single"] = per_agent.rank_single.transform(lambda s: int(s.max() - s.min()))
    rows["rank_spread_multi"] = per_agent.rank_multi.transform(lambda s: int(s.max() - s.min()))
    return rows[["domain", "agent_name", "golds", "trajectories", "single_pass1", "multi_pass1", "rank_single",
                 "rank_multi", "rank_spread_single", "rank_spread_multi"]].sort_values(["domain", "agent_name", "golds"])
