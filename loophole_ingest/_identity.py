"""Task identity, verified per simulation: does the task a simulation names fit the evidence the file holds?

Evidence, strongest first: the recorded action checks (``reward_info.action_checks``: their action ids,
compared with each task's own action ids, never with the task number — tau2's retail tasks 95–113 carry
ids offset by one; failing that their names and arguments), the user the conversation authenticates
(``user_id``/``email`` arguments, the id a ``find_user_id_*`` call returns), and the order or reservation
ids the agent reads. Where the file's task fits, nothing changes; where another task fits uniquely, the
simulation is remapped to it (its ``task_id`` rewritten, the file's kept as ``_file_task_id`` and flagged
``task_id_remapped``); where none fits, or several do and the file's is not among them, it is refused with
a reason (a null-reward ``error`` row), unless it recorded no actions and every task it may be gives it the same
reward (``_unproved``: scored against the file's task, as upstream scores it). One ``note:`` per file names
the counts and the evidence; the evidence itself is read in ``_task_evidence``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from tau2.data_model.tasks import Task

from loophole_base import shown
from loophole_ingest._content_parts import CONTENT_PARTS_FLAG, read_content_parts
from loophole_ingest._simulations import ImportedSimulation, import_simulation
from loophole_ingest._task_evidence import Evidence, TaskPrint, evidence_of, task_print
from loophole_ingest._unproved import UNPROVED_FLAG, agreement, candidate_rewards
from loophole_scoring import Status

REMAPPED_FLAG = "task_id_remapped"
FILE_TASK_ID = "_file_task_id"  # the raw simulation's key holding the file's own task id after a remap


@dataclass
class Decision:
    kind: str  # agree | unverified | remap | refuse
    task_id: str | None = None  # the task it is scored against (remap: the new one)
    evidence: str = ""  # which evidence decided (for the note and the refusal's reason)
    # a refusal of a simulation without recorded actions: the tasks its evidence cannot tell apart (with the
    # file's own); where all give it the same reward it is scored as upstream scores it (``_unproved``)
    candidates: tuple[str, ...] = ()


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
        decision = _narrow(fit, ev, what, own)
        if decision.kind == "refuse" and file_task and file_task not in decision.candidates:
            # upstream scores it against the file's task: that one must agree with the candidates too
            decision.candidates = (*decision.candidates, file_task)
        return decision
    elif not ev.users:
        return Decision("unverified", file_task)
    else:
        what = "authenticated user"
        if own is not None and _user_fits(own, ev) and (not own.records or not ev.records or own.records & ev.records):
            return Decision("agree", file_task, what)
        fit = [p for p in prints.values() if p.users & ev.users]
        if not fit:
            return Decision("refuse", None, f"the user it authenticates ({_users(ev)}) belongs to no task")
        decision = _narrow(fit, ev, what, own)
        if decision.kind == "refuse" and own is not None and own in fit:
            return Decision("agree", file_task, what)  # cannot tell better than the file
        return decision
    return _narrow(fit, ev, what, own)


def _user_fits(p: TaskPrint, ev: Evidence) -> bool:
    return not p.users or not ev.users or bool(p.users & ev.users)


def _users(ev: Evidence) -> str:
    return ", ".join(sorted(ev.users)[:3])


def _narrow(fit: list[TaskPrint], ev: Evidence, what: str, own: TaskPrint | None = None) -> Decision:
    """One task among ``fit``: narrowed by the user, by recorded empty checks, then by the records read;
    else a refusal that says where the file's own task (``own``) stands among those left."""
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
    ids = sorted((p.task_id for p in fit), key=_order)
    names = ", ".join(ids[:5]) + (", …" if len(ids) > 5 else "")
    if own is None or own not in fit:
        where = "none of them its own"
    elif ev.users and not any(p.users & ev.users for p in fit):
        where = f"its own among them, but the user it authenticates ({_users(ev)}) is none of theirs"
    else:
        where = "its own among them, and nothing tells them apart"
    return Decision("refuse", None, f"its evidence ({what}) fits {len(fit)} tasks ({names}), {where}", tuple(ids))


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
    # a refused index without recorded actions: the candidate tasks (``_unproved``); and one scored against the
    # file's task all the same, since every candidate gives it the same reward: the candidates, shown
    ambiguous: dict[int, tuple[str, ...]] = field(default_factory=dict)
    unproved: dict[int, str] = field(default_factory=dict)

    def decide(self, index: int, raw: object) -> None:
        """Decide the ``index``-th simulation from its evidence (once)."""
        if self.prints is None or index in self.checked:
            return
        tid = raw.get("task_id") if isinstance(raw, dict) else None
        if not isinstance(raw, dict) or raw.get("_missing") or not isinstance(tid, str) or tid not in self.known:
            return  # a missing, mistyped or unknown id is bad input, named by the validation: never repaired
        self.checked.add(index)
        ev = evidence_of(raw)
        decision = decide(tid, ev, self.prints)
        if decision.kind == "remap" and decision.task_id is not None:
            self.remapped[index] = decision.task_id
            self.how[index] = decision.evidence
        elif decision.kind == "refuse":
            self.refused[index] = f"task identity: the file says task {tid!r}, but {decision.evidence}; not scored"
            if ev.no_actions and not ev.check_actions and decision.candidates:
                self.ambiguous[index] = decision.candidates

    def accept_unproved(self, index: int) -> None:
        """Score a refused simulation against its file's task: every candidate gives it the same reward."""
        self.refused.pop(index, None)
        self.unproved[index] = ", ".join(self.ambiguous.pop(index, ()))

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
        return TaskIdentity(self.remapped, self.refused, self.how, self.checked, ambiguous=self.ambiguous,
                            unproved=self.unproved)

    def merge(self, other: TaskIdentity) -> None:
        self.remapped.update(other.remapped)
        self.refused.update(other.refused)
        self.how.update(other.how)
        self.checked |= other.checked
        self.unproved.update(other.unproved)
        for index in self.unproved:
            self.refused.pop(index, None)

    def note(self, path: object) -> str | None:
        """One line for the file when any simulation disagrees: the counts and the evidence."""
        if not self.remapped and not self.refused and not self.unproved:
            return None
        parts = []
        if self.remapped:
            how = "; ".join(f"{n} by {what}" for what, n in Counter(self.how.values()).most_common())
            parts.append(f"task ids remapped: {len(self.remapped)} of {len(self.checked)} simulations ({how})")
        if self.refused:
            parts.append(f"{len(self.refused)} refused: their evidence names no task that can be scored "
                         "(each row's reason says why)")
        if self.unproved:
            parts.append(f"{len(self.unproved)} without recorded actions scored against the file's task, as upstream "
                         "scores them: their evidence fits several tasks, and each gives the same reward "
                         "(flagged task_id_unproved)")
        kept = "; the file's ids are kept in file_task_id" if self.remapped else ""
        return f"{shown(path)}: {'; '.join(parts)}{kept}"


