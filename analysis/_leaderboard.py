"""The loophole-adjusted leaderboard: one row per submitted run, ranked single-gold and multi-gold, with the
upper bound (multi-gold counting uncertain credits) beside them: single ≤ multi ≤ upper.

Rows come from the ``trials`` table of a rescored set of results files. A run is one source file (its
sha256), named by the manifest when one is given. A run whose recorded rewards disagree with tau2's
evaluator is flagged, shown with both figures, and left out of the ranking unless flagged runs are
included. A partial run (fewer tasks than the domain has) is ranked only among runs covering the same tasks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tau2.metrics.agent_metrics import is_successful, pass_hat_k

from analysis._contract import band4
from analysis._ranks import RankSensitivity, ranks_markdown
from analysis._stats import bootstrap_ci, task_clusters
from analysis._tables import band, loophole_mask, replay_flag_counts, task_groups, with_upper
from envs import CUSTOM
from loophole_base import natural_key


class ManifestEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    organisation: str | None = None
    notes: str | None = None


class Manifest(BaseModel):
    """``runs:`` maps a results file (its path, file name or sha256) to a display name and notes."""

    model_config = ConfigDict(extra="forbid")
    runs: dict[str, ManifestEntry] = Field(default_factory=dict)

    def lookup(self, source_file: str, sha256: str) -> ManifestEntry | None:
        for key in (sha256, source_file, Path(source_file).name):
            if key in self.runs:
                return self.runs[key]
        return None


def load_manifest(path: Path) -> Manifest:
    from loophole_base import HarnessInputError

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise HarnessInputError(f"{path}: cannot read manifest ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise HarnessInputError(f"{path}: manifest is not UTF-8 text (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        raise HarnessInputError(f"{path}: {_yaml_problem(exc)}") from None
    try:
        return Manifest.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(map(str, err["loc"]))
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        raise HarnessInputError(f"{path}: field '{field}': {msg}") from None


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML parser's multi-line message as one line: where, and the problem."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return f"{where}invalid YAML ({problem})"


def _success(s: pd.Series) -> np.ndarray:
    return np.array([bool(is_successful(v)) for v in s], dtype=float)


def _gain_ci(
    single: np.ndarray, multi: np.ndarray, clusters: np.ndarray, reps: int, seed: int
) -> tuple[float, float]:
    """The multi-gold gain's interval: the paired difference per trajectory, bootstrap clustered by task."""
    if len(single) < 10:
        return (np.nan, np.nan)
    return bootstrap_ci(multi - single, clusters, reps, seed)


def leaderboard_trials(run_dir: Path) -> pd.DataFrame:
    """The trials the leaderboard ranks, read without their messages: the largest column of a run, which
    ``leaderboard_table`` never reads (a 17,000-trajectory run holds about 800 MB of it)."""
    import loophole_store as store

    return store.read_table(run_dir, "trials", [c for c in store.TRIALS_SCHEMA.names if c != "messages_json"])


