"""How good multi-gold's credits are, measured against hand labels.

Rescores a labeled corpus of real results files (default ``../shared/dev-corpus``: ``runs/*.json`` and
``labels.csv``, one row per judged flip or miss: file, simulation_id, variant, expected = credit | no_credit |
unclear) and compares each labeled (simulation, variant) with the scorer's verdict. Prints precision and
recall per variant and overall (``unclear`` rows left out; ``uncertain`` verdicts count as no credit, as in
``multi_gold_reward``, and the upper bound counts them as credits), then every disagreement with the
evidence the rule used. The last line is ``precision=… recall=…``.

Labels are data: a new labeled trajectory is a new CSV row, never a code change. ``benchmarks/labels_extra.csv``
adds the project's own labeled cases (#36): each row names a case file built at run time from a shared run by
an edit in ``benchmarks/label_cases.py`` (a shuffled task id, unicode text, a question, a generic decline, a
false claim, an offer to cancel and book anew) and the verdict it deserves; they are scored with the corpus and counted with it, and listed by
class.

A label whose ``variant`` is ``strict`` judges the band's lower end instead (#40): ``credit`` where the
single-gold pass was earned (``strict_reward`` 1), ``no_credit`` where it was not. Those rows are kept apart
from the credits' precision and recall; the line before the last is ``strict agreement: k/n`` over them,
with each strict class's agreement above it. Every label class of the extra labels needs a positive (credit)
and a negative (no_credit) case: the counts of each are printed, and a class lacking either is named on an
``error:`` line and makes the exit status 1.

    python benchmarks/credit_quality.py [--corpus DIR] [--extra CSV]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = ROOT.parent / "shared" / "dev-corpus"
DEFAULT_EXTRA = ROOT / "benchmarks" / "labels_extra.csv"
LABELS = ("credit", "no_credit", "unclear")
STRICT = "strict"  # the variant column of a label that judges strict_reward


@dataclass
class Counts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, expected: str, credited: bool) -> None:
        if credited and expected == "credit":
            self.tp += 1
        elif credited:
            self.fp += 1
        elif expected == "credit":
            self.fn += 1

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


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
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Rescore the corpus (and the extra labels' case files, built now); return the labels with the scorer's
    verdict and evidence beside them, the credits and uncertain credits no label covers, and the strict
    labels with the strict verdict ("credited": strict_reward 1) and its reason."""
    from harness import rescore

    named = sorted({corpus / "runs" / f for f in labels["file"]})
    absent = [f for f in named if not f.is_file()]
    if absent:
        raise SystemExit(f"error: {corpus / 'labels.csv'}: field 'file': {absent[0].name} is not in {corpus / 'runs'}")
    files = sorted(set(named) | set((corpus / "runs").glob("*.json")))  # unlabeled credits are listed too
    with tempfile.TemporaryDirectory() as tmp:
        if extra is not None and len(extra):
            sys.path.insert(0, str(ROOT / "benchmarks"))
            from label_cases import build

            cases = build(extra.to_dict("records"), corpus.parent, Path(tmp) / "cases")
            files += sorted(cases.values())
            labels = pd.concat([labels, extra], ignore_index=True)
        run = rescore(files, Path(tmp) / "run").run
        trials, scores = run.trials, run.scores
    trials = trials.assign(file=trials["source_file"].map(lambda p: Path(p).name))
    strict = labels[labels["variant"] == STRICT].drop(columns=["task_id"], errors="ignore").merge(
        trials[["file", "simulation_id", "task_id", "reward", "strict_reward", "strict_reason"]],
        on=["file", "simulation_id"], how="left",
    )
    strict["verdict"] = strict["strict_reward"].map(lambda r: "credited" if r == 1.0 else "not_credited")
    labels = labels[labels["variant"] != STRICT]
    rows = scores.merge(trials[["trajectory_id", "file", "simulation_id", "record_json"]], on="trajectory_id")
    rows = rows.rename(columns={"gold_id": "variant"})
    if "verdict" not in rows.columns:  # a tree from before the three verdicts: a full reward is a credit
        rows["verdict"] = rows["reward"].map(lambda r: "credited" if r == 1.0 else "not_credited")
    keep = ["file", "simulation_id", "task_id", "variant", "verdict", "reward", "explanation_json", "reason",
            "record_json"]
    merged = labels.merge(rows[keep].drop(columns="task_id"), on=["file", "simulation_id", "variant"], how="left")
    merged["verdict"] = merged["verdict"].fillna("no such variant row")
    # Variant credits (certain or not) where the single gold fails, that no label covers: to be judged.
    single = rows[rows["variant"] == "gold"].set_index("trajectory_id")["reward"]
    flips = rows[(rows["variant"] != "gold") & rows["verdict"].isin(["credited", "uncertain"])]
    flips = flips[flips["trajectory_id"].map(single) != 1.0]
    labeled = set(zip(labels["file"], labels["simulation_id"], labels["variant"], strict=True))
    unlabeled = flips[[k not in labeled for k in zip(flips["file"], flips["simulation_id"], flips["variant"], strict=True)]]
    return merged, unlabeled[keep], strict


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
    from conversation_reading import read_record

    if not isinstance(row.get("explanation_json"), str):
        return str(row.get("reason") or "")
    expl = json.loads(row["explanation_json"])
    parts = [
        f"{p['name']}={'held' if p['held'] else 'FAILED'} ({p['detail'][:100]})" for p in expl["preconditions"]
    ]
    record = read_record(row["record_json"]) if isinstance(row.get("record_json"), str) else None
    for e in expl["evidence"]:
        if record is None:
            parts.append(f"msg {e['message_index']}: {e['what']} (no record)")
        elif e["what"] == "write":
            writes = [w for w in record.writes if w.message_index == e["message_index"]]
            parts += [f"msg {w.message_index}: write {w.tool} "
                      f"({'confirmed' if w.confirmed else 'NO explicit yes'}{', failed' if w.failed else ''})"
                      for w in writes] or [f"msg {e['message_index']}: {e['tool_call'] or 'a write'} (not a write "
                                           "the record lists: a tool outside the domain's writes)"]
        else:
            d = next((d for d in record.declines if (d.message_index, d.excerpt, d.what) ==
                      (e["message_index"], e["excerpt"], e["what"])), None)
            parts.append(f"msg {e['message_index']}: NOT IN THE RECORD: {e['what']}" if d is None else
                         f"msg {d.message_index}: decline on {d.clause} ({d.form}, {'certain' if d.certain else 'weak'}):"
                         f" {(d.excerpt or d.tool_call or '')[:120]!r}")
    if record is not None:
        parts += [f"msg {c.message_index}: false claim of {c.what}{' (acted on)' if c.acted_on else ''}: "
                  f"{(c.truth or '')[:100]}" for c in record.false_claims]
    if expl.get("problem"):
        parts.insert(0, f"problem: {expl['problem']}")
    return "; ".join(parts) or str(row.get("reason") or "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder with runs/ and labels.csv")
    ap.add_argument("--extra", type=Path, default=DEFAULT_EXTRA, help="the project's labeled cases (built from shared runs)")
    args = ap.parse_args(argv)
    # The pinned task files beside the corpus, as the tests use them (no download on an offline machine).
    os.environ.setdefault("HARNESS_TAU_DATA", str(ROOT.parent / "shared" / "tau-data"))
    labels = read_labels(args.corpus / "labels.csv")
    extra = read_labels(args.extra) if args.extra.is_file() else None
    rows, unlabeled, strict = verdicts(args.corpus, labels, extra)
    judged = rows[rows["expected"] != "unclear"]

    certain: dict[str, Counts] = {}
    upper: dict[str, Counts] = {}
    for _, r in judged.iterrows():
        for table, credited in (
            (certain, r["verdict"] == "credited"),
            (upper, r["verdict"] in ("credited", "uncertain")),
        ):
            for key in (r["variant"], "overall"):
                table.setdefault(key, Counts()).add(r["expected"], credited)

    print(f"{len(rows)} labeled cases ({len(judged)} judged, {len(rows) - len(judged)} unclear) "
          f"in {rows['file'].nunique()} files under {args.corpus}")
    print(f"{'variant':<24}{'n':>4}{'tp':>4}{'fp':>4}{'fn':>4}{'precision':>11}{'recall':>8}{'upper p/r':>14}")
    for key in [*sorted(k for k in certain if k != "overall"), "overall"]:
        c, u = certain[key], upper[key]
        n = int((judged["variant"] == key).sum()) if key != "overall" else len(judged)
        print(f"{key:<24}{n:>4}{c.tp:>4}{c.fp:>4}{c.fn:>4}{c.precision:>11.3f}{c.recall:>8.3f}"
              f"{f'{u.precision:.2f}/{u.recall:.2f}':>14}")
    print(f"verdicts: {rows['verdict'].value_counts().to_dict()}")
    if "class" in rows:
        by_class = rows[rows["class"].notna() & (rows["class"] != "")]
        for cls, g in by_class.groupby("class"):
            agree = sum((r["expected"] == "credit") == (r["verdict"] == "credited") for _, r in g.iterrows())
            print(f"extra class {cls}: {agree}/{len(g)} agree "
                  f"({', '.join(f'{r.expected}->{r.verdict}' for r in g.itertuples())})")

    def agrees(r: pd.Series) -> bool:
        return r["expected"] == "unclear" or (r["expected"] == "credit") == (r["verdict"] == "credited")

    disagreements = rows[~rows.apply(agrees, axis=1)]
    print(f"\n{len(disagreements)} disagreement(s):")
    for _, r in disagreements.iterrows():
        print(f"- {r['file']}\n  simulation {r['simulation_id']} task {r.get('task_id', '?')} {r['variant']}: "
              f"label {r['expected']}, verdict {r['verdict']}"
              + (f" (label note: {r['note']})" if r.get("note") else ""))
        print(f"  evidence: {_evidence(r)}")
    print(f"\n{len(unlabeled)} credit(s) outside the labels (judge them and add rows to labels.csv):")
    for _, r in unlabeled.iterrows():
        print(f"- {r['file']}\n  simulation {r['simulation_id']} task {r['task_id']} {r['variant']}: {r['verdict']}")
        print(f"  evidence: {_evidence(r)}")
    credits = rows["verdict"].isin(["credited", "uncertain"]).sum() + len(unlabeled)
    uncertain = (rows["verdict"] == "uncertain").sum() + (unlabeled["verdict"] == "uncertain").sum()
    # The edited cases are built to test a class (some to be uncertain): the share on the corpus's own runs
    # is the one a user's files resemble.
    own = rows[rows["class"].isna() | (rows["class"] == "")] if "class" in rows else rows
    own_credits = own["verdict"].isin(["credited", "uncertain"]).sum() + len(unlabeled)
    own_uncertain = (own["verdict"] == "uncertain").sum() + (unlabeled["verdict"] == "uncertain").sum()
    print(f"uncertain share of all credits: {uncertain}/{credits} "
          f"(on the corpus's own runs, without the edited cases: {own_uncertain}/{own_credits})")
    counts = class_counts(extra)
    lacking = [(cls, "a positive (credit)" if not pos else "a negative (no_credit)")
               for cls, (pos, neg) in counts.items() if not pos or not neg]
    for cls, (pos, neg) in counts.items():
        print(f"label class {cls}: {pos} positive (credit), {neg} negative (no_credit)")
    for cls, what in lacking:
        print(f"error: {args.extra}: label class {cls!r} lacks {what} case")
    judged_strict = strict[strict["expected"] != "unclear"]
    for cls, g in judged_strict.groupby("class"):
        agree = sum((r.expected == "credit") == (r.verdict == "credited") for r in g.itertuples())
        print(f"strict class {cls}: {agree}/{len(g)} agree "
              f"({', '.join(f'{r.expected}->{r.verdict}' for r in g.itertuples())})")
    for r in judged_strict.itertuples():
        if (r.expected == "credit") != (r.verdict == "credited"):
            print(f"  strict disagreement: {r.file} task {r.task_id}: label {r.expected}, strict {r.strict_reward} "
                  f"({r.strict_reason})")
    agree = sum((r.expected == "credit") == (r.verdict == "credited") for r in judged_strict.itertuples())
    print(f"strict agreement: {agree}/{len(judged_strict)}")
    overall = certain.get("overall", Counts())
    print(f"precision={overall.precision:.3f} recall={overall.recall:.3f}")
    return 1 if lacking else 0  # a class without both cases measures nothing: fail, after the figures


if __name__ == "__main__":
    sys.exit(main())
