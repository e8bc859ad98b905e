"""The trials and scores as the report and the viewer read them: verdicts, filter columns, explanations.

Runs written before the three verdicts (credited / not_credited / uncertain) lack ``multi_gold_upper`` and
``scores.verdict``: the upper bound is then multi-gold, and a verdict is read off the reward."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow.parquet as pq

from analysis import loophole_mask, upper_reward
from loophole_base import natural_key
from loophole_report._links import page_name

if TYPE_CHECKING:
    from conversation_reading import Explanation


def verdict(reward: float | None) -> str:
    if reward is None or reward != reward:
        return "unscored"
    return "pass" if reward >= 1 - 1e-6 else "fail"


def score_verdict(recorded: object, reward: float | None) -> str | None:
    """A score row's verdict: the recorded one, else (older runs) credited at reward 1, else not credited;
    None where the reward is null."""
    if isinstance(recorded, str) and recorded:
        return recorded
    if reward is None or reward != reward:
        return None
    return "credited" if reward >= 1 - 1e-6 else "not_credited"


UNCERTAIN_PREFIX = "uncertain: "


def doubt(exp: Explanation | None, reason: object) -> str:
    """Why an uncertain credit is uncertain: the explanation's doubts, else its reason without the
    ``uncertain:`` prefix."""
    said = exp.doubt() if exp is not None else None
    if said:
        return said
    text = "" if not isinstance(reason, str) else reason
    return text[len(UNCERTAIN_PREFIX):] if text.startswith(UNCERTAIN_PREFIX) else text


def reading_key(matched: list[str]) -> str:
    """The golds a trial matched, as ``analysis.reading_choices`` names them (``none`` for no gold)."""
    return ",".join(matched) if matched else "none"


def read_scores(run_dir: Path) -> pd.DataFrame:
    """The scores table, with ``explanation_json`` kept when the file has it, even where this checkout's
    schema does not list it yet (the column is added by the scoring side)."""
    import loophole_store as store

    scores = store.read_table(run_dir, "scores")
    if "explanation_json" not in scores.columns:
        path = Path(run_dir) / "scores.parquet"
        names = pq.read_schema(path).names if path.exists() else []
        if "explanation_json" in names:
            raw = pq.read_table(
                path, columns=["trajectory_id", "gold_id", "explanation_json"]
            ).to_pandas()
            scores = scores.merge(raw, on=["trajectory_id", "gold_id"], how="left")
        else:
            scores["explanation_json"] = None
    recorded = scores["verdict"] if "verdict" in scores else [None] * len(scores)
    scores["verdict"] = [score_verdict(v, r) for v, r in zip(recorded, scores["reward"], strict=True)]
    return scores


def explanation(text: object) -> Explanation | None:
    """The stored explanation (``conversation_reading.read_explanation``), or None when absent, malformed or of
    another schema version (the page says nothing then)."""
    from conversation_reading import read_explanation

    if not isinstance(text, str) or not text:
        return None
    try:
        return read_explanation(text)
    except ValueError:  # ExplanationVersionError too
        return None


def trial_frame(trials: pd.DataFrame) -> pd.DataFrame:
    """The trials with the columns the index and the report filter on."""
    df = trials.copy()
    # strict: the lower end of the band (#35); a run written before strict_reward has no verdict to show
    df["strict"] = [verdict(r) for r in df.strict_reward] if "strict_reward" in df else "unscored"
    df["single"] = [verdict(r) for r in df.reward]
    df["multi"] = [verdict(r) for r in df.multi_gold_reward]
    df["upper"] = [verdict(r) for r in upper_reward(df)]
    df["uncertain"] = (df.multi == "fail") & (df.upper == "pass")
    df["flip"] = (df.single == "fail") & (df.multi == "pass")
    df["loophole"] = loophole_mask(df) if len(df) else pd.Series(dtype=bool)
    df["page"] = [page_name(t) for t in df.trajectory_id]
    keys = list(
        zip(
            df.agent_name.astype(str),
            df.domain.astype(str),
            df.task_version.astype(str),
            df.task_id.map(natural_key),
            df.trial.fillna(-1),
            df.trajectory_id,
            strict=True,
        )
    )
    order = sorted(range(len(df)), key=keys.__getitem__)
    return df.iloc[order].reset_index(drop=True)


def trial_record(row: Any, messages: list[dict]) -> tuple[Any, str | None]:
    """The trial's conversation record (``loophole_scoring.stored_record``: stored, or rebuilt from the messages
    of a run written before it), or why it cannot be shown (another schema version, a malformed record)."""
    from loophole_scoring import stored_record

    stored = getattr(row, "record_json", None)
    try:
        record = stored_record(stored if isinstance(stored, str) else None, messages, str(row.domain),
                               str(row.task_version), str(row.task_id))
    except (ValueError, KeyError) as exc:  # RecordVersionError is a ValueError: it names the version
        return None, " ".join(str(exc).split())[:300]
    return record, None
