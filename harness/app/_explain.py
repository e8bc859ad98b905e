"""``explain``'s work: which trajectory an id names (or the candidates an ambiguous one matches), and why the
single gold fails it, computed by the same ``loophole_scoring.WhyGoldFails`` the trial viewer shows."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from loophole_base import HarnessInputError

if TYPE_CHECKING:
    import pandas as pd

    from conversation_reading import ConversationRecord, Explanation
    from loophole_scoring import GoldFailure

@dataclass
class ExplainResult:
    """One trajectory explained: its ``trials`` row, its messages, its conversation record, why the single
    gold fails it (None where it does not), and its gold variants' ``scores`` rows (verdict, reason,
    ``explanation_json``: preconditions and evidence), with each row's explanation read back as the typed
    ``Explanation`` (``conversation_reading.read_explanation``; None where the row stores none), by gold id."""

    trial: pd.Series
    messages: list[dict]
    record: ConversationRecord
    single_gold_failure: GoldFailure | None
    variants: pd.DataFrame
    explanations: dict[str, Explanation | None]


def explain(run_dir: str | Path, trajectory_id: str) -> ExplainResult:
    """Explain the trajectory of ``run_dir`` whose ``trajectory_id`` is this id (or contains it, where only one
    does; several are an ``AmbiguousTrajectory`` listing them), as ``harness explain`` prints it."""
    import loophole_store as store
    from harness.app._analyze import load_trials

    run_dir = Path(run_dir)
    trial = find_trial(load_trials(run_dir), trajectory_id, run_dir)
    scores = store.read_table(run_dir, "scores")
    messages = _messages(trial, run_dir)
    variants = scores[(scores.trajectory_id == trial.trajectory_id) & (scores.gold_id != "gold")]
    explanations = {str(row.gold_id): _explanation(row.explanation_json, run_dir)
                    for row in variants.itertuples(index=False)}
    return ExplainResult(trial, messages, _record(trial, messages, run_dir),
                         single_gold_failure(trial, messages, scores), variants, explanations)


def _explanation(text: Any, run_dir: Path) -> Explanation | None:
    """A row's explanation (``conversation_reading.read_explanation``); another schema version is one line."""
    from conversation_reading import read_explanation

    if not isinstance(text, str) or not text:
        return None
    try:
        return read_explanation(text)
    except ValueError as exc:  # ExplanationVersionError names the version; else malformed
        line = " ".join(str(exc).split())[:300]
        raise HarnessInputError(f"{run_dir / 'scores.parquet'}: field 'explanation_json': {line}") from None


def _messages(trial: Any, run_dir: Path) -> list[dict]:
    try:
        messages = json.loads(trial.messages_json or "[]")
    except json.JSONDecodeError as exc:
        raise HarnessInputError(f"{run_dir / 'trials.parquet'}: field 'messages_json': not JSON ({exc})") from None
    if not isinstance(messages, list):
        raise HarnessInputError(f"{run_dir / 'trials.parquet'}: field 'messages_json': not a list of messages")
    return [m if isinstance(m, dict) else {} for m in messages]


def _record(trial: Any, messages: list[dict], run_dir: Path) -> ConversationRecord:
    """The trial's record: stored, or rebuilt from its messages; another schema version is one line."""
    from conversation_reading import RecordVersionError
    from loophole_scoring import stored_record

    stored = getattr(trial, "record_json", None)
    try:
        return stored_record(stored if isinstance(stored, str) else None, messages, str(trial.domain),
                             str(trial.task_version), str(trial.task_id))
    except RecordVersionError as exc:
        raise HarnessInputError(f"{run_dir / 'trials.parquet'}: field 'record_json': {exc}") from None
    except (ValueError, KeyError) as exc:  # malformed JSON, a record or a message that does not validate
        line = " ".join(str(exc).split())[:300]
        raise HarnessInputError(
            f"{run_dir / 'trials.parquet'}: field 'record_json': not a conversation record ({line})") from None


CANDIDATES_SHOWN = 10  # an ambiguous id lists this many candidates, then how many more


class AmbiguousTrajectory(HarnessInputError):
    """An id (or part of one) that matches several trajectories; ``candidates`` says what tells them apart."""

    def __init__(self, message: str, candidates: list[str]) -> None:
        super().__init__(message)
        self.candidates = candidates


def candidate(trial: Any) -> str:
    """One trajectory as an ambiguous id's candidates list it: its id, then what distinguishes it (agent,
    domain, task version, task, trial, the file it came from)."""
    from loophole_base import cut

    source = getattr(trial, "source_file", None)
    where = f", file {cut(Path(str(source)).name, 80)}" if isinstance(source, str) and source else ""
    trial_no = trial.trial if trial.trial == trial.trial and trial.trial is not None else "?"
    return (f"{cut(trial.trajectory_id, 120)} (agent {cut(trial.agent_name, 60)}, {trial.domain} {trial.task_version} "
            f"task {cut(trial.task_id, 40)}, trial {trial_no}{where})")


def find_trial(trials: pd.DataFrame, trajectory_id: str, run_dir: Path) -> pd.Series:
    """The trial with this id; a unique part of one (the simulation id, say) also works. No match is a
    one-line ``HarnessInputError``; several matches an ``AmbiguousTrajectory`` listing them in its one line."""
    from loophole_base import cut

    exact = trials[trials.trajectory_id == trajectory_id]
    hits = exact if len(exact) else trials[trials.trajectory_id.str.contains(trajectory_id, regex=False)]
    where = f"{run_dir / 'trials.parquet'}: trajectory_id {cut(trajectory_id, 200)!r}"
    if hits.empty:
        raise HarnessInputError(f"{where}: not found (the ids are in the viewer's index, `harness view`, and in "
                                "trials.parquet's trajectory_id column)")
    if len(hits) > 1:
        found = [candidate(t) for t in hits.sort_values("trajectory_id").itertuples(index=False)]
        shown = "; ".join(found[:CANDIDATES_SHOWN])
        more = f"; and {len(found) - CANDIDATES_SHOWN} more" if len(found) > CANDIDATES_SHOWN else ""
        raise AmbiguousTrajectory(
            f"{where}: matches {len(found)} trajectories, give more of the id: {shown}{more}", found)
    return hits.iloc[0]


def single_gold_failure(trial: Any, messages: list[dict], scores: pd.DataFrame) -> GoldFailure | None:
    """Why the single gold fails this trial (records that differ from the gold's, communicate items never
    said, NL assertions unmet), as the trial viewer shows it; None when the single gold does not fail it
    (or the run holds no single-gold score row for it)."""
    from loophole_scoring import WhyGoldFails

    rows = scores[(scores.trajectory_id == trial.trajectory_id) & (scores.gold_id == "gold")]
    golds = [SimpleNamespace(**r) for r in rows.to_dict("records")]
    return WhyGoldFails().explain(trial, messages, golds).get("gold") if golds else None
