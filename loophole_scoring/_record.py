"""The conversation's record (``gold_variants.ConversationRecord``, #40 item 1) for a scored trajectory, and for a
stored trial: the one it carries, or, for a run written before ``trials.record_json``, one rebuilt from its
messages with the same reader. A record of another schema version is refused (``RecordVersionError``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tau2.data_model.message import Message
from tau2.data_model.tasks import Task

from envs import CUSTOM, ReplayEngine, engine_for, load_task_set, tool_kind
from gold_variants import ConversationRecord, conversation_record, read_record
from loophole_scoring._why import tau2_messages


def trajectory_record(
    messages: Sequence[Message], domain: str, task: Task | None, engine: ReplayEngine
) -> ConversationRecord:
    """The conversation's record, with the domain's tools deciding what a write is and the gold's facts
    (``communicate_info``) the informational answers it looks for."""
    criteria = task.evaluation_criteria if task is not None else None
    facts = list(criteria.communicate_info or []) if criteria is not None else []
    return conversation_record(messages, domain, lambda name: tool_kind(engine, name) == "write", facts)


def stored_record(
    record_json: str | None, messages: list[dict[str, Any]], domain: str, task_version: str, task_id: str
) -> ConversationRecord:
    """A trial's record: ``record_json`` read (``gold_variants.read_record``: ``RecordVersionError`` names another
    schema version, ``ValueError`` a malformed one), or, where the run predates the column, rebuilt from the
    trial's messages (a custom task's gold facts are not at hand: no informational answers are looked for)."""
    if isinstance(record_json, str) and record_json:
        return read_record(record_json)
    task = None if task_version == CUSTOM else load_task_set(domain, task_version).task(task_id)
    return trajectory_record(tau2_messages(messages), domain, task, engine_for(domain))
