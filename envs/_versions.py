"""Compare two task versions of one domain (any pair of tau2, tau3, verified): which tasks changed, in which fields."""

from __future__ import annotations

import json
from dataclasses import dataclass

from envs._data import TauDataError, resolve_file, sha256_file
from envs._pinned import Domain, pinned_sha256
from envs._tasks import TaskSet, load_task_set

# The fields compared by name. Any other field (tau3 retail added ``issues`` notes to some tasks)
# is compared too and reported under its own name. tau3 added ``reward_basis`` to every task,
# restating tau2's default for airline, so it is deliberately left out.
DIFF_FIELDS: tuple[str, ...] = (
    "user_scenario",
    "actions",
    "nl_assertions",
    "communicate_info",
    "description",
)
_CRITERIA_FIELDS = ("actions", "nl_assertions", "communicate_info", "env_assertions")
_IGNORED = {"id", "evaluation_criteria", "reward_basis"}


@dataclass(frozen=True)
class FieldDiff:
    domain: str
    task_id: str
    field: str
    changed: bool
    old: str | None  # canonical JSON of the field in the old version (None: task absent)
    new: str | None


@dataclass(frozen=True)
class FileCheck:
    name: str
    identical: bool
    detail: str


@dataclass(frozen=True)
class VersionDiff:
    domain: str
    old_version: str
    new_version: str
    n_old: int
    n_new: int
    rows: list[FieldDiff]
    files: list[FileCheck]

    @property
    def changed_ids(self) -> list[str]:
        ids = {r.task_id for r in self.rows if r.changed}
        return sorted(ids, key=_id_key)

    def fields(self) -> list[str]:
        return list(dict.fromkeys(r.field for r in self.rows))

    def changed_ids_by_field(self) -> dict[str, list[str]]:
        return {
            f: sorted({r.task_id for r in self.rows if r.changed and r.field == f}, key=_id_key)
            for f in self.fields()
        }


def _id_key(task_id: str) -> tuple[int, str]:
    return (int(task_id), "") if task_id.isdigit() else (1 << 30, task_id)


def _field_names(old: TaskSet, new: TaskSet) -> list[str]:
    names = list(DIFF_FIELDS)
    for task in (*old.raw_tasks, *new.raw_tasks):
        keys = [*task.keys(), *(task.get("evaluation_criteria") or {}).keys()]
        names += [k for k in keys if k not in _IGNORED and k not in names]
    return names


def _field_value(task: dict, name: str) -> object:
    if name in _CRITERIA_FIELDS:
        value = (task.get("evaluation_criteria") or {}).get(name)
    else:
        value = task.get(name)
    # Missing and empty mean the same to tau2's evaluator.
    return value if value not in (None, [], {}) else None


def _canonical(value: object) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, ensure_ascii=False)


def _file_checks(domain: Domain, old: TaskSet, new: TaskSet) -> list[FileCheck]:
    checks = []
    a, b = sha256_file(old.policy_path), sha256_file(new.policy_path)
    checks.append(
        FileCheck("policy.md", a == b, f"{old.version} {a[:12]}… vs {new.version} {b[:12]}…")
    )
    hashes = []
    for version in (old.version, new.version):
        if version == "tau2":
            hashes.append((sha256_file(resolve_file("tau2", domain, "db.json")), "tau2 package"))
            continue
        try:
            hashes.append((sha256_file(resolve_file(version, domain, "db.json", allow_download=False)), f"{version} file"))
        except TauDataError:
            # tau3's and Verified's commits ship the same db.json blob; without a local copy compare the pins.
            hashes.append((pinned_sha256(version, domain, "db.json"), f"{version} pin"))
    (a_db, how_a), (b_db, how_b) = hashes
    checks.append(FileCheck("db.json", a_db == b_db, f"{how_a} {a_db[:12]}… vs {how_b} {b_db[:12]}…"))
    return checks


def diff_versions(domain: str, old_version: str = "tau2", new_version: str = "tau3") -> VersionDiff:
    old = load_task_set(domain, old_version)
    new = load_task_set(domain, new_version)
    old_by_id = {str(t["id"]): t for t in old.raw_tasks}
    new_by_id = {str(t["id"]): t for t in new.raw_tasks}
    rows: list[FieldDiff] = []
    names = _field_names(old, new)
    for task_id in sorted(old_by_id.keys() | new_by_id.keys(), key=_id_key):
        o, n = old_by_id.get(task_id), new_by_id.get(task_id)
        for name in names:
            ov = _canonical(_field_value(o, name)) if o is not None else None
            nv = _canonical(_field_value(n, name)) if n is not None else None
            changed = (o is None) != (n is None) or ov != nv
            rows.append(FieldDiff(domain, task_id, name, changed, ov, nv))
    return VersionDiff(
        domain=domain,
        old_version=old_version,
        new_version=new_version,
        n_old=len(old.tasks),
        n_new=len(new.tasks),
        rows=rows,
        files=_file_checks(old.domain, old, new),
    )
