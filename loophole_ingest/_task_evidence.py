"""What a simulation holds of its task's identity, and what identifies each task (``_identity`` decides).

Read from the raw JSON before validation: the recorded action checks (ids, and names with arguments), the
users the conversation authenticates (arguments, and the id a ``find_user_id_*`` call returns), the order and
reservation ids it reads, and the communicate checks' infos."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tau2.data_model.tasks import Task

_USER_ID = re.compile(r"\b([a-z]+)_([a-z]+)_\d{3,5}\b")
_YOU_ARE = re.compile(r"\bYou are ([A-Z][a-z'-]+) ([A-Z][a-z'-]+)")
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_ORDER = re.compile(r"#W\d{6,8}\b")
_RESERVATION = re.compile(r"\b(?=[A-Z0-9]*\d)(?=[A-Z0-9]*[A-Z])[A-Z0-9]{6}\b")
_FLIGHT = re.compile(r"^[A-Z]{3}\d{3}$")
_RECORD_ARGS = ("order_id", "reservation_id")


def _records_in(text: str) -> set[str]:
    found = set(_ORDER.findall(text))
    found |= {r for r in _RESERVATION.findall(text) if not _FLIGHT.match(r)}
    return found


def _person(first: object, last: object) -> str:
    return f"person:{str(first).strip().lower()} {str(last).strip().lower()}"


def _user_ids(text: str) -> set[str]:
    """User ids in ``text``, and the person each names (a name and zip code authenticate that person)."""
    found = set()
    for m in _USER_ID.finditer(text):
        found |= {m.group(0), _person(m.group(1), m.group(2))}
    return found


def _users_in(text: str) -> set[str]:
    found = _user_ids(text) | {e.lower() for e in _EMAIL.findall(text)}
    return found | {_person(m.group(1), m.group(2)) for m in _YOU_ARE.finditer(text)}


def _users_of(args: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    if isinstance(args.get("user_id"), str):
        found |= _user_ids(args["user_id"]) or {args["user_id"]}
    if isinstance(args.get("email"), str):
        found.add(args["email"].lower())
    if isinstance(args.get("first_name"), str) and isinstance(args.get("last_name"), str):
        found.add(_person(args["first_name"], args["last_name"]))
    return found


def _canon(name: object, arguments: object) -> str:
    return json.dumps([name, arguments], sort_keys=True, default=str)


@dataclass(frozen=True)
class TaskPrint:
    """What identifies one task: its gold action ids, its gold actions, its user, the records it touches."""

    task_id: str
    action_ids: frozenset[str]
    actions: tuple[str, ...]  # canonical (name, arguments), sorted
    users: frozenset[str]
    records: frozenset[str]
    told: frozenset[str]  # communicate_info


def task_print(task: Task) -> TaskPrint:
    actions = (task.evaluation_criteria.actions or []) if task.evaluation_criteria else []
    scenario = task.user_scenario.model_dump_json() if task.user_scenario else ""
    users, records = _users_in(scenario), _records_in(scenario)
    for action in actions:
        users |= _users_of(action.arguments or {})
        records |= {v for k, v in (action.arguments or {}).items() if k in _RECORD_ARGS and isinstance(v, str)}
    return TaskPrint(
        task_id=task.id,
        action_ids=frozenset(a.action_id for a in actions),
        actions=tuple(sorted(_canon(a.name, a.arguments) for a in actions)),
        users=frozenset(users),
        records=frozenset(records),
        told=frozenset(str(i) for i in (task.evaluation_criteria.communicate_info or []))
        if task.evaluation_criteria else frozenset(),
    )


@dataclass
class Evidence:
    """What one simulation holds of its task's identity (read from the raw JSON, before validation)."""

    check_ids: frozenset[str] = frozenset()
    check_actions: tuple[str, ...] = ()
    users: frozenset[str] = frozenset()
    records: frozenset[str] = frozenset()
    no_actions: bool = False  # the evaluator recorded no gold actions: a task without any
    told: frozenset[str] = frozenset()  # the communicate checks' infos: the task's communicate_info


def evidence_of(raw: dict[str, Any]) -> Evidence:
    ids: set[str] = set()
    actions: list[str] = []
    info = raw.get("reward_info")
    checks = info.get("action_checks") if isinstance(info, dict) else None
    for check in checks if isinstance(checks, list) else []:
        action = check.get("action") if isinstance(check, dict) else None
        if isinstance(action, dict):
            if isinstance(action.get("action_id"), str):
                ids.add(action["action_id"])
            actions.append(_canon(action.get("name"), action.get("arguments")))
    users: set[str] = set()
    records: set[str] = set()
    lookups: set[str] = set()  # tool call ids of find_user_id_* calls: their results name the user
    messages = raw.get("messages")
    for message in messages if isinstance(messages, list) else []:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                if not isinstance(call, dict):
                    continue
                args = call.get("arguments")
                args = args if isinstance(args, dict) else {}
                users |= _users_of(args)
                for key in _RECORD_ARGS:
                    if isinstance(args.get(key), str):
                        records.add(args[key])
                if str(call.get("name", "")).startswith("find_user_id"):
                    lookups.add(str(call.get("id")))
        elif role == "tool" and lookups and str(message.get("id")) in lookups:  # none yet: nothing to read
            content = message.get("content")
            if isinstance(content, str) and not message.get("error"):
                users |= _user_ids(content)
    no_actions = isinstance(checks, list) and not checks
    note = info.get("info") if isinstance(info, dict) else None
    action_note = note.get("action") if isinstance(note, dict) else None
    if isinstance(action_note, dict) and str(action_note.get("note", "")).startswith("No actions"):
        no_actions = True
    told = info.get("communicate_checks") if isinstance(info, dict) else None
    infos = {str(c["info"]) for c in told if isinstance(c, dict) and c.get("info")} if isinstance(told, list) else set()
    return Evidence(frozenset(ids), tuple(sorted(actions)), frozenset(users), frozenset(records),
                    no_actions=no_actions, told=frozenset(infos))
