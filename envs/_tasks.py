"""Task versions: a domain at a task version gives tau2 ``Task`` objects, the policy and an environment."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError
from tau2.data_model.tasks import Task
from tau2.environment.environment import Environment

from envs._data import TauDataError, UnknownTaskError, resolve_file
from envs._db import load_db
from envs._pinned import DOMAINS, TASK_VERSIONS, DataFile, Domain, TaskVersion, pinned_sha256
from loophole_base import gc_paused


@dataclass(frozen=True)
class TaskRef:
    """One task of one domain at one task version: the key of every row and cache."""

    domain: Domain
    version: TaskVersion
    task_id: str


@dataclass(frozen=True, eq=False)
class TaskSet:
    """The tasks and policy of one domain at one task version."""

    domain: Domain
    version: TaskVersion
    tasks_path: Path
    policy_path: Path
    tasks: tuple[Task, ...]
    policy: str
    raw_tasks: tuple[dict, ...] = field(repr=False, default=())
    by_id: dict[str, Task] = field(repr=False, init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "by_id", {t.id: t for t in self.tasks})

    def task_ids(self) -> list[str]:
        return [t.id for t in self.tasks]

    def task(self, task_id: str) -> Task:
        if task_id not in self.by_id:
            raise UnknownTaskError(
                f"unknown task id {task_id!r} for {self.domain} {self.version} "
                f"({len(self.tasks)} tasks, ids {self.tasks[0].id}…{self.tasks[-1].id})"
            )
        return self.by_id[task_id]

    def environment_constructor(self) -> Callable[..., Environment]:
        return environment_constructor(self.domain, self.policy)


def check_domain(domain: str) -> Domain:
    if domain not in DOMAINS:
        raise TauDataError(f"unknown domain {domain!r}; expected one of {list(DOMAINS)}")
    return domain


def check_version(version: str) -> TaskVersion:
    if version not in TASK_VERSIONS:
        raise TauDataError(f"unknown task version {version!r}; expected one of {list(TASK_VERSIONS)}")
    return version


# (domain, version) -> the bytes of tasks.json and policy.md, handed over in memory (a cluster worker
# gets its driver's; see harness/cluster.py): used instead of any file, checked against the same pins.
_PROVIDED: dict[tuple[str, str], tuple[bytes, bytes]] = {}


def provide_task_data(domain: str, version: str, tasks_json: bytes, policy_md: bytes) -> None:
    """Serve ``load_task_set(domain, version)`` from these bytes, not from disk (verified against the pins)."""
    import hashlib

    files: tuple[tuple[DataFile, bytes], ...] = (("tasks.json", tasks_json), ("policy.md", policy_md))
    for name, payload in files:
        pinned = pinned_sha256(check_version(version), check_domain(domain), name)
        if hashlib.sha256(payload).hexdigest() != pinned:
            raise TauDataError(f"{version} {domain}/{name} handed over in memory does not match its pin")
    _PROVIDED[(domain, version)] = (tasks_json, policy_md)
    _load.cache_clear()


@lru_cache(maxsize=16)
def _load(domain: Domain, version: TaskVersion, tasks_file: str | None, policy_file: str | None) -> TaskSet:
    provided = _PROVIDED.get((domain, version)) if tasks_file is None and policy_file is None else None
    if provided is not None:
        tasks_path = Path(f"<in memory>/{version}/{domain}/tasks.json")
        policy_path = tasks_path.with_name("policy.md")
        tasks_text, policy_text = (b.decode("utf-8") for b in provided)
    else:
        tasks_path = resolve_file(version, domain, "tasks.json", tasks_file)
        policy_path = resolve_file(version, domain, "policy.md", policy_file)
        tasks_text = tasks_path.read_text(encoding="utf-8")
        policy_text = policy_path.read_text(encoding="utf-8")
    raw = json.loads(tasks_text)
    tasks = []
    for item in raw:
        try:
            tasks.append(Task.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            raise TauDataError(
                f"{tasks_path}: task {item.get('id')!r} is not a valid tau2 Task "
                f"({'.'.join(map(str, first['loc']))}: {first['msg']})"
            ) from None
    return TaskSet(
        domain=domain,
        version=version,
        tasks_path=tasks_path,
        policy_path=policy_path,
        tasks=tuple(tasks),
        policy=policy_text,
        raw_tasks=tuple(raw),
    )


def load_task_set(
    domain: str,
    version: str,
    tasks_file: str | Path | None = None,
    policy_file: str | Path | None = None,
) -> TaskSet:
    """Load one domain at one task version (``tau2``, ``tau3`` or ``verified``), checked against its pins."""
    return _load(
        check_domain(domain),
        check_version(version),
        None if tasks_file is None else str(tasks_file),
        None if policy_file is None else str(policy_file),
    )




def environment_constructor(domain: str, policy: str | None = None) -> Callable[..., Environment]:
    """A constructor for tau2's real environment of ``domain``; ``policy`` overrides the policy text."""
    check_domain(domain)
    if domain == "airline":
        from tau2.domains.airline.environment import get_environment
    else:
        from tau2.domains.retail.environment import get_environment

    def make(db=None, solo_mode: bool = False) -> Environment:
        with gc_paused():  # reading db.json builds ~10^5 objects; collections during it cost more than the read
            # tau2's own load, decoded faster (``envs._db``); a solo-mode refusal comes from tau2 as before
            env = get_environment(db=load_db(domain) if db is None and not solo_mode else db, solo_mode=solo_mode)
        if policy is not None:
            env.policy = policy
        return env

    return make
