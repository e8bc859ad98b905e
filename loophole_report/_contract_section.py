"""The report's section "The reward contract, version by version": the four-point band of this run, and what
``audit golds`` finds on each version the run touches (broken golds, do-nothing passes, unchecked actions,
conflicts between versions), with the task reports the catalog decides."""

from __future__ import annotations

from analysis import AnalysisBundle, audit_golds, band4_by_agent
from loophole_report._sections import Block, heading, pct, table, text, undefined

_NAMES = {"tau2": "τ²", "tau3": "τ³", "verified": "Verified"}
_STATUS = {"confirmed": "confirmed", "defensible_alternative": "defensible alternative", "rejected": "rejected"}


def _ids(ids: list[str]) -> str:
    return ", ".join(ids) if ids else "none"


def reward_contract(bundle: AnalysisBundle) -> list[Block]:
    from envs import TASK_VERSIONS
    from gold_variants import load_catalog

    trials = bundle.trials
    blocks: list[Block] = [text(
        "strict ≤ single ≤ multi ≤ upper: strict credits a single-gold pass only where it was earned (every gold "
        "write made as the gold makes it; a gold without writes needs a decline or transfer on its clause) and "
        "never on a task whose gold write raises on replay (a broken gold). The do-nothing ceiling is the share "
        "of the run's tasks that a greeting and a goodbye pass under the single gold."
    )]
    band = band4_by_agent(trials)
    if band.empty:
        blocks.append(undefined("No scored trial: no band."))
    else:
        blocks.append(table(
            ["Agent", "Version", "Domain", "Trials", "Strict", "Single", "Multi", "Upper", "Trials on broken golds",
             "Do-nothing ceiling"],
            [[r.agent, _NAMES.get(r.task_version, r.task_version), r.domain, r.trials, pct(r.strict), pct(r.single),
              pct(r.multi), pct(r.upper), r.broken_gold_trials, pct(r.do_nothing_ceiling)]
             for r in band.itertuples(index=False)],
        ))
        if band.strict.isna().all():
            blocks.append(undefined("This run was written before strict_reward: the strict bound is unknown (n/a)."))
    pairs = sorted({(v, d) for v, d in zip(trials.task_version, trials.domain, strict=True) if v in TASK_VERSIONS})
    if not pairs:
        return [*blocks, undefined("The run holds no pinned task version: no contract audit.")]
    versions = [v for v in TASK_VERSIONS if any(p[0] == v for p in pairs)]
    domains = sorted({d for _, d in pairs})
    audit = audit_golds(domains, versions)
    g = audit.golds
    rows = []
    for (version, domain), x in g.groupby(["task_version", "domain"], sort=False):
        rows.append([
            _NAMES.get(version, version), domain, len(x),
            _ids(x.task_id[x.broken_gold].tolist()),
            f"{int(x.passes_doing_nothing.eq(True).sum())}: {_ids(x.task_id[x.passes_doing_nothing.eq(True)].tolist())}",
            _ids(x.task_id[x.do_nothing.eq('needs judge')].tolist()),
            int(x.unchecked_actions.map(len).sum()), int(x.gold_actions.sum()),
        ])
    blocks.append(heading("What each version's golds promise (harness audit golds)"))
    blocks.append(table(
        ["Version", "Domain", "Tasks", "Broken golds", "Do-nothing passes", "Needs a judge",
         "Gold actions the reward cannot see", "Gold actions"], rows,
    ))
    same = audit.conflicts[audit.conflicts.same_instructions]
    if len(same):
        blocks.append(heading("Golds that differ between versions on the same instructions"))
        blocks.append(table(
            ["Domain", "Task", "Versions"],
            [[d, t, ", ".join(f"{_NAMES.get(a, a)} ≠ {_NAMES.get(b, b)}" for a, b in zip(x.version_a, x.version_b, strict=True))]
             for (d, t), x in same.groupby(["domain", "task_id"], sort=False)],
        ))
    reports = [r for r in load_catalog().reports if r.domain in domains]
    if reports:
        blocks.append(heading("Task reports and version conflicts, as the catalog decides them"))
        blocks.append(table(
            ["Report", "Domain", "Tasks", "Claim", "Status", "Reason", "Gold variant"],
            [[r.tracker or r.id, r.domain, ", ".join(r.tasks), r.claim, _STATUS[r.status], r.reason,
              f"{r.id}.{r.alternative.reading}" if r.alternative else "none"] for r in reports],
        ))
    return blocks
