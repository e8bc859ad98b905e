"""Read ``tau2 run`` results files: a JSON object with ``info``, ``tasks`` and ``simulations``.

Files are untrusted data: they are parsed with ``json`` and validated with tau2's pydantic models.
Fields that newer tau2 versions add (speech, review, ticks, …) are ignored; fields older versions lack
take tau2's defaults.
"""

from __future__ import annotations

import glob
import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pydantic import ValidationError
from tau2.data_model.simulation import SimulationRun
from tau2.data_model.tasks import Task

from envs import DOMAINS, TASK_VERSIONS, TaskSet, TauDataError, load_task_set
from harness.errors import HarnessInputError


@dataclass
class ImportedSimulation:
    sim: SimulationRun | None  # None when the simulation is bad and --skip-bad kept it as an error row
    raw: dict
    error: str | None = None

    @property
    def simulation_id(self) -> str:
        return str(self.raw.get("id", "?"))


@dataclass
class ImportedRun:
    path: Path
    sha256: str
    domain: str
    task_version: str
    version_note: str
    agent_model: str | None
    agent_implementation: str | None
    user_model: str | None
    info: dict
    simulations: list[ImportedSimulation] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return self.sha256[:16]


def expand_paths(paths: list[str]) -> list[Path]:
    """Files, directories (their ``*.json``) and globs, in a stable order without repeats."""
    found: list[Path] = []
    for spec in paths:
        p = Path(spec)
        if p.is_dir():
            found += sorted(p.glob("*.json"))
        elif p.is_file():
            found.append(p)
        else:
            matches = sorted(Path(m) for m in glob.glob(spec, recursive=True))
            if not matches:
                raise HarnessInputError(f"{spec}: no such file, directory or glob match")
            found += [m for m in matches if m.is_file()]
    unique = list(dict.fromkeys(p.resolve() for p in found))
    if not unique:
        raise HarnessInputError(f"{' '.join(paths)}: no results files found")
    return unique


def _comparable(task: Task) -> str:
    """The parts of a task that decide its gold: tau2's validated criteria and the user scenario."""
    criteria = task.evaluation_criteria
    payload = {
        "criteria": criteria.model_dump(mode="json") if criteria else None,
        "user_scenario": task.user_scenario.model_dump(mode="json"),
    }
    return json.dumps(payload, sort_keys=True)


def _match_counts(embedded: list[dict]) -> dict[tuple[str, str], int]:
    """How many embedded tasks equal the pinned task of the same id, per (domain, version)."""
    theirs: list[tuple[str, str]] = []
    for item in embedded:
        try:
            theirs.append((str(item.get("id")), _comparable(Task.model_validate(item))))
        except (ValidationError, AttributeError):
            theirs.append((str(item.get("id") if isinstance(item, dict) else None), ""))
    counts = {}
    for domain in DOMAINS:
        for version in TASK_VERSIONS:
            try:
                pinned = _pinned_comparables(domain, version)
            except TauDataError:
                counts[(domain, version)] = 0  # unavailable here; detection says so if it matters
                continue
            counts[(domain, version)] = sum(1 for tid, text in theirs if pinned.get(tid) == text)
    return counts


@lru_cache(maxsize=8)
def _pinned_comparables(domain: str, version: str) -> dict[str, str]:
    """The pinned tasks' comparable form, computed once per process rather than once per file."""
    return {tid: _comparable(task) for tid, task in load_task_set(domain, version).by_id.items()}


