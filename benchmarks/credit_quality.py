"""How good multi-gold's credits and strict's verdicts are, measured against hand labels, per model family.

Rescores each labeled set (default ``../shared/dev-corpus``, the grok family, and its ``other-families``; each a
folder with ``runs/*.json``, ``labels.csv`` and optionally ``strict-labels.csv``) and compares each labeled
(simulation, variant) with the scorer's verdict. ``labels.csv`` has one row per judged flip or miss: file,
simulation_id, variant, expected = credit | no_credit | unclear. Per set it prints precision and recall per
variant, then per family (the agent model's, ``FAMILIES``) and overall: precision, recall, the uncertain share
of the credits and strict's agreement (``unclear`` rows left out; ``uncertain`` verdicts count as no credit, as
in ``multi_gold_reward``, and the upper bound counts them as credits); then every disagreement, credits and
strict, with the evidence the verdict used. Then the families over every set, the vocabulary entries that fire
on one conversation only (``vocabulary_reach.py``: a phrasing, not a rule), ``strict agreement: k/n`` and, last,
``precision=… recall=…`` over every set.

Labels are data: a new labeled trajectory is a new CSV row, never a code change. ``benchmarks/labels_extra.csv``
adds the project's own labeled cases (#36), scored with the first set: each row names a case file built at run
time from a shared run by an edit in ``benchmarks/label_cases.py`` and the verdict it deserves; they are listed
by class and are a family of their own, ``(edited cases)``.

A label whose ``variant`` is ``strict`` judges the band's lower end instead (#40): ``credit`` where the
single-gold pass was earned (``strict_reward`` 1), ``no_credit`` where it was not; a ``strict-labels.csv`` row
(expected_strict = pass | fail | unclear) is one. Every label class of the extra labels needs a positive (credit)
and a negative (no_credit) case: a class lacking either is named on an ``error:`` line and makes the exit status 1.

    python benchmarks/credit_quality.py [--corpus DIR]... [--extra CSV] [--no-phrasings]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

import pandas as pd
from quality_figures import EDITED, HEADER, Counts, Figures, family_of, figures

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "dev-corpus"
DEFAULT_EXTRA = ROOT / "benchmarks" / "labels_extra.csv"
LABELS = ("credit", "no_credit", "unclear")
STRICT = "strict"  # the variant column of a label that judges strict_reward
STRICT_LABELS = {"pass": "credit", "fail": "no_credit", "unclear": "unclear"}  # strict-labels.csv -> a label


def read_labels(path: Path) -> pd.DataFrame:
    labels = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = {"file", "simulation_id", "variant", "expected"} - set(labels.columns)
    if missing:
        raise SystemExit(f"error: {path}: missing column(s) {', '.join(sorted(missing))}")
    bad = labels[~labels["expected"].isin(LABELS)]
    if len(bad):
        raise SystemExit(
            f"error: {path}: row {bad.index[0] + 2}: field 'expected' is {bad['expected'].iloc[0]!r}, "
            f"not one of {', '.join(LABELS)}"
        )
    return labels


def verdicts(
    corpus: Path, labels: pd.DataFrame, extra: pd.DataFrame | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Rescore the corpus (and the extra labels' case files, built now); return the labels with the scorer's
    verdict and evidence beside them, the credits and uncertain credits no label covers, the strict
    labels with the strict verdict ("credited": strict_reward 1) and its reason, each with the family of the
    agent that ran it, and the trials (their messages too)."""
    from harness import rescore

    named = sorted({corpus / "runs" / f for f in labels["file"]})
    absent = [f for f in named if not f.is_file()]
    if absent:
        raise SystemExit(f"error: {corpus / 'labels.csv'}: field 'file': {absent[0].name} is not in {corpus / 'runs'}")
    files = sorted(set(named) | set((corpus / "runs").glob("*.json")))  # unlabeled credits are listed too
    edited: set[str] = set()  # the extra labels' case files: edited copies, no family's own run
    with tempfile.TemporaryDirectory() as tmp:
        if extra is not None and len(extra):
            sys.path.insert(0, str(ROOT / "benchmarks"))
            from label_cases import build

            cases = build(extra.to_dict("records"), corpus.parent, Path(tmp) / "cases")
            files += sorted(cases.values())
            edited = {Path(c).name for c in cases.values()}
            labels = pd.concat([labels, extra], ignore_index=True)
        run = rescore(files, Path(tmp) / "run").run
        trials, scores = run.trials, run.scores
    trials = trials.assign(file=trials["source_file"].map(lambda p: Path(p).name),
                           family=trials["agent_model"].map(family_of))
    trials["edited"] = trials["file"].isin(edited)
    trials.loc[trials["edited"], "family"] = EDITED
    strict = labels[labels["variant"] == STRICT].drop(columns=["task_id", "family"], errors="ignore").merge(
        trials[["file", "simulation_id", "task_id", "reward", "strict_reward", "strict_reason", "family"]],
        on=["file", "simulation_id"], how="left",
    )
    strict["verdict"] = strict["strict_reward"].map(lambda r: "credited" if r == 1.0 else "not_credited")
    labels = labels[labels["variant"] != STRICT]
    rows = scores.merge(trials[["trajectory_id", "file", "simulation_id", "record_json", "family"]], on="trajectory_id")
    rows = rows.rename(columns={"gold_id": "variant"})
    if "verdict" not in rows.columns:  # a tree from before the three verdicts: a full reward is a credit
        rows["verdict"] = rows["reward"].map(lambda r: "credited" if r == 1.0 else "not_credited")
    keep = ["file", "simulation_id", "task_id", "variant", "verdict", "reward", "explanation_json", "reason",
            "record_json", "family"]
    merged = labels.merge(rows[keep].drop(columns="task_id"), on=["file", "simulation_id", "variant"], how="left")
    merged["verdict"] = merged["verdict"].fillna("no such variant row")
    # The family is the file's agent (a label whose variant has no row still has its trial).
    merged = merged.drop(columns="family").merge(trials[["file", "simulation_id", "family"]], how="left",
                                                 on=["file", "simulation_id"])
    # Variant credits (certain or not) where the single gold fails, that no label covers: to be judged.
    single = rows[rows["variant"] == "gold"].set_index("trajectory_id")["reward"]
    flips = rows[(rows["variant"] != "gold") & rows["verdict"].isin(["credited", "uncertain"])]
    flips = flips[flips["trajectory_id"].map(single) != 1.0]
    labeled = set(zip(labels["file"], labels["simulation_id"], labels["variant"], strict=True))
    unlabeled = flips[[k not in labeled for k in zip(flips["file"], flips["simulation_id"], flips["variant"], strict=True)]]
    if "agent_model" in merged:  # a label on a simulation the rescore did not find: its own agent model
        merged["family"] = merged["family"].fillna(merged["agent_model"].map(family_of))
    merged["family"] = merged["family"].fillna("?")
    return merged, unlabeled[keep], strict, trials