def leaderboard_table(trials: pd.DataFrame, task_counts: dict[tuple[str, str], int], manifest: Manifest | None = None,
                include_flagged: bool = False, reps: int = 10_000, seed: int = 42) -> pd.DataFrame:
    """One row per (run, domain, task version); ``task_counts`` is the number of tasks per (domain, version)."""
    df = with_upper(trials).assign(loophole=loophole_mask(trials), task_group=task_groups(trials))
    ceilings = _do_nothing_passes(df)  # the reward contract (#35): tasks a do-nothing trajectory passes
    strict_known = "strict_reward" in df and bool(df["strict_reward"].notna().any())
    rows = []
    keys = ["source_file", "source_sha256", "domain", "task_group"]
    for (source, sha, domain, group), g in df.groupby(keys, dropna=False):
        version = g.task_version.iloc[0]
        entry = manifest.lookup(source, sha) if manifest else None
        judges = sorted({j for j in g.get("judge", pd.Series(dtype=str)).dropna() if j != "none"})
        scored = g[g.reward.notna()]
        single, multi = _success(scored.reward), _success(scored.multi_gold_reward)
        upper = _success(scored.multi_gold_upper)
        recorded = g[g.recorded_reward.notna() & g.reward.notna()]
        disagreements = int((abs(recorded.recorded_reward - recorded.reward) > 1e-9).sum())
        per_task = scored.groupby("task_id")
        trials_per_task = int(per_task.size().min()) if len(scored) else 0
        lo, non = scored[scored.loophole], scored[~scored.loophole]
        failures = single == 0
        row = {
            "domain": domain, "task_version": version, "task_group": group,
            "tasks_sha256": g.tasks_sha256.iloc[0] if "tasks_sha256" in g and version == CUSTOM else None,
            "judge": ", ".join(judges) or "none",
            "name": entry.name if entry else str(g.agent_name.iloc[0]),
            "organisation": entry.organisation if entry else None,
            "notes": entry.notes if entry else None,
            "agent_model": g.agent_model.iloc[0], "user_model": g.user_model.iloc[0],
            "source_file": source, "source_sha256": sha,
            "trajectories": len(g), "scored": len(scored), "unscored": unscored_causes(g),
            "replay_flags": replay_flag_counts(g),
            "tasks": g.task_id.nunique(),
            "trials": trials_per_task,
            "partial": g.task_id.nunique() < task_counts.get((domain, group), task_counts.get((domain, version), 0)),
            "recorded_pass1": recorded.recorded_reward.mean() if len(recorded) else np.nan,
            "single_pass1": single.mean() if len(single) else np.nan,
            "multi_pass1": multi.mean() if len(multi) else np.nan,
            "upper_pass1": upper.mean() if len(upper) else np.nan,
            # strict: earned passes over the same scored trials (a broken gold's row is not one); n/a: unknown
            "strict_pass1": float((scored.strict_reward == 1.0).mean()) if strict_known and len(scored) else np.nan,
            "do_nothing_ceiling": (
                float(np.mean([(version, domain, t) in ceilings for t in g.task_id.unique()]))
                if version != CUSTOM else np.nan
            ),
            "uncertain": int((upper > multi).sum()),
            "loophole_single": _success(lo.reward).mean() if len(lo) else np.nan,
            "loophole_multi": _success(lo.multi_gold_reward).mean() if len(lo) else np.nan,
            "non_loophole_single": _success(non.reward).mean() if len(non) else np.nan,
            "non_loophole_multi": _success(non.multi_gold_reward).mean() if len(non) else np.nan,
            "gain_points": 100 * (multi.mean() - single.mean()) if len(single) else np.nan,
            "disagreements": disagreements,
            "flag_cause": flag_cause(g, disagreements),
            "explained_failures": float(((multi == 1) & failures).sum() / failures.sum()) if failures.sum() else np.nan,
        }
        lo_ci, hi_ci = _gain_ci(single, multi, task_clusters(scored), reps, seed)
        row["gain_ci_low"], row["gain_ci_high"] = 100 * lo_ci, 100 * hi_ci
        for k in range(2, trials_per_task + 1):
            for name, col in (("single", "reward"), ("multi", "multi_gold_reward"), ("upper", "multi_gold_upper")):
                row[f"{name}_pass{k}"] = float(np.mean([
                    pass_hat_k(len(t), int(_success(t[col]).sum()), k) for _, t in per_task
                ]))
        row["flagged"] = bool(row["flag_cause"])  # recorded rewards that disagree, or task ids the file got wrong
        row["_task_set"] = tuple(sorted(g.task_id.unique(), key=natural_key))
        rows.append(row)
    board = pd.DataFrame(rows)
    if board.empty:
        return board
    # unscored runs (NL assertions without a judge) cannot be ranked either
    board["ranked"] = (include_flagged | ~board.flagged) & (board.scored > 0)
    board["rank_group"] = ""
    for col in ("rank_single", "rank_multi", "rank_change"):
        board[col] = pd.NA
    # custom runs are ranked only among runs of the same embedded tasks (their task_group holds the sha256)
    for (_domain, _group, task_set), g in board[board.ranked].groupby(["domain", "task_group", "_task_set"]):
        idx = g.index
        board.loc[idx, "rank_group"] = "full" if not g.partial.iloc[0] else f"partial ({len(task_set)} tasks)"
        board.loc[idx, "rank_single"] = g.single_pass1.rank(ascending=False, method="min").astype("Int64")
        board.loc[idx, "rank_multi"] = g.multi_pass1.rank(ascending=False, method="min").astype("Int64")
        board.loc[idx, "rank_change"] = board.loc[idx, "rank_single"] - board.loc[idx, "rank_multi"]
    board = board.drop(columns="_task_set")
    board["band"] = [band(s, m, u) for s, m, u in zip(board.single_pass1, board.multi_pass1,
                                                                board.upper_pass1, strict=True)]
    board["band4"] = [band4(t, s, m, u, "{:.1%}") for t, s, m, u in zip(
        board.strict_pass1, board.single_pass1, board.multi_pass1, board.upper_pass1, strict=True)]
    return board.sort_values(["domain", "task_group", "ranked", "rank_group", "rank_multi", "name"],
                             ascending=[True, True, False, True, True, True], na_position="last").reset_index(drop=True)


