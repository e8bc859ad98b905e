"""Runs: a results file's header (``info``, ``tasks``), its layout (monolithic or dir), and its simulations
streamed one at a time."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from tau2.data_model.tasks import Task

from envs import CUSTOM, DOMAINS, detect_task_version, load_task_set
from loophole_base import HarnessInputError, shown
from loophole_ingest._header import check_dir_files, read_header
from loophole_ingest._identity import TaskIdentity, checked_identity, identified
from loophole_ingest._jsonstream import (
    ARRAY,
    JSONObject,
    elements,
    members,
    open_stream,
    read_json_strict,
)
from loophole_ingest._shapes import (
    LIST,
    SINGLE,
    check_reward_basis,
    count_missing,
    detect_domain,
    detect_version,
    headerless_layout,
    missing_ids_error,
    raw_simulations,
    scan,
)
from loophole_ingest._simulations import ImportedSimulation, clip, json_type


@dataclass
class ImportedRun:
    path: Path
    sha256: str
    layout: str  # monolithic | dir | list | single (the headerless shapes, loophole_ingest._shapes)
    domain: str  # the environment it is scored in: airline or retail
    recorded_domain: str  # info.environment_info.domain_name as recorded
    task_version: str  # tau2 | tau3 | verified | custom
    version_note: str
    agent_model: str | None
    agent_implementation: str | None
    user_model: str | None
    info: JSONObject
    tasks: dict[str, Task]  # the tasks it is scored against, by id
    tasks_sha256: str | None
    policy_sha256: str | None
    n_simulations: int | None  # None: not counted yet (a monolithic file is read once, while scoring)
    embedded_ids: frozenset[str] = frozenset()  # task ids embedded in the file (empty: none embedded)
    skip_bad: bool = False
    notes: list[str] = field(default_factory=list)  # said once per file (how a headerless shape was read)
    _index: list[JSONObject] = field(default_factory=list, repr=False)  # dir layout: simulation_index
    # Set on a copy scored against another version's golds (``against_version``): the version it was recorded on.
    recorded_version: str | None = None
    identity: TaskIdentity | None = None  # each simulation's task checked against its evidence (_identity)
    task_set_name: str | None = None  # info.task_set_name (tau2 main): the registered task set it ran

    @property
    def run_id(self) -> str:
        suffix = f"@{self.task_version}" if self.recorded_version is not None else ""
        return self.sha256[:16] + suffix

    def against_version(self, version: str) -> ImportedRun:
        """This run scored against ``version``'s pinned golds, for the tasks both have; its rows are marked
        (run_id ``…@version``, flag ``against_version``) and carry no recorded reward (that was another gold's)."""
        from dataclasses import replace

        from envs import load_task_set

        pinned = load_task_set(self.domain, version).by_id
        note = (f"{shown(self.path)}: recorded on {self.task_version}, also scored against {version}'s golds "
                f"({len(set(self.tasks) & set(pinned))} of its {len(self.tasks)} tasks exist in both)")
        return replace(self, task_version=version, recorded_version=self.task_version,
                       tasks={t: pinned[t] for t in self.tasks if t in pinned}, notes=[note],
                       version_note=f"scored against {version} (recorded on {self.task_version})")

    @property
    def simulations(self) -> list[ImportedSimulation]:
        """Every simulation, read now (small files and tests; scoring streams ``iter_simulations``)."""
        return list(self.iter_simulations())

    def iter_simulations(self) -> Iterator[ImportedSimulation]:
        """Each simulation validated, one at a time; a bad one raises unless the run skips bad ones."""
        for index, raw in enumerate(self._raw_simulations()):
            if not self.skip_bad and isinstance(raw, dict) and any(raw.get(f) is None for f in ("task_id", "termination_reason")):
                where = shown(self.path / "results.json" if self.layout == "dir" else self.path)
                raise missing_ids_error(where, *count_missing(self._raw_simulations()))
            yield identified(self, index, raw)

    def _raw_simulations(self) -> Iterator[object]:
        if self.layout in (LIST, SINGLE):
            yield from raw_simulations(self.path, self.layout)
            return
        if self.layout == "dir":
            folder = self.path / "simulations"
            for entry in self._index:
                sim_id = str(entry.get("id"))
                file = folder / f"{sim_id}.json"
                if not file.is_file():  # only with --skip-bad: the check at import refused it otherwise
                    yield {"id": sim_id, "task_id": entry.get("task_id"), "_missing": True}
                    continue
                value, _ = read_json_strict(file, "the simulation")
                yield value
            return
        stream = open_stream(self.path)
        seen: set[str] = set()
        count = 0
        try:
            for key, value in members(stream):
                if key in seen:  # e.g. a trailing "simulations": [] that would silently drop every one
                    raise stream.error(f"not valid JSON: duplicate key {key!r} at the top level")
                seen.add(key)
                if key == "simulations" and value is ARRAY:
                    for element in elements(stream, "simulations"):
                        count += 1
                        yield element
            stream.finish()
        finally:
            stream.close()
        if count == 0:
            raise HarnessInputError(
                f"{shown(self.path)}: field 'simulations' is empty: nothing to rescore"
            )


def _model(where: str, info: JSONObject, key: str) -> tuple[str | None, str | None]:
    section = info.get(key)
    if section is None:
        return None, None
    if not isinstance(section, dict):
        raise HarnessInputError(
            f"{where}: field 'info.{key}': expected an object, got {json_type(section)}"
        )
    out: list[str | None] = []
    for name in ("llm", "implementation"):
        value = section.get(name)
        if value is not None and not isinstance(value, str):
            raise HarnessInputError(
                f"{where}: field 'info.{key}.{name}': expected a string, got {json_type(value)} {clip(value)}"
            )
        out.append(value)
    return out[0], out[1]


def _sha256_json(value: object) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _environment_domain(path: Path, recorded: object, given_domain: str | None) -> str:
    if isinstance(recorded, str):
        for domain in DOMAINS:
            if recorded == domain or recorded.startswith(domain):
                if given_domain is not None and given_domain != domain and recorded == domain:
                    raise HarnessInputError(
                        f"--domain: {given_domain!r} but {shown(path)} records domain {recorded!r}"
                    )
                return domain
    if given_domain is not None:
        if given_domain not in DOMAINS:
            raise HarnessInputError(f"--domain: {given_domain!r} is not one of {list(DOMAINS)}")
        return given_domain
    raise HarnessInputError(
        f"{shown(path)}: field 'info.environment_info.domain_name' is {recorded!r}, not a known domain; "
        f"pass --domain {'|'.join(DOMAINS)} for a custom run of one of them"
    )


def _embedded_tasks(where: str, raw_tasks: list[Any]) -> tuple[list[Task | None], list[str]]:
    """The file's tasks, validated by tau2's model where they can be (None where not), and their ids."""
    tasks: list[Task | None] = []
    ids: list[str] = []
    for i, item in enumerate(raw_tasks):
        if not isinstance(item, dict):
            raise HarnessInputError(f"{where}: field 'tasks[{i}]' is not an object")
        ids.append(str(item.get("id")))
        try:
            tasks.append(Task.model_validate(item))
        except ValidationError:
            tasks.append(None)  # not a pinned task; an error only if it is scored against (custom)
    if len(set(ids)) != len(ids):
        dup = next(i for n, i in enumerate(ids) if i in ids[:n])
        raise HarnessInputError(f"{where}: field 'tasks': duplicate task id {dup!r}")
    return tasks, ids


def _custom_tasks(
    where: str, raw_tasks: list[Any], tasks: list[Task | None], ids: list[str]
) -> dict[str, Task]:
    """A custom run's tasks by id; each must pass tau2's model (the first that does not is named)."""
    for i, (tid, task) in enumerate(zip(ids, tasks, strict=True)):
        if task is None:
            try:
                Task.model_validate(raw_tasks[i])
            except ValidationError as exc:
                first = exc.errors()[0]
                loc = ".".join(map(str, first["loc"]))
                raise HarnessInputError(
                    f"{where}: field 'tasks[{i}].{loc}' (task {tid!r}): {first['msg']}"
                ) from None
    return {t.id: t for t in tasks if t is not None}


def import_results_file(path: Path, task_version: str | None = None, skip_bad: bool = False,
                        domain: str | None = None, verify_identity: bool = True) -> ImportedRun:
    """Read one results file's metadata and check every simulation parses; simulations are validated
    as they are streamed (``ImportedRun.iter_simulations``). Raises ``HarnessInputError`` on bad input.
    ``verify_identity``: tasks checked against evidence now (one more read) or as scored (``checked_identity``)."""
    path = Path(path)
    data, count, sha, layout, index = read_header(path)
    where = shown(path / "results.json" if layout == "dir" else path)
    if layout == LIST or (layout == "monolithic" and headerless_layout("{", data) == SINGLE):
        headerless = _import_headerless(path, LIST if layout == LIST else SINGLE, sha, task_version, skip_bad, domain)
        return checked_identity(headerless, verify_identity)
    if isinstance(data.get("tasks"), list):
        check_reward_basis(where, data["tasks"])
    if "info" not in data:
        raise HarnessInputError(f"{where}: missing field 'info' (not a tau2 run results file?)")
    if layout == "monolithic" and "simulations" not in data:
        raise HarnessInputError(
            f"{where}: missing field 'simulations' (not a tau2 run results file?)"
        )
    if layout == "monolithic" and not isinstance(data.get("simulations"), list):
        raise HarnessInputError(f"{where}: field 'simulations' is not a list")
    info = data["info"]
    if not isinstance(info, dict):
        raise HarnessInputError(f"{where}: field 'info' is not an object")
    env_info = info.get("environment_info")
    if env_info is not None and not isinstance(env_info, dict):
        raise HarnessInputError(
            f"{where}: field 'info.environment_info': expected an object, got {json_type(env_info)}"
        )
    env_info = env_info or {}
    recorded_domain = env_info.get("domain_name")
    env_domain = _environment_domain(path, recorded_domain, domain)
    policy = env_info.get("policy")
    raw_tasks = data.get("tasks") or []
    if not isinstance(raw_tasks, list):
        raise HarnessInputError(f"{where}: field 'tasks' is not a list")
    tasks, ids = _embedded_tasks(where, raw_tasks)
    task_set = info.get("task_set_name")
    if task_set is not None and not isinstance(task_set, str):
        raise HarnessInputError(
            f"{where}: field 'info.task_set_name': expected a string, got {json_type(task_set)} {clip(task_set)}"
        )
    version, note = detect_task_version(path, env_domain, tasks, ids, task_version, task_set)
    if version == CUSTOM:
        by_id = _custom_tasks(where, raw_tasks, tasks, ids)
    else:
        by_id = dict(load_task_set(env_domain, version).by_id)
    if count == 0:
        raise HarnessInputError(f"{where}: field 'simulations' is empty: nothing to rescore")
    if layout == "dir":
        check_dir_files(path, index, skip_bad)
    agent_model, agent_impl = _model(where, info, "agent_info")
    user_model, _ = _model(where, info, "user_info")
    return checked_identity(ImportedRun(
        path=path,
        sha256=sha,
        layout=layout,
        domain=env_domain,
        recorded_domain=str(recorded_domain) if recorded_domain is not None else env_domain,
        task_version=version,
        version_note=note,
        agent_model=agent_model,
        agent_implementation=agent_impl,
        user_model=user_model,
        info=info,
        tasks=by_id,
        tasks_sha256=_sha256_json(raw_tasks) if raw_tasks else None,
        policy_sha256=hashlib.sha256(policy.encode("utf-8", "surrogatepass")).hexdigest()
        if isinstance(policy, str)
        else None,
        n_simulations=count,
        embedded_ids=frozenset(ids),
        skip_bad=skip_bad,
        _index=index,
        task_set_name=task_set,
    ), verify_identity)


def _import_headerless(
    path: Path, layout: str, sha: str, task_version: str | None, skip_bad: bool, domain: str | None
) -> ImportedRun:
    """A bare list of simulations or one simulation: no info, no tasks; scored against the pinned tasks."""
    found = scan(path, layout)
    if any(found.missing.values()) and not skip_bad:
        raise missing_ids_error(shown(path), found.missing, found.n)
    env_domain, domain_note = detect_domain(shown(path), found, domain)
    version, version_note = detect_version(shown(path), env_domain, found, task_version)
    return ImportedRun(
        path=path,
        sha256=sha,
        layout=layout,
        domain=env_domain,
        recorded_domain=env_domain,
        task_version=version,
        version_note=f"{version_note}; {domain_note}",
        agent_model=None,
        agent_implementation=None,
        user_model=None,
        info={},
        tasks=dict(load_task_set(env_domain, version).by_id),
        tasks_sha256=None,
        policy_sha256=None,
        n_simulations=found.n,
        skip_bad=skip_bad,
        notes=[
            f"{shown(path)}: no 'info' or 'tasks' ({'a list of simulations' if layout == LIST else 'one simulation'}): "
            f"scored against the pinned {env_domain} {version} tasks; {version_note}; {domain_note}"
        ],
    )
