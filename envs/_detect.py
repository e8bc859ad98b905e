"""Task-version detection: which pinned task version (tau2, tau3, verified) a results file's embedded tasks are,
or custom; and which pinned version's gold a single task carries (variants apply there)."""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from tau2.data_model.tasks import Task

from envs._data import ENV_DATA_DIR, ENV_OFFLINE, TauDataError
from envs._pinned import CUSTOM, DOMAINS, TASK_VERSIONS
from envs._tasks import load_task_set
from loophole_base import HarnessInputError, shown


def _comparable(task: Task) -> str:
    """The parts of a task that decide its gold: tau2's validated criteria and the user scenario."""
    criteria = task.evaluation_criteria
    payload = {
        "criteria": criteria.model_dump(mode="json") if criteria else None,
        "user_scenario": task.user_scenario.model_dump(mode="json"),
    }
    return json.dumps(payload, sort_keys=True)


def _gold_comparable(task: Task) -> str:
    """What decides a task's gold alone (variants apply where this equals a pinned task's)."""
    criteria = task.evaluation_criteria
    return json.dumps(criteria.model_dump(mode="json") if criteria else None, sort_keys=True)


_SHOWN = {"tau2": "τ²", "tau3": "τ³", "verified": "Verified"}


def _match_counts(
    embedded: list[Task | None], ids: list[str], domains: tuple[str, ...] = DOMAINS
) -> dict[tuple[str, str], int | None]:
    """How many embedded tasks equal the pinned task of the same id, per (domain, version) of ``domains``; None
    where that version's data is not available here (offline, not in $HARNESS_TAU_DATA): never a false 0."""
    theirs = [
        (tid, _comparable(t) if t is not None else "") for tid, t in zip(ids, embedded, strict=True)
    ]
    counts: dict[tuple[str, str], int | None] = {}
    for domain in domains:
        for version in TASK_VERSIONS:
            try:
                pinned = _pinned_comparables(domain, version)
            except TauDataError:
                counts[(domain, version)] = None  # unavailable here: detection says so
                continue
            counts[(domain, version)] = sum(1 for tid, text in theirs if pinned.get(tid) == text)
    return counts


class _PinnedComparables:
    """A pinned version's tasks' comparable form by id, each computed when first asked for and kept for the
    process: a file names a few of the ~500 pinned tasks, and dumping them all cost most of a rescore's task
    detection (#47)."""

    def __init__(self, domain: str, version: str) -> None:
        self._tasks = load_task_set(domain, version).by_id
        self._comparables: dict[str, str] = {}

    def get(self, tid: str) -> str | None:
        found = self._comparables.get(tid)
        if found is None and (task := self._tasks.get(tid)) is not None:
            found = self._comparables[tid] = _comparable(task)
        return found


@lru_cache(maxsize=8)
def _pinned_comparables(domain: str, version: str) -> _PinnedComparables:
    """The pinned tasks' comparable forms, one object per process rather than per file."""
    return _PinnedComparables(domain, version)


@lru_cache(maxsize=8)
def _pinned_golds(domain: str, version: str) -> dict[str, str]:
    return {
        tid: _gold_comparable(task) for tid, task in load_task_set(domain, version).by_id.items()
    }


def pinned_gold_version(domain: str, task: Task) -> str | None:
    """The first pinned version whose task of this id has the same gold (evaluation criteria), if any.

    A version whose data is missing here raises ``TauDataError`` rather than being skipped: which variants a
    custom task gets never depends on the machine (#42; detection already refuses a custom run without every
    version's data)."""
    mine = _gold_comparable(task)
    for version in TASK_VERSIONS:
        if _pinned_golds(domain, version).get(task.id) == mine:
            return version
    return None


_VERSION_TOKENS = {"tau2": "tau2", "τ2": "tau2", "tau3": "tau3", "τ3": "tau3", "verified": "verified"}


def version_named_by(task_set_name: str | None, domain: str) -> str | None:
    """The pinned version a tau2 task set's name identifies, or None where it identifies none.

    tau2 registers each domain's default task set under the domain's own name (``src/tau2/registry.py`` on
    main: ``airline``, ``retail``) and localized sets beside it (``airline_hi``): those name whatever tasks
    that checkout held, not a version. Only a name that carries one version's token (``airline_tau3``,
    ``tau2-bench-verified``: Verified corrects τ², so its token wins over τ²'s) and no other domain's
    name identifies one."""
    if not task_set_name:
        return None
    tokens = set(re.split(r"[^0-9a-zτ]+", task_set_name.lower()))
    if any(d in tokens for d in DOMAINS if d != domain):
        return None
    named = {_VERSION_TOKENS[t] for t in tokens if t in _VERSION_TOKENS}
    if "verified" in named:
        named.discard("tau2")
    return named.pop() if len(named) == 1 else None