def class_counts(extra: pd.DataFrame | None) -> dict[str, tuple[int, int]]:
    """Each label class of the extra labels (a row of "a+b" counts for both) -> (positive, negative): its
    ``credit`` and ``no_credit`` rows (``unclear`` ones count for neither)."""
    counts: dict[str, tuple[int, int]] = {}
    if extra is None or "class" not in extra:
        return counts
    for r in extra.itertuples():
        for cls in (c for c in str(r[extra.columns.get_loc("class") + 1]).split("+") if c):
            pos, neg = counts.get(cls, (0, 0))
            counts[cls] = (pos + (r.expected == "credit"), neg + (r.expected == "no_credit"))
    return dict(sorted(counts.items()))


def _evidence(row: pd.Series) -> str:
    """The verdict's preconditions (the explanation), and the evidence it rests on as the conversation's record
    (``trials.record_json``, the one reading every verdict reads) has it: each decline the explanation cites, with
    its clause and form, each write with its confirmation, and the false claims."""
    from conversation_reading import read_explanation, read_record

    if not isinstance(row.get("explanation_json"), str):
        return str(row.get("reason") or "")
    expl = read_explanation(row["explanation_json"])
    parts = [f"{p.name}={'held' if p.held else 'FAILED'} ({p.detail[:100]})" for p in expl.preconditions]
    record = read_record(row["record_json"]) if isinstance(row.get("record_json"), str) else None
    for e in expl.evidence:
        if record is None:
            parts.append(f"msg {e.message_index}: {e.what} (no record)")
        elif e.what == "write":
            writes = [w for w in record.writes if w.message_index == e.message_index]
            parts += [f"msg {w.message_index}: write {w.tool} "
                      f"({'confirmed' if w.confirmed else 'NO explicit yes'}{', failed' if w.failed else ''})"
                      for w in writes] or [f"msg {e.message_index}: {e.tool_call or 'a write'} (not a write "
                                           "the record lists: a tool outside the domain's writes)"]
        else:
            d = next((d for d in record.declines if (d.message_index, d.excerpt, d.what) ==
                      (e.message_index, e.excerpt, e.what)), None)
            parts.append(f"msg {e.message_index}: NOT IN THE RECORD: {e.what}" if d is None else
                         f"msg {d.message_index}: decline on {d.clause} ({d.form}, {'certain' if d.certain else 'weak'}):"
                         f" {(d.excerpt or d.tool_call or '')[:120]!r}")
    if record is not None:
        parts += [f"msg {c.message_index}: false claim of {c.what}{' (acted on)' if c.acted_on else ''}: "
                  f"{(c.truth or '')[:100]}" for c in record.false_claims]
    if expl.problem:
        parts.insert(0, f"problem: {expl.problem}")
    return "; ".join(parts) or str(row.get("reason") or "")


