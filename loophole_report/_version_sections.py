"""The report's task-version sections: the reading each version's gold takes on each loophole task, and the
agents' ranks when the same trajectories are scored against each version's golds."""

from __future__ import annotations

from analysis import AnalysisBundle
from loophole_report._sections import Block, heading, pct, table, text, undefined

_NAMES = {"tau2": "τ²", "tau3": "τ³", "verified": "Verified"}

CLAIM = (
    "The paper's claim: per-task patches proliferate and can contradict one another, while the ambiguity stays "
    "in the policy. The three versions share one policy.md, word for word. Where their golds agree, the patches "
    "converge on one reading; where they disagree, each version's single gold marks as an error the reading "
    "another version's gold takes, although the policy admits both."
)


def gold_readings(bundle: AnalysisBundle) -> list[Block]:
    from envs import TASK_VERSIONS, TauDataError
    from gold_variants import readings_by_version

    blocks: list[Block] = [text(CLAIM)]
    for domain in sorted(bundle.trials.domain.dropna().unique()):
        try:  # every version's tasks: offline, a version whose data is missing is said, not fatal
            rows = readings_by_version(domain)
        except TauDataError as exc:
            first = str(exc).split(" ", 1)[0]  # "tau3 airline/tasks.json is not available: ..."
            missing = f"{_NAMES[first]} data" if first in _NAMES else "another version's task data"
            blocks.append(undefined(
                f"{domain}: {missing} not available here, so the versions' golds are not compared (set "
                "HARNESS_TAU_DATA to a folder that holds every version's task data to include them)."
            ))
            continue
        if not rows:
            blocks.append(undefined(f"{domain}: no task exercises a catalogued loophole, in any version."))
            continue
        split = [r["task_id"] for r in rows if not r["agree"]]
        blocks.append(heading(f"{domain}: the reading each version's gold takes"))
        blocks.append(table(
            ["Task", "Loophole", *(_NAMES.get(v, v) for v in TASK_VERSIONS), "Versions"],
            [[r["task_id"], r["loophole"], *(r[v] for v in TASK_VERSIONS),
              "agree" if r["agree"] else "contradict: " + " vs ".join(r["readings"])] for r in rows],
        ))
        agree = len(rows) - len(split)
        blocks.append(text(
            f"{domain}: the golds converge on {agree} of {len(rows)} loophole tasks and contradict one another on "
            f"{len(split)}" + (f" (tasks {', '.join(split)})" if split else "") + "."
        ))
    return blocks


def ranks(bundle: AnalysisBundle) -> list[Block]:
    r = bundle.tables.get("ranks_across_versions")
    if r is None or r.empty:
        return [undefined("No trajectory was scored against another version's golds (rescore --against-version): "
                          "no ranking across versions.")]
    blocks: list[Block] = [text(
        "The same trajectories scored against each version's golds. A loophole-robust ranking barely moves "
        "across versions: compare the rank spread under the single gold with the spread under multi-gold."
    )]
    blocks.append(table(
        ["Domain", "Agent", "Golds of", "Trajectories", "Single-gold pass^1", "Multi-gold pass^1", "Rank (single)",
         "Rank (multi)", "Rank spread (single)", "Rank spread (multi)"],
        [[x.domain, x.agent_name, _NAMES.get(x.golds, x.golds), x.trajectories, pct(x.single_pass1),
          pct(x.multi_pass1), x.rank_single, x.rank_multi, x.rank_spread_single, x.rank_spread_multi]
         for x in r.itertuples(index=False)],
    ))
    spread_single = int(r.rank_spread_single.max())
    spread_multi = int(r.rank_spread_multi.max())
    blocks.append(text(
        f"Largest rank change across versions: {spread_single} under the single gold, {spread_multi} under "
        "multi-gold."
    ))
    moves = bundle.tables.get("cross_version")
    if moves is not None and not moves.empty:
        m = moves[(moves.rise > 0) | (moves.fall > 0)]
        blocks.append(heading("Verdicts that move between versions"))
        blocks.append(table(
            ["Scoring", "Domain", "Task", "Recorded on", "Scored against", "Trajectories", "Rise (0 → 1)",
             "Fall (1 → 0)"],
            [[x.scoring, x.domain, x.task_id, _NAMES.get(x.version_a, x.version_a), _NAMES.get(x.version_b, x.version_b),
              x.trajectories, x.rise, x.fall] for x in m.itertuples(index=False)],
        ))
    return blocks