def _deciding(run: _Run) -> TaskIdentity:
    prints = {tid: task_print(task) for tid, task in run.tasks.items()}
    return TaskIdentity(prints=prints, known=frozenset(t for t in prints if not run.embedded_ids or t in run.embedded_ids))


def verify_task_identity(run: _Run, simulations: Iterable[object] | None = None) -> TaskIdentity:
    """Read every simulation's evidence once, decide each, and add one note to ``run.notes`` when any
    disagrees (the counts and the evidence)."""
    identity = _deciding(run)
    for index, raw in enumerate(simulations if simulations is not None else run._raw_simulations()):
        identity.decide(index, read_content_parts(raw)[0])  # as ``identified`` reads it
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
    identity = run.identity
    raw, refused = identity.apply(index, raw) if identity else (raw, None)
    unproved = False
    if refused is not None and isinstance(raw, dict):
        if identity is None or index not in identity.ambiguous:
            return ImportedSimulation(None, raw, refused, Status.ERROR)
        item = import_simulation(run, index, raw)  # against the file's task, as upstream scores it
        if item.sim is None:
            return item  # bad input: its own reason is the stronger one
        why = agreement(candidate_rewards(run, item, identity.ambiguous[index]))
        if why is not None:
            return ImportedSimulation(None, raw, f"{refused.removesuffix('; not scored')}; {why}; not scored",
                                      Status.ERROR)
        identity.accept_unproved(index)
        unproved = True
    else:
        item = import_simulation(run, index, raw)
    if isinstance(raw, dict) and FILE_TASK_ID in raw and item.sim is not None:
        item.flags.append(REMAPPED_FLAG)
    if parts and item.sim is not None:
        item.flags.append(CONTENT_PARTS_FLAG)
    if unproved:
        item.flags.append(UNPROVED_FLAG)
    return item
