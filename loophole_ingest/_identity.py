"""Task identity, verified per simulation: does the task a simulation names fit the evidence the file holds?

Evidence, strongest first: the recorded action checks (``reward_info.action_checks``: their action ids,
compared with each task's own action ids, never with the task number — tau2's retail tasks 95–113 carry
ids offset by one; failing that their names and arguments), the user the conversation authenticates
(``user_id``/``email`` arguments, the id a ``find_user_id_*`` call returns), and the order or reservation
ids the agent reads. Where the file's task fits, nothing changes; where another task fits uniquely, the
simulation is remapped to it (its ``task_id`` rewritten, the file's kept as ``_file_task_id`` and flagged
``task_id_remapped``); where none fits, or several do and the file's is not among them, it is refused with
a reason (a null-reward ``error`` row). One ``note:`` per file names the counts and the evidence."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from tau2.data_model.tasks import Task

from loophole_base import shown
from loophole_ingest._content_parts import CONTENT_PARTS_FLAG, read_content_parts
from loophole_ingest._simulations import ImportedSimulation, import_simulation
from loophole_scoring import Status

REMAPPED_FLAG = "task_id_remapped"
FILE_TASK_ID = "_file_task_id"  # the raw simulation's key holding the file's own task id after a remap

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
        if message.get("role") == "assistant":
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
        elif message.get("role") == "tool" and str(message.get("id")) in lookups:
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


@dataclass
class Decision:
    kind: str  # agree | unverified | remap | refuse
    task_id: str | None = None  # the task it is scored against (remap: the new one)
    evidence: str = ""  # which evidence decided (for the note and the refusal's reason)


def decide(file_task: str | None, ev: Evidence, prints: dict[str, TaskPrint]) -> Decision:
    """The task a simulation is scored against, from its evidence (module docstring)."""
    own = prints.get(file_task or "")
    fit: list[TaskPrint] | None = None
    if ev.check_ids or ev.check_actions:
        fit = [p for p in prints.values() if ev.check_ids and p.action_ids == ev.check_ids]
        what = "recorded action ids"
        if not fit:
            fit = [p for p in prints.values() if p.actions == ev.check_actions]
            what = "recorded action checks"
        if own is not None and own in fit:
            return Decision("agree", file_task, what)
        if not fit and ev.check_ids:
            # Checks recorded against other golds (another task version, ``--task-version``): the task whose
            # own ids they share most is the one they name.
            overlap = {p.task_id: len(p.action_ids & ev.check_ids) for p in prints.values()}
            best = max(overlap.values(), default=0)
            fit = [p for p in prints.values() if best and overlap[p.task_id] == best]
            what = "recorded action ids (in part: other golds)"
            if own is not None and own in fit:
                return Decision("agree", file_task, what)
        if not fit:
            # They share no id with any task: the user decides; refused where the user does not back the file.
            shown_ids = ", ".join(sorted(ev.check_ids)[:4]) or "no ids"
            by_user = decide(file_task, Evidence(users=ev.users, records=ev.records), prints)
            if by_user.kind in ("agree", "remap"):
                return by_user
            reason = by_user.evidence if by_user.kind == "refuse" else "it authenticates no user"
            return Decision("refuse", None, f"its recorded action checks ({shown_ids}) match no task and {reason}")
    elif ev.no_actions:  # the evaluator found no gold actions: one of the tasks without any
        fit, what = [p for p in prints.values() if not p.action_ids], "no recorded actions"
        if own is not None and own in fit and _user_fits(own, ev):
            return Decision("agree", file_task, what)
    elif not ev.users:
        return Decision("unverified", file_task)
    else:
        what = "authenticated user"
        if own is not None and _user_fits(own, ev) and (not own.records or not ev.records or own.records & ev.records):
            return Decision("agree", file_task, what)
        fit = [p for p in prints.values() if p.users & ev.users]
        if not fit:
            return Decision("refuse", None, f"the user it authenticates ({_users(ev)}) belongs to no task")
        decision = _narrow(fit, ev, what)
        if decision.kind == "refuse" and own is not None and own in fit:
            return Decision("agree", file_task, what)  # cannot tell better than the file
        return decision
    return _narrow(fit, ev, what)


def _user_fits(p: TaskPrint, ev: Evidence) -> bool:
    return not p.users or not ev.users or bool(p.users & ev.users)


def _users(ev: Evidence) -> str:
    return ", ".join(sorted(ev.users)[:3])


def _narrow(fit: list[TaskPrint], ev: Evidence, what: str) -> Decision:
    """One task among ``fit``: narrowed by the user, by recorded empty checks, then by the records read."""
    if len(fit) > 1 and ev.users and "user" not in what:
        by_user = [p for p in fit if p.users & ev.users]
        if by_user:
            fit, what = by_user, f"{what} and authenticated user"
    if len(fit) > 1 and ev.no_actions and "no recorded actions" not in what:
        empty = [p for p in fit if not p.action_ids]
        if empty:
            fit, what = empty, f"{what} and no recorded actions"
    if len(fit) > 1 and ev.told:
        same = [p for p in fit if p.told == ev.told]
        if same:
            fit, what = same, f"{what} and communicate checks"
    if len(fit) > 1 and ev.records:
        overlap = {p.task_id: len(p.records & ev.records) for p in fit}
        best = max(overlap.values())
        if best > 0:
            fit = [p for p in fit if overlap[p.task_id] == best]
            what = f"{what} and records read"
    if len(fit) == 1:
        return Decision("remap", fit[0].task_id, what)
    names = ", ".join(sorted((p.task_id for p in fit), key=_order)[:5])
    return Decision("refuse", None, f"its evidence ({what}) fits {len(fit)} tasks ({names}), not its own")


def _order(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (1 << 30, task_id)


class _Run(Protocol):
    path: Any
    domain: str
    task_version: str
    tasks: dict[str, Task]
    embedded_ids: frozenset[str]
    skip_bad: bool
    notes: list[str]
    identity: TaskIdentity | None

    def _raw_simulations(self) -> Iterator[object]: ...


@dataclass
class TaskIdentity:
    """A run's decisions by simulation index: the task to score against, or why it is refused.

    Decided up front (``verify_task_identity``: one more read of the file at import), or, where ``prints``
    is set, as each simulation is read for scoring (``apply``): the decision needs only that simulation's
    own evidence, so parallel workers decide their share and the caller ``merge``s what they return, and
    the note comes after the scoring (``note``). Keyed by index, so deciding or merging twice is harmless.
    """

    remapped: dict[int, str] = field(default_factory=dict)
    refused: dict[int, str] = field(default_factory=dict)
    how: dict[int, str] = field(default_factory=dict)  # a remapped index: the evidence that named its task
    checked: set[int] = field(default_factory=set)  # the indices whose evidence was read
    prints: dict[str, TaskPrint] | None = None  # set: each simulation decided as it is read
    known: frozenset[str] = frozenset()  # the task ids a file's simulation may name

    def decide(self, index: int, raw: object) -> None:
        """Decide the ``index``-th simulation from its evidence (once)."""
        if self.prints is None or index in self.checked:
            return
        tid = raw.get("task_id") if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or raw.get("_missing") or not isinstance(tid, str) or tid not in self.known:
            return  # a missing, mistyped or unknown id is bad input, named by the validation: never repaired
        self.checked.add(index)
        decision = decide(tid, evidence_of(raw), self.prints)
        if decision.kind == "remap" and decision.task_id is not None:
            self.remapped[index] = decision.task_id
            self.how[index] = decision.evidence
        elif decision.kind == "refuse":
            self.refused[index] = f"task identity: the file says task {tid!r}, but {decision.evidence}; not scored"

    def apply(self, index: int, raw: object) -> tuple[object, str | None]:
        """The raw simulation as it is scored (a remapped copy), and the refusal's reason if refused."""
        self.decide(index, raw)
        if not isinstance(raw, dict):
            return raw, None
        if index in self.refused:
            return raw, self.refused[index]
        if index in self.remapped:
            return {**raw, "task_id": self.remapped[index], FILE_TASK_ID: raw.get("task_id")}, None
        return raw, None

    def decided(self) -> TaskIdentity:
        """What was decided, without the prints (what a worker sends back)."""
        return TaskIdentity(self.remapped, self.refused, self.how, self.checked)

    def merge(self, other: TaskIdentity) -> None:
        self.remapped.update(other.remapped)
        self.refused.update(other.refused)
        self.how.update(other.how)
        self.checked |= other.checked

    def note(self, path: object) -> str | None:
        """One line for the file when any simulation disagrees: the counts and the evidence."""
        if not self.remapped and not self.refused:
            return None
        parts = []
        if self.remapped:
            how = "; ".join(f"{n} by {what}" for what, n in Counter(self.how.values()).most_common())
            parts.append(f"task ids remapped: {len(self.remapped)} of {len(self.checked)} simulations ({how})")
        if self.refused:
            parts.append(f"{len(self.refused)} refused: no task fits their evidence")
        return f"{shown(path)}: {'; '.join(parts)}; the file's ids are kept in file_task_id"


