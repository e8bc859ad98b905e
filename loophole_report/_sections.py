"""The report's sections as plain data: each a list of blocks (``report.html`` renders them). A block is
``{"kind": "figure" | "table" | "text" | "undefined" | "heading" | "flips" | "key_values", ...}``; a table
cell is a string, a link (``links.link``) or a list of those."""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis import AnalysisBundle
from loophole_base import natural_key
from loophole_report import _figures as figures
from loophole_report._band_figure import band_figure
from loophole_report._figures import CI_LABEL
from loophole_report._links import Links
from loophole_report._trials import explanation, reading_key

Block = dict[str, Any]


def pct(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    return f"{100 * float(value):.1f}%"


def _pts(value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "n/a"
    return f"{100 * float(value):+.1f}"


def plain(value: object) -> str:
    return "" if value is None else str(value)


def table(headers: list[str], rows: list[list[Any]]) -> Block:
    return {"kind": "table", "headers": headers, "rows": rows}


def text(line: str) -> Block:
    return {"kind": "text", "text": line}


def undefined(line: str) -> Block:
    """A statistic that does not exist for this run: one line saying why, not an empty table."""
    return {"kind": "undefined", "text": line}


def heading(line: str) -> Block:
    return {"kind": "heading", "text": line}


def band_text(g: pd.DataFrame) -> str:
    """The trials' band, strict ≤ single ≤ multi ≤ upper, as success rates in percent (strict "n/a" in a run
    written before strict was scored)."""
    strict = pct((g["strict"] == "pass").mean()) if "strict" in g and (g["strict"] != "unscored").any() else "n/a"
    return " ≤ ".join([strict] + [pct((g[c] == "pass").mean()) for c in ("single", "multi", "upper")])


def success(bundle: AnalysisBundle, frame: pd.DataFrame, links: Links) -> list[Block]:
    scored = frame[frame.reward.notna()]
    if scored.empty:
        return [undefined("No trial has a reward (see the notes above): success is undefined.")]
    rows = []
    for agent, g in scored.groupby("agent_name", sort=True):
        rows.append(
            [
                plain(agent),
                links.count(len(g), agent=agent),
                [
                    links.count(int((g.strict == "pass").sum()), agent=agent, strict="pass"),
                    f" ({pct((g.strict == 'pass').mean())})",
                ],
                [
                    links.count(int((g.single == "pass").sum()), agent=agent, single="pass"),
                    f" ({pct((g.single == 'pass').mean())})",
                ],
                [
                    links.count(int((g.multi == "pass").sum()), agent=agent, multi="pass"),
                    f" ({pct((g.multi == 'pass').mean())})",
                ],
                [
                    links.count(int((g.upper == "pass").sum()), agent=agent, upper="pass"),
                    f" ({pct((g.upper == 'pass').mean())})",
                ],
                links.count(int(g.uncertain.sum()), agent=agent, multi="fail", upper="pass"),
                band_text(g),
                links.count(int(g.flip.sum()), agent=agent, flips="1"),
                links.count(
                    int(((frame.agent_name == agent) & frame.reward.isna()).sum()),
                    agent=agent,
                    single="unscored",
                ),
            ]
        )
    blocks = [
        figures.success_figure(scored),
        band_figure(bundle.trials),
        table(
            [
                "Agent",
                "Trials",
                "Strict successes",
                "Single-gold successes",
                "Multi-gold successes",
                "Counting uncertain credits",
                "Passed only by an uncertain credit",
                "Band: strict ≤ single ≤ multi ≤ upper",
                "Flips",
                "Unscored",
            ],
            rows,
        ),
    ]
    pk = bundle.tables["pass_k"]
    if pk.empty or pk.k.max() < 2:
        blocks.append(
            undefined("pass^k for k ≥ 2 is undefined: each task has one trial per agent.")
        )
        blocks.append(text(_pass_k_convention(bundle)))
    else:
        pk = pk[pk.k >= 2]
        blocks.append(heading(f"pass^k (convention {bundle.pass_k_convention})"))
        blocks.append(text(_pass_k_convention(bundle)))
        blocks.append(
            table(
                ["Agent", "Domain", "Task version", "k", "Tasks", "Single gold", "Multi-gold"]
                + ["Counting uncertain credits", "Infrastructure errors"],
                [
                    [r.agent, r.domain, r.task_version, r.k, r.tasks]
                    + [pct(r.single_gold), pct(r.multi_gold), pct(r.multi_gold_upper), r.infra_errors]
                    for r in pk.itertuples(index=False)
                ],
            )
        )
    return blocks


def _pass_k_convention(bundle: AnalysisBundle) -> str:
    """The pass^k convention in one sentence, with what it did to simulations ended by infrastructure errors."""
    from analysis import PASS_K_CONVENTIONS

    infra = len(bundle.tables.get("infra_errors", ()))
    did = "left out" if bundle.pass_k_convention == "tau2" else "counted as failures"
    errors = f"; {infra} simulations ended by infrastructure errors, {did} (listed in the notes)" if infra else ""
    return f"Convention {bundle.pass_k_convention}: {PASS_K_CONVENTIONS[bundle.pass_k_convention]}{errors}."


def loophole(bundle: AnalysisBundle, links: Links) -> list[Block]:
    single, multi = bundle.tables["loophole_gap_single"], bundle.tables["loophole_gap_multi"]
    if single.empty or (single.loophole_trials == 0).all():
        return [undefined("No trial is on a loophole task: the gap is undefined.")]
    rows = []
    for scoring, frame in (("single gold", single), ("multi-gold", multi)):
        for r in frame.itertuples(index=False):
            ci = (
                "n/a (too few trials)"
                if r.ci_low != r.ci_low
                else f"{_pts(r.ci_low)} to {_pts(r.ci_high)}"
            )
            rows.append(
                [
                    r.agent,
                    scoring,
                    links.count(r.loophole_trials, agent=r.agent, loophole="1"),
                    pct(r.loophole),
                    r.non_loophole_trials,
                    pct(r.non_loophole),
                    _pts(r.gap),
                    ci,
                ]
            )
    headers = ["Agent", "Scoring", "Loophole trials", "Success on loophole tasks", "Other trials"]
    headers += ["Success on other tasks", "Gap (points)", f"Gap, {CI_LABEL}"]
    return [
        text(
            "The gap is the success rate on the other tasks minus that on loophole tasks, in points."
        ),
        table(headers, rows),
    ]


def variance(bundle: AnalysisBundle) -> list[Block]:
    single, multi = bundle.tables["variance_single"], bundle.tables["variance_multi"]
    if single.empty or single.mean_variance.isna().all():
        return [undefined("Within-task variance is undefined: each agent ran each task once.")]
    merged = single.merge(multi, on="group", suffixes=("_single", "_multi"))

    def three(v: float) -> str:
        return f"{v:.3f}" if v == v else "n/a"

    rows = [
        [
            "loophole tasks" if r.group == "loophole" else "other tasks",
            r.cells_single,
            three(r.mean_variance_single),
            three(r.mean_variance_multi),
        ]
        for r in merged.itertuples(index=False)
    ]
    headers = ["Tasks", "Agent × task cells with 2+ trials"]
    headers += ["Mean variance, single gold", "Mean variance, multi-gold"]
    return [figures.variance_figure(single, multi, bundle.trials.agent_name.nunique()), table(headers, rows)]


def counterfactual(bundle: AnalysisBundle) -> list[Block]:
    cf = bundle.tables["counterfactual"]
    if cf.empty:
        return [undefined("No scored trial: nothing to rank.")]
    if "domain" not in cf:  # a table written before rankings were per domain
        cf = cf.assign(domain="")
    if cf.groupby("domain").size().max() < 2:
        return [
            table(
                ["Domain", "Agent", "Success", "Success without loophole tasks"],
                [[r.domain, r.agent, pct(r.overall), pct(r.without_loophole)] for r in cf.itertuples(index=False)],
            ),
            text("One agent per domain: there is no lead over another agent to compare."),
        ]
    rows = [
        [r.domain, r.agent, pct(r.overall), pct(r.without_loophole)]
        + [_pts(r.lead_over_next), _pts(r.lead_over_next_without_loophole)]
        for r in cf.itertuples(index=False)
    ]
    headers = ["Domain", "Agent", "Success", "Success without loophole tasks", "Lead over next (points)"]
    headers += ["Lead without loophole tasks (points)"]
    return [
        text(
            "Single-gold success ranked within each domain (agents are never ranked across domains), and each "
            "agent's lead over the next in its domain, with and without the loophole tasks."
        ),
        table(headers, rows),
    ]


def split(bundle: AnalysisBundle, links: Links) -> list[Block]:
    lt = bundle.tables["loophole_tasks"]
    if lt.empty:
        return [undefined("No trial is on a loophole task.")]
    agents = sorted(lt.agent.unique())
    cells = {(r.domain, r.task_version, r.task_id, r.agent): r for r in lt.itertuples(index=False)}
    keys = sorted({(d, v, t) for d, v, t, _ in cells}, key=lambda k: (k[0], k[1], natural_key(k[2])))
    rows = []
    for d, v, t in keys:
        row: list[Any] = [d, v, t]
        for a in agents:
            c = cells.get((d, v, t, a))
            row.append(
                "—"
                if c is None
                else [
                    links.count(c.single, agent=a, domain=d, version=v, task=t),
                    " → ",
                    links.count(c.multi, agent=a, domain=d, version=v, task=t),
                ]
                + (
                    []
                    if c.upper == c.multi
                    else [" (", links.count(c.upper, agent=a, domain=d, version=v, task=t),
                          " counting uncertain credits)"]
                )
            )
        rows.append(row)
    return [
        figures.heatmap_figure(lt),
        text(
            "Each cell: successes / trials under the single gold → under multi-gold (and, where it "
            "differs, counting uncertain credits)."
        ),
        table(["Domain", "Task version", "Task", *agents], rows),
    ]


def readings(bundle: AnalysisBundle, links: Links) -> list[Block]:
    frame = bundle.tables["readings"]
    if frame.empty:
        return [undefined("No trial is on a loophole task.")]
    frame = frame.assign(_o=frame.task_id.map(natural_key)).sort_values(
        ["agent", "domain", "task_version", "_o", "reading"]
    )
    rows = [
        [r.agent, r.domain, r.task_version, r.task_id, r.reading.replace(",", ", ")]
        + [
            links.count(
                r.trials,
                agent=r.agent,
                domain=r.domain,
                version=r.task_version,
                task=r.task_id,
                reading=r.reading,
            )
        ]
        for r in frame.itertuples(index=False)
    ]
    return [
        figures.readings_figure(frame),
        table(["Agent", "Domain", "Task version", "Task", "Golds matched", "Trials"], rows),
    ]


def flips(frame: pd.DataFrame, scores: pd.DataFrame, links: Links) -> list[Block]:
    """Flips grouped by task and by the readings that credit them: one line per group (its count links to
    its trials in the viewer, the agents with theirs), one quote of evidence, not one line per trial."""
    flipped = frame[frame.flip]
    if flipped.empty:
        return [
            undefined("No flip in this run: no trial fails the single gold and passes a reading.")
        ]
    crediting = scores[(scores.gold_id != "gold") & (scores.reward >= 1 - 1e-6)]
    by_traj = {k: g for k, g in crediting.groupby("trajectory_id")}
    groups: dict[tuple, dict[str, Any]] = {}
    for r in flipped.assign(_o=flipped.task_id.map(natural_key)).sort_values(
        ["domain", "task_version", "_o", "agent_name", "trial"]
    ).itertuples(index=False):
        golds = by_traj.get(r.trajectory_id, crediting.iloc[:0])
        matched = list(r.matched_gold_ids) if r.matched_gold_ids is not None else []
        reading = reading_key(matched)  # the viewer's "golds matched" filter: a count opens exactly its trials
        group = groups.setdefault((r.domain, r.task_version, r.task_id, reading),
                                  {"trials": 0, "agents": {}, "excerpts": []})
        group["trials"] += 1
        group["agents"][r.agent_name] = group["agents"].get(r.agent_name, 0) + 1
        if not group["excerpts"]:
            for g in golds.itertuples(index=False):
                exp = explanation(g.explanation_json)
                ev = next((e for e in (exp.evidence if exp is not None else []) if e.excerpt), None)
                if ev:
                    group["excerpts"].append({"excerpt": ev.excerpt, "gold_id": g.gold_id, "what": ev.what})
                    break
    items = []
    for (domain, version, task, reading), group in groups.items():
        where = {"domain": domain, "version": version, "task": task, "reading": reading, "flips": "1"}
        items.append({
            "link": links.count(group["trials"], **where),
            "title": f"{domain} {version} task {task}",
            "credited": reading.replace(",", ", "),
            "agents": [[links.count(n, agent=a, **where), f" {a}"] for a, n in sorted(group["agents"].items())],
            "excerpts": group["excerpts"],
        })
    return [{"kind": "flips", "items": items, "trials": len(flipped)}]


def versions(bundle: AnalysisBundle) -> list[Block]:
    by_version, overlap = bundle.tables["versions"], bundle.tables["overlap"]
    blocks = []
    if by_version.empty:
        blocks.append(
            undefined(
                "No agent of this run ran the same task under two task versions, so its success is not "
                "compared across versions here (the golds of the versions are compared below)."
            )
        )
    else:
        v = by_version.assign(_o=by_version.task_id.map(natural_key)).sort_values(
            ["version_a", "version_b", "agent_name", "domain", "_o"]
        )
        names = {"tau2": "τ²", "tau3": "τ³", "verified": "Verified"}
        blocks.append(text("Single-gold success per task under each version's golds, for every pair of versions "
                           "an agent ran the task under."))
        blocks.append(
            table(
                ["Agent", "Domain", "Task", "From", "To", "Success (from)", "Success (to)", "Change (points)"],
                [
                    [r.agent_name, r.domain, r.task_id, names.get(r.version_a, r.version_a),
                     names.get(r.version_b, r.version_b), pct(r.success_a), pct(r.success_b), _pts(r.delta)]
                    for r in v.itertuples(index=False)
                ],
            )
        )
    if not overlap.empty:
        blocks.append(heading("Do τ³'s changes fall on the loophole tasks by chance?"))
        headers = ["Domain", "Tasks", "Changed by τ³", "Loophole tasks", "Loophole tasks changed"]
        headers += ["p-value (hypergeometric, P(X ≥ k))"]
        blocks.append(
            table(
                headers,
                [
                    [r.domain, r.tasks, r.changed_by_tau3, r.loophole_tasks, r.loophole_changed]
                    + [f"{r.p_value:.4f}"]
                    for r in overlap.itertuples(index=False)
                ],
            )
        )
    return blocks
