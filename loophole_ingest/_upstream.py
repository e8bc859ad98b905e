"""Fields tau2's main branch writes after 1.0.1 (#48 item 6), read and kept as typed provenance.

Read from sierra-research/tau2-bench (main, via the project's source index):
- ``docs/evaluation.md`` ("Evaluator provenance: live versus replay"): ``RewardInfo`` gains
  ``evaluation_mode`` (``"live"`` | ``"replay"``), ``state_source`` (``"live"`` | ``"replayed"``),
  ``replayed_actions`` (the trajectory and reference tool calls run to rebuild the state, each labelled
  ``trajectory`` or ``reference``) and ``warnings`` (lenient re-grading always adds one) — PR #467. The
  index holds the documentation, not the model's code, so an entry of ``replayed_actions`` is kept only
  as counted, and by its label where an entry names one.
- ``src/tau2/evaluator/evaluator_env.py`` (``replay_golden_actions``, ``_resolve_db_check``; #499): when a
  gold write cannot be applied, ``RewardInfo.db_check`` is None instead of a pass and ``RewardInfo.info``
  holds ``gold_replay_incomplete: true``, ``db_evaluated`` and ``failed_mutating_actions``: one
  ``{action_id, tool_name, requestor, error_type, error}`` per gold write that raised.
- ``src/tau2/scripts/evaluate_trajectories.py`` (``evaluate-trajs --scores reward,quality,nativeness,
  delivery``, ``--fresh-tasks-set``; rescored results saved in their own format, dir included): the judge
  axes land on each simulation as ``quality_info``, ``nativeness_info`` and ``delivery_info``
  (``src/tau2/judges/attach.py``); ``QualityInfo.score`` is the pass fraction of the fired checks
  (``src/tau2/judges/quality/harness.py``), None where none fired. The other two axes' models are not in
  the index: their ``score`` is read where it is a number, as quality's is. The run records
  ``info.task_set_name`` (the registered task set it ran, e.g. ``airline`` or a localized ``airline_hi``).

None of these changes a reward here: the reward is recomputed. They are kept per row (``trials.upstream_json``,
``UpstreamFields``) and per run (``run.json`` ``upstream``), and a gold replay the file marks incomplete is
flagged on its row and said beside the harness's own broken-gold verdict for that task.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

UPSTREAM_SCHEMA_VERSION: Literal[1] = 1
GOLD_REPLAY_INCOMPLETE_FLAG = "gold_replay_incomplete"


def _object_or_none(value: object) -> object:
    """An optional record that only its own keys give meaning to: anything but an object carries none here
    (older files hold free-form ``info`` of their own), so it is read as absent rather than refused."""
    return value if isinstance(value, dict) else None


class _Read(BaseModel):
    """Strict JSON types for what is read; keys not named here are ignored."""

    model_config = ConfigDict(strict=True, extra="ignore")


class FailedGoldAction(_Read):
    """One gold write the evaluator could not apply (``replay_golden_actions``'s record)."""

    action_id: str | None = None
    tool_name: str | None = None
    requestor: str | None = None
    error_type: str | None = None
    error: str | None = None


class RewardInfoNotes(_Read):
    """``RewardInfo.info`` as #499 fills it."""

    gold_replay_incomplete: bool | None = None
    db_evaluated: bool | None = None
    failed_mutating_actions: list[FailedGoldAction] | None = None


class JudgeAxis(_Read):
    """A judge axis's record on a simulation (``quality_info`` and its siblings): its score only."""

    score: float | None = None


Notes = Annotated[RewardInfoNotes | None, BeforeValidator(_object_or_none)]
Axis = Annotated[JudgeAxis | None, BeforeValidator(_object_or_none)]


class UpstreamFields(BaseModel):
    """What one simulation recorded of tau2 main's fields (``trials.upstream_json``); null where none."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = UPSTREAM_SCHEMA_VERSION
    evaluation_mode: Literal["live", "replay"] | None = None
    state_source: Literal["live", "replayed"] | None = None
    replayed_actions: int | None = None  # how many entries
    replayed_by_label: dict[str, int] = Field(default_factory=dict)  # trajectory / reference, where labelled
    warnings: list[str] = Field(default_factory=list)
    gold_replay_incomplete: bool = False
    db_evaluated: bool | None = None
    db_check_recorded: bool | None = None  # False: the file's db_check is null (not a pass)
    failed_mutating_actions: list[FailedGoldAction] = Field(default_factory=list)
    judge_scores: dict[str, float | None] = Field(default_factory=dict)  # axis -> recorded score


class RunUpstream(BaseModel):
    """What a run's header recorded of tau2 main's fields (``run.json`` ``upstream``)."""

    model_config = ConfigDict(extra="forbid")

    schema_version: Literal[1] = UPSTREAM_SCHEMA_VERSION
    source_sha256: str
    task_set_name: str | None = None
    task_set_version: str | None = None  # the pinned version the task set's name identifies, if any


def _labels(entries: list[Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for entry in entries:
        label = next((v for v in entry.values() if v in ("trajectory", "reference")), None) \
            if isinstance(entry, dict) else None
        if label is not None:
            counts[label] = counts.get(label, 0) + 1
    return counts


def _records_nothing(ri: Any, notes: RewardInfoNotes | None) -> bool:
    """Whether ``reward_info`` records none of tau2 main's fields (most files: tau2 1.0's): every field
    ``upstream_fields`` reads is absent or empty."""
    if ri is None:
        return True
    return (ri.evaluation_mode is None and ri.state_source is None and ri.replayed_actions is None
            and not ri.warnings and (notes is None or (not notes.gold_replay_incomplete
                                                       and notes.db_evaluated is None
                                                       and not notes.failed_mutating_actions)))


def upstream_fields(
    reward_info: Any, axes: dict[str, JudgeAxis | None], raw_reward_info: object
) -> UpstreamFields | None:
    """The typed record of one simulation (``reward_info`` and ``axes`` already validated), or None."""
    ri = reward_info
    notes: RewardInfoNotes | None = ri.info if ri is not None else None
    recorded_axes = {k: v.score for k, v in axes.items() if v is not None}
    if not recorded_axes and _records_nothing(ri, notes):
        return None  # what ``found`` below would equal UpstreamFields() for, without building two models
    replayed = ri.replayed_actions if ri is not None else None
    found = UpstreamFields(
        evaluation_mode=ri.evaluation_mode if ri is not None else None,
        state_source=ri.state_source if ri is not None else None,
        replayed_actions=len(replayed) if replayed is not None else None,
        replayed_by_label=_labels(replayed or []),
        warnings=list(ri.warnings or []) if ri is not None else [],
        gold_replay_incomplete=bool(notes and notes.gold_replay_incomplete),
        db_evaluated=notes.db_evaluated if notes else None,
        failed_mutating_actions=list(notes.failed_mutating_actions or []) if notes else [],
        judge_scores=recorded_axes,
    )
    if found.gold_replay_incomplete and isinstance(raw_reward_info, dict):
        found.db_check_recorded = raw_reward_info.get("db_check") is not None
    return None if found == UpstreamFields() else found