def _do_nothing_passes(df: pd.DataFrame) -> set[tuple[str, str, str]]:
    from analysis._contract import do_nothing_tasks

    pairs = [(v, d) for v, d in zip(df.task_version, df.domain, strict=True) if v != CUSTOM]
    audit = do_nothing_tasks(pairs)
    hit = audit[audit.passes_doing_nothing.eq(True)]
    return set(zip(hit.task_version, hit.domain, hit.task_id, strict=True))


def flag_cause(g: pd.DataFrame, disagreements: int) -> str:
    """What is wrong with a run's file, named: task ids its evidence contradicts (remapped to the task the
    evidence names, or refused: ``loophole_ingest._identity``), then recorded rewards that disagree."""
    causes = []
    remapped = int(g["file_task_id"].notna().sum()) if "file_task_id" in g else 0
    if remapped:
        causes.append(f"task ids remapped: {remapped}")
    reason = g["reason"].fillna("").astype(str) if "reason" in g else pd.Series("", index=g.index)
    refused = int(reason.str.startswith("task identity:").sum())
    if refused:
        causes.append(f"task ids refused (no task fits): {refused}")
    if disagreements:
        causes.append(f"recorded rewards disagree: {disagreements}")
    return "; ".join(causes)


_CAUSES = {"no_judge": "no judge", "replay_divergence": "replay divergence", "infra_error": "infra errors",
           "judge_error": "judge errors", "error": "errors"}


def unscored_causes(g: pd.DataFrame) -> str:
    """Why a run's trajectories have no reward, from the trials' ``status`` (most common first, with counts):
    "replay divergence (50)"; a divergence at a tool the domain lacks counts as "custom tools" (the run used
    its own tool set, which tau2 cannot replay). Empty when every trajectory is scored."""
    null = g[g.reward.isna()]
    if null.empty:
        return ""
    status = null["status"].fillna("error").astype(str) if "status" in null else pd.Series("error", index=null.index)
    reason = null["reason"].fillna("").astype(str) if "reason" in null else pd.Series("", index=null.index)
    flags = null["flags"] if "flags" in null else pd.Series([()] * len(null), index=null.index)
    custom = (status == "replay_divergence") & (
        reason.str.contains(r"Tool '[^']*' not found", regex=True)
        | flags.map(lambda f: any("tool" in str(x) for x in (f if f is not None else ())))
    )
    causes = status.map(lambda s: _CAUSES.get(s, s.replace("_", " "))).where(~custom, "custom tools")
    counts = sorted(causes.value_counts().items(), key=lambda c: (-c[1], c[0]))
    return ", ".join(f"{cause} ({n})" for cause, n in counts)


def to_markdown(board: pd.DataFrame, skipped: list[str] | tuple[str, ...] = (),
                ranks: RankSensitivity | None = None) -> str:
    """The board as Markdown tables per (domain, task group), each followed by its ranks with their uncertainty
    (``ranks``, ``analysis.rank_sensitivity``); ``skipped``: the unreadable files' one-line reasons, listed at
    the end."""
    lines = ["# Loophole-adjusted leaderboard", ""]
    cols = ["rank_multi", "rank_single", "rank_change", "name", "trajectories", "tasks", "trials", "single_pass1",
            "multi_pass1", "upper_pass1", "band", "strict_pass1", "band4", "do_nothing_ceiling", "uncertain",
            "gain_points", "loophole_single",
            "non_loophole_single", "explained_failures", "flagged", "partial", "judge", "unscored", "replay_flags",
            "source_sha256"]
    for (domain, group), g in board.groupby(["domain", "task_group"]):
        lines += [f"## {domain} {group}", "", "| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        for r in g.itertuples(index=False):
            cells = []
            for c in cols:
                v = getattr(r, c)
                if c == "source_sha256":
                    v = str(v)[:16]
                cells.append("n/a" if v is None or v is pd.NA or (isinstance(v, float) and v != v)
                             else f"{v:.3f}" if isinstance(v, float) else str(v))
            lines.append("| " + " | ".join(cells) + " |")
        flagged = g[g.flagged]
        for r in flagged.itertuples(index=False):
            cause = getattr(r, "flag_cause", "") or f"recorded rewards disagree: {r.disagreements}"
            lines.append(f"\nFlagged: {r.name} ({Path(r.source_file).name}): {cause} (recorded pass^1 "
                         f"{r.recorded_pass1:.3f}, ours {r.single_pass1:.3f}); {'ranked' if r.ranked else 'not ranked'}.")
        if ranks is not None:
            lines += ranks_markdown(ranks, str(domain), str(group))
        lines.append("")
    if skipped:
        lines += ["## Skipped files", "", *(f"- {line}" for line in skipped), ""]
    return "\n".join(lines)