def _deciding(run: _Run) -> TaskIdentity:
    prints = {tid: task_print(task) for tid, task in run.tasks.items()}
    return TaskIdentity(prints=prints, known=frozenset(t for t in prints if not run.embedded_ids or t in run.embedded_ids))


def verify_task_identity(run: _Run, simulations: Iterable[object] | None = None) -> TaskIdentity:
    """Read every simulation's evidence once, decide each, and add one note to ``run.notes`` when any
    disagrees (the counts and the evidence)."""
    identity = _deciding(run)
    for index, raw in enumerate(simulations if simulations is not None else run._raw_simulations()):
        identity.decide(index, raw)
    identity.prints = None  # all decided
    if (line := identity.note(run.path)) is not None:
        run.notes.append(line)
    return identity


R = TypeVar("R", bound=_Run)


def checked_identity(run: R, now: bool = True) -> R:
    """``run`` with each simulation's task verified (``run.identity``): ``now``, by reading the file once
    more (one note in ``run.notes`` if any disagrees), or else as its simulations are read for scoring
    (``identity_note`` after the last)."""
    run.identity = verify_task_identity(run) if now else _deciding(run)
    return run


def identity_note(run: _Run) -> str | None:
    """The note on a run whose identity was decided as it was read (None: nothing disagreed, or the note
    was made at import)."""
    identity = run.identity
    if identity is None or identity.prints is None:
        return None
    return identity.note(run.path)


def identified(run: _Run, index: int, raw: object) -> ImportedSimulation:
    """The ``index``-th simulation as it is scored: against the task its evidence names (remapped and
    flagged), or a null-reward ``error`` row saying why no task fits. Contents written as content parts are
    read as their text first (``_content_parts``), before any evidence or validation reads them."""
    raw, parts = read_content_parts(raw)
    raw, refused = run.identity.apply(index, raw) if run.identity else (raw, None)
    if refused is not None and isinstance(raw, dict):
        return ImportedSimulation(None, raw, refused, Status.ERROR)
    item = import_simulation(run, index, raw)
    if isinstance(raw, dict) and FILE_TASK_ID in raw and item.sim is not None:
        item.flags.append(REMAPPED_FLAG)
    if parts and item.sim is not None:
        item.flags.append(CONTENT_PARTS_FLAG)
    return item