def _with_task_set(version: str, note: str, task_set_name: str | None, named: str | None) -> tuple[str, str]:
    """The detection's answer, with what the run's ``info.task_set_name`` says beside it."""
    if task_set_name is None:
        return version, note
    if named is None:
        return version, f"{note}; info.task_set_name {task_set_name!r} names no pinned version"
    if named == version:
        return version, f"{note}; info.task_set_name {task_set_name!r} names {named} too"
    return version, (f"{note}; info.task_set_name {task_set_name!r} names {named}, but the embedded tasks decide "
                     "(upstream grades against them)")


def detect_task_version(
    path: Path, domain: str, embedded: list[Task | None], ids: list[str], given: str | None,
    task_set_name: str | None = None,
) -> tuple[str, str]:
    """Which task version the file's embedded tasks are; (version, how it was decided).

    Embedded tasks that match neither pinned version make a ``custom`` run, scored against them (as tau2's
    ``evaluate-trajs`` does). Also refuses a file whose embedded tasks belong to the other domain. A
    ``task_set_name`` (tau2 main's ``info.task_set_name``) that identifies a version (``version_named_by``)
    decides where the embedded tasks cannot: none embedded, or tasks several versions share; elsewhere the
    embedded tasks decide and the note says what the name says.
    """
    named = version_named_by(task_set_name, domain)
    version, note = _detect(path, domain, embedded, ids, given, named)
    return _with_task_set(version, note, task_set_name, named)


def _detect(
    path: Path, domain: str, embedded: list[Task | None], ids: list[str], given: str | None, named: str | None
) -> tuple[str, str]:
    available = _match_counts(embedded, ids, (domain,)) if embedded else {}
    if available and not any(available.values()):  # none of the file's own domain: which domain are they?
        available |= _match_counts(embedded, ids, tuple(d for d in DOMAINS if d != domain))
    # (the other domain's task sets are read only here: a file of its own domain's tasks never needs them, and
    # reading them was most of a rescore's detection, #47)
    counts = {k: c or 0 for k, c in available.items()}
    n = len(embedded)
    summary = ", ".join(
        f"{v} {counts[(domain, v)]}/{n}" if available[(domain, v)] is not None else f"{_SHOWN[v]} data not available"
        for v in TASK_VERSIONS
    ) if counts else ""
    if counts and not any(counts[(domain, v)] for v in TASK_VERSIONS):
        other = [(d, v) for (d, v), c in counts.items() if d != domain and c]
        if other:
            d, v = max(other, key=lambda k: counts[k])
            raise HarnessInputError(
                f"{shown(path)}: domain mismatch: field 'info.environment_info.domain_name' says {domain!r} "
                f"but the embedded tasks are {d} {v} tasks ({counts[(d, v)]}/{n})"
            )
    if given is not None:
        if given not in TASK_VERSIONS:
            raise HarnessInputError(
                f"--task-version: {given!r} is not one of {list(TASK_VERSIONS)}"
            )
        return given, "given by --task-version" + (
            f" (embedded tasks: {summary})" if summary else ""
        )
    if not embedded and named is not None:
        return named, "no embedded tasks; the version info.task_set_name names"
    if not embedded:
        raise HarnessInputError(
            f"{shown(path)}: field 'tasks' is missing or empty; pass --task-version"
        )
    full = [v for v in TASK_VERSIONS if counts[(domain, v)] == n]
    if len(full) == 1:
        # Many tasks are identical across versions; the decision rests on the ones that differ.
        others = [v for v in TASK_VERSIONS if v != full[0] and available[(domain, v)] is not None]
        deciding = {v: n - counts[(domain, v)] for v in others}
        told = ", ".join(f"{k} embedded tasks differ from {v}" for v, k in deciding.items())
        return full[0], f"detected from embedded tasks ({summary}" + (f"; {told})" if told else ")")
    if len(full) > 1 and named in full:
        return named, f"embedded tasks match {' and '.join(full)} ({summary}); golds identical, {named} chosen"
    if len(full) > 1:
        # Every embedded task is one these versions share: their golds are the same, the earliest is named.
        return (
            full[0],
            f"embedded tasks match {' and '.join(full)} ({summary}); golds identical, {full[0]} chosen",
        )
    missing = [v for v in TASK_VERSIONS if available[(domain, v)] is None]
    if missing:  # the file may be one of these versions: said, never guessed (nor called custom)
        files = " and ".join(f"DIR/{v}/{domain}/tasks.json" for v in missing)
        raise TauDataError(
            f"{shown(path)}: its task version cannot be told here ({summary}): "
            f"set {ENV_DATA_DIR}=DIR holding {files} (with their policy.md), or let the harness download "
            f"them into its cache once (online, {ENV_OFFLINE} unset)"
        )
    return (
        CUSTOM,
        f"custom: embedded tasks match no pinned version ({summary}); scored against them",
    )