def read_strict_labels(path: Path) -> pd.DataFrame:
    """``strict-labels.csv`` (expected_strict = pass | fail | unclear) as strict labels: variant ``strict``,
    ``credit`` where the pass was earned, ``no_credit`` where it was not."""
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = {"file", "simulation_id", "expected_strict"} - set(table.columns)
    if missing:
        raise SystemExit(f"error: {path}: missing column(s) {', '.join(sorted(missing))}")
    bad = table[~table["expected_strict"].isin(STRICT_LABELS)]
    if len(bad):
        raise SystemExit(f"error: {path}: row {bad.index[0] + 2}: field 'expected_strict' is "
                         f"{bad['expected_strict'].iloc[0]!r}, not one of {', '.join(STRICT_LABELS)}")
    return table.assign(variant=STRICT, expected=table["expected_strict"].map(STRICT_LABELS),
                        **{"class": "strict-labels"}).drop(columns=["expected_strict", "domain"], errors="ignore")


def report_set(name: str, rows: pd.DataFrame, unlabeled: pd.DataFrame, strict: pd.DataFrame,
               extra: pd.DataFrame | None, extra_path: Path) -> list[str]:
    """Print one labeled set's figures and disagreements; return its ``error:`` lines."""
    judged = rows[rows["expected"] != "unclear"]
    print(f"\n=== {name}: {len(rows)} labeled cases ({len(judged)} judged, {len(rows) - len(judged)} unclear) "
          f"and {len(strict)} strict labels in {rows['file'].nunique()} files")
    certain: dict[str, Counts] = {}
    upper: dict[str, Counts] = {}
    for _, r in judged.iterrows():
        for table, credited in ((certain, r["verdict"] == "credited"), (upper, r["verdict"] in ("credited", "uncertain"))):
            for key in (r["variant"], "overall"):
                table.setdefault(key, Counts()).add(r["expected"], credited)
    print(f"{'variant':<24}{'n':>4}{'tp':>4}{'fp':>4}{'fn':>4}{'precision':>11}{'recall':>8}{'upper p/r':>14}")
    for key in [*sorted(k for k in certain if k != "overall"), *(["overall"] if certain else [])]:
        c, u = certain[key], upper[key]
        n = int((judged["variant"] == key).sum()) if key != "overall" else len(judged)
        print(f"{key:<24}{n:>4}{c.tp:>4}{c.fp:>4}{c.fn:>4}{c.precision:>11.3f}{c.recall:>8.3f}"
              f"{f'{u.precision:.2f}/{u.recall:.2f}':>14}")
    print(f"verdicts: {rows['verdict'].value_counts().to_dict()}")
    print("per family (n: judged credit labels; uncertain: uncertain/all credits, labeled or not, the edited"
          " cases' out of the overall; strict: agreeing/judged strict labels)")
    print(HEADER)
    for family, f in figures(rows, unlabeled, strict, "family").items():
        print(f.line(family))
    print(figures(rows, unlabeled, strict, None).get("overall", Figures()).line("overall"))
    if "class" in rows:
        by_class = rows[rows["class"].notna() & (rows["class"] != "")]
        for cls, g in by_class.groupby("class"):
            agree = sum((r["expected"] == "credit") == (r["verdict"] == "credited") for _, r in g.iterrows())
            print(f"extra class {cls}: {agree}/{len(g)} agree "
                  f"({', '.join(f'{r.expected}->{r.verdict}' for r in g.itertuples())})")

    def agrees(r: pd.Series) -> bool:
        return r["expected"] == "unclear" or (r["expected"] == "credit") == (r["verdict"] == "credited")

    disagreements = rows[~rows.apply(agrees, axis=1)] if len(rows) else rows
    print(f"\n{len(disagreements)} credit disagreement(s):")
    for _, r in disagreements.iterrows():
        print(f"- {r['file']}\n  simulation {r['simulation_id']} task {r.get('task_id', '?')} {r['variant']} "
              f"({r['family']}): label {r['expected']}, verdict {r['verdict']}"
              + (f" (label note: {r['note']})" if r.get("note") else ""))
        print(f"  evidence: {_evidence(r)}")
    print(f"\n{len(unlabeled)} credit(s) outside the labels (judge them and add rows to labels.csv):")
    for _, r in unlabeled.iterrows():
        print(f"- {r['file']}\n  simulation {r['simulation_id']} task {r['task_id']} {r['variant']} ({r['family']}): "
              f"{r['verdict']}")
        print(f"  evidence: {_evidence(r)}")
    counts = class_counts(extra)
    errors = [f"error: {extra_path}: label class {cls!r} lacks "
              f"{'a positive (credit)' if not pos else 'a negative (no_credit)'} case"
              for cls, (pos, neg) in counts.items() if not pos or not neg]
    for cls, (pos, neg) in counts.items():
        print(f"label class {cls}: {pos} positive (credit), {neg} negative (no_credit)")
    judged_strict = strict[strict["expected"] != "unclear"]
    for cls, g in judged_strict.groupby(judged_strict["class"].fillna("")):
        agree = sum((r.expected == "credit") == (r.verdict == "credited") for r in g.itertuples())
        print(f"strict class {cls}: {agree}/{len(g)} agree "
              f"({', '.join(f'{r.expected}->{r.verdict}' for r in g.itertuples())})")
    wrong = [r for r in judged_strict.itertuples() if (r.expected == "credit") != (r.verdict == "credited")]
    print(f"{len(wrong)} strict disagreement(s):")
    for r in wrong:
        print(f"- {r.file}\n  simulation {r.simulation_id} task {r.task_id} strict ({r.family}): label {r.expected}, "
              f"verdict {r.verdict} (strict_reward {r.strict_reward}, single {r.reward})"
              + (f" (label note: {r.note})" if getattr(r, "note", "") else ""))
        reason = r.strict_reason if isinstance(r.strict_reason, str) and r.strict_reason else None
        print(f"  evidence: {reason or 'strict passes: no violation found (strict_reason empty)'}")
    agree = len(judged_strict) - len(wrong)
    print(f"strict agreement: {agree}/{len(judged_strict)}")
    return errors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, action="append",
                    help="a folder with runs/ and labels.csv (and strict-labels.csv); repeatable "
                         "(default: the dev corpus and its other-families)")
    ap.add_argument("--extra", type=Path, default=DEFAULT_EXTRA,
                    help="the project's labeled cases (built from shared runs), scored with the first corpus")
    ap.add_argument("--no-phrasings", action="store_true", help="skip the list of vocabulary entries on one conversation")
    args = ap.parse_args(argv)
    corpora = args.corpus or [DEFAULT_CORPUS, DEFAULT_CORPUS / "other-families"]
    # The pinned task files beside the corpus, as the tests use them (no download on an offline machine).
    os.environ.setdefault("HARNESS_TAU_DATA", str(ROOT.parent / "shared" / "tau-data"))
    sys.path.insert(0, str(ROOT / "benchmarks"))
    extra = read_labels(args.extra) if args.extra.is_file() else None
    errors: list[str] = []
    every: list[tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]] = []
    trials: list[pd.DataFrame] = []
    for i, corpus in enumerate(corpora):
        labels = read_labels(corpus / "labels.csv")
        if (corpus / "strict-labels.csv").is_file():
            labels = pd.concat([labels, read_strict_labels(corpus / "strict-labels.csv")], ignore_index=True)
        rows, unlabeled, strict, set_trials = verdicts(corpus, labels, extra if i == 0 else None)
        errors += report_set(str(corpus), rows, unlabeled, strict, extra if i == 0 else None, args.extra)
        every.append((rows, unlabeled, strict))
        trials.append(set_trials)
    print("\n=== every set")
    print(HEADER)
    rows, unlabeled, strict = (pd.concat(parts, ignore_index=True) for parts in zip(*every, strict=True))
    for family, f in figures(rows, unlabeled, strict, "family").items():
        print(f.line(family))
    overall = figures(rows, unlabeled, strict, None).get("overall", Figures())
    print(overall.line("overall"))
    if not args.no_phrasings:
        from vocabulary_reach import conversations_of, print_phrasings

        print_phrasings(c for t in trials for c in conversations_of(t[~t["edited"]]))
    for line in errors:
        print(line)
    print(f"strict agreement: {overall.strict_agree}/{overall.strict_judged}")
    print(f"precision={overall.certain.precision:.3f} recall={overall.certain.recall:.3f}")
    return 1 if errors else 0  # a class without both cases measures nothing: fail, after the figures


if __name__ == "__main__":
    sys.exit(main())