def detect_task_version(path: Path, domain: str, embedded: list[dict], given: str | None) -> tuple[str, str]:
    """Which pinned task version the file's embedded tasks are; (version, how it was decided).

    Also refuses a file whose embedded tasks belong to the other domain (a domain mismatch).
    """
    counts = _match_counts(embedded) if embedded else {}
    n = len(embedded)
    summary = ", ".join(f"{v} {counts[(domain, v)]}/{n}" for v in TASK_VERSIONS) if counts else ""
    if counts and not any(counts[(domain, v)] for v in TASK_VERSIONS):
        other = [(d, v) for (d, v), c in counts.items() if d != domain and c]
        if other:
            d, v = max(other, key=lambda k: counts[k])
            raise HarnessInputError(
                f"{path}: domain mismatch: field 'info.environment_info.domain_name' says {domain!r} "
                f"but the embedded tasks are {d} {v} tasks ({counts[(d, v)]}/{n})"
            )
    if given is not None:
        if given not in TASK_VERSIONS:
            raise HarnessInputError(f"--task-version: {given!r} is not one of {list(TASK_VERSIONS)}")
        return given, "given by --task-version" + (f" (embedded tasks: {summary})" if summary else "")
    if not embedded:
        raise HarnessInputError(f"{path}: field 'tasks' is missing or empty; pass --task-version")
    full = [v for v in TASK_VERSIONS if counts[(domain, v)] == n]
    if len(full) == 1:
        return full[0], f"detected from embedded tasks ({summary})"
    if len(full) > 1:
        # Every embedded task is one that tau3 left unchanged: the golds are the same.
        return "tau2", f"embedded tasks match both versions ({summary}); golds identical, tau2 chosen"
    load_task_set(domain, "tau3")  # if tau3 data is missing, say that rather than "no match"
    raise HarnessInputError(
        f"{path}: field 'tasks' matches neither pinned task version ({summary}); pass --task-version"
    )


def _read_json(path: Path) -> tuple[dict, str]:
    try:
        payload = path.read_bytes()
    except OSError as exc:
        raise HarnessInputError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        data = json.loads(payload)
    except json.JSONDecodeError as exc:
        hint = " (truncated file?)" if exc.pos >= len(payload.rstrip()) - 1 else ""
        raise HarnessInputError(
            f"{path}: not valid JSON{hint}: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    if not isinstance(data, dict):
        raise HarnessInputError(f"{path}: expected a JSON object with 'info', 'tasks' and 'simulations'")
    return data, hashlib.sha256(payload).hexdigest()


def _model(info: dict, key: str) -> tuple[str | None, str | None]:
    section = info.get(key) or {}
    if not isinstance(section, dict):
        return None, None
    return section.get("llm"), section.get("implementation")


def import_results_file(path: Path, task_version: str | None = None, skip_bad: bool = False) -> ImportedRun:
    """Read and validate one results file completely; raises ``HarnessInputError`` on bad input."""
    data, sha = _read_json(path)
    for key in ("info", "simulations"):
        if key not in data:
            raise HarnessInputError(f"{path}: missing field '{key}' (not a tau2 run results file?)")
    info = data["info"] if isinstance(data["info"], dict) else {}
    domain = ((info.get("environment_info") or {}).get("domain_name")) if info else None
    if domain not in DOMAINS:
        raise HarnessInputError(
            f"{path}: field 'info.environment_info.domain_name' is {domain!r}; expected one of {list(DOMAINS)}"
        )
    if not isinstance(data["simulations"], list):
        raise HarnessInputError(f"{path}: field 'simulations' is not a list")
    embedded = data.get("tasks") or []
    if not isinstance(embedded, list):
        raise HarnessInputError(f"{path}: field 'tasks' is not a list")
    version, note = detect_task_version(path, domain, embedded, task_version)
    task_set = load_task_set(domain, version)
    agent_model, agent_impl = _model(info, "agent_info")
    user_model, _ = _model(info, "user_info")
    run = ImportedRun(path, sha, domain, version, note, agent_model, agent_impl, user_model, info)
    for index, raw in enumerate(data["simulations"]):
        run.simulations.append(_import_simulation(path, index, raw, task_set, skip_bad))
    return run


def _import_simulation(
    path: Path, index: int, raw: object, task_set: TaskSet, skip_bad: bool
) -> ImportedSimulation:
    sim_id = str(raw.get("id", f"#{index}")) if isinstance(raw, dict) else f"#{index}"
    error: str | None = None
    sim: SimulationRun | None = None
    if not isinstance(raw, dict):
        error = "simulation is not a JSON object"
        raw = {"id": sim_id}
    else:
        try:
            sim = SimulationRun.model_validate(raw)
        except ValidationError as exc:
            first = exc.errors()[0]
            error = f"field '{'.'.join(map(str, first['loc']))}': {first['msg']}"
        if sim is not None and sim.task_id not in task_set.by_id:
            error = f"unknown task id {sim.task_id!r} for {task_set.domain} {task_set.version}"
            sim = None
    if error is None:
        return ImportedSimulation(sim, raw)
    if not skip_bad:
        raise HarnessInputError(f"{path}: simulation {sim_id}: {error}")
    return ImportedSimulation(None, raw, error)
