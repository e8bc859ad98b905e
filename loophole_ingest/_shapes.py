"""Results shapes from the wild that carry no ``info`` and no ``tasks``, and the shapes refused with why.

Read: a bare JSON list of simulations (a tau2 1.0 leaderboard submission), and one simulation, bare or
wrapped as ``{"task_id", "reward", "simulation_run": {...}}`` (per-task files from custom scripts). Both are
scored against the pinned tasks: the domain from ``--domain`` or the tool calls (else the task ids), the
task version from ``--task-version`` or the recorded action checks (else tau2, said in the note).
Refused in one line: a fork's tasks whose ``evaluation_criteria.reward_basis`` is null (its rewards come
from its own evaluator), and simulations stripped of ``task_id`` or ``termination_reason``.
Also here: the tools a run's agent called that its domain does not have (a run with its own tool set).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from envs import DOMAINS, TASK_VERSIONS, TauDataError, load_task_set
from loophole_base import HarnessInputError, shown
from loophole_ingest._jsonstream import elements, open_stream, read_json_strict
from loophole_ingest._simulations import clip, json_type

LIST, SINGLE = "list", "single"  # ImportedRun.layout of the two shapes read here
ID_FIELDS = ("task_id", "termination_reason")


def headerless_layout(first_char: str, header: dict[str, Any]) -> str | None:
    """LIST or SINGLE when the top-level value is one of the shapes read here, else None."""
    if first_char == "[":
        return LIST
    if "info" in header or "simulations" in header:
        return None
    if "simulation_run" in header or "messages" in header:
        return SINGLE
    return None


# --- the simulations of a headerless file --------------------------------------------------------


def _unwrap(path: Path, value: object) -> object:
    """A wrapped simulation's ``simulation_run``, with the wrapper's task id and reward where it has none."""
    if not isinstance(value, dict) or "simulation_run" not in value:
        return value
    inner = value["simulation_run"]
    if not isinstance(inner, dict):
        raise HarnessInputError(
            f"{shown(path)}: field 'simulation_run': expected an object, got {json_type(inner)}"
        )
    outer_id, inner_id = value.get("task_id"), inner.get("task_id")
    if outer_id is not None and inner_id is not None and outer_id != inner_id:
        raise HarnessInputError(
            f"{shown(path)}: field 'task_id' {clip(outer_id)} differs from 'simulation_run.task_id' {clip(inner_id)}"
        )
    sim = dict(inner)
    if inner_id is None and outer_id is not None:
        sim["task_id"] = outer_id
    reward = value.get("reward")
    if reward is not None and (isinstance(reward, bool) or not isinstance(reward, (int, float))):
        raise HarnessInputError(
            f"{shown(path)}: field 'reward': expected a number, got {json_type(reward)} {clip(reward)}"
        )
    if sim.get("reward_info") is None and reward is not None:
        sim["reward_info"] = {"reward": reward}  # the recorded reward, as the wrapper recorded it
    return sim


def raw_simulations(path: Path, layout: str) -> Iterator[object]:
    """A headerless file's simulations, one at a time (a list is streamed)."""
    if layout == SINGLE:
        value, _ = read_json_strict(path, "the simulation")
        yield _unwrap(path, value)
        return
    stream = open_stream(path)
    try:
        yield from elements(stream, "the list of simulations")
        stream.finish()
    finally:
        stream.close()


def _tool_calls(messages: object) -> Iterator[tuple[str, str]]:
    """(tool name, recorded result text) of each tool call in a raw message list."""
    if not isinstance(messages, list):
        return
    results = {
        m.get("id"): str(m.get("content"))
        for m in messages
        if isinstance(m, dict) and m.get("role") == "tool"
    }
    for m in messages:
        calls = m.get("tool_calls") if isinstance(m, dict) else None
        for tc in calls if isinstance(calls, list) else []:
            if isinstance(tc, dict) and isinstance(tc.get("name"), str):
                yield tc["name"], results.get(tc.get("id"), "")


@dataclass
class Scan:
    """What detection and the refusals need from every simulation of a headerless file."""

    n: int = 0
    task_ids: set[str] = field(default_factory=set)
    tools: set[str] = field(default_factory=set)
    missing: Counter[str] = field(default_factory=Counter)
    # task id -> the gold's actions and reward basis, as the recorded reward_info names them
    golds: dict[str, tuple[list[tuple[Any, Any]], list[str] | None]] = field(default_factory=dict)

    def add(self, raw: object) -> None:
        self.n += 1
        if not isinstance(raw, dict):
            return  # named when it is imported
        for name in ID_FIELDS:
            if raw.get(name) is None:
                self.missing[name] += 1
        tid = raw.get("task_id")
        if isinstance(tid, str):
            self.task_ids.add(tid)
        self.tools.update(name for name, _ in _tool_calls(raw.get("messages")))
        info = raw.get("reward_info")
        checks = info.get("action_checks") if isinstance(info, dict) else None
        if isinstance(tid, str) and isinstance(checks, list):
            actions = [c.get("action") for c in checks if isinstance(c, dict)]
            basis = info.get("reward_basis") if isinstance(info, dict) else None
            self.golds[tid] = (
                [(a.get("name"), a.get("arguments")) for a in actions if isinstance(a, dict)],
                sorted(map(str, basis)) if isinstance(basis, list) else None,
            )


def scan(path: Path, layout: str) -> Scan:
    found = Scan()
    for raw in raw_simulations(path, layout):
        found.add(raw)
    if found.n == 0:
        raise HarnessInputError(f"{shown(path)}: the list of simulations is empty: nothing to rescore")
    return found


# --- refusals ------------------------------------------------------------------------------------


def missing_ids_error(where: str, missing: Counter[str], n: int) -> HarnessInputError:
    lacking = " and ".join(f"{missing[f]} of {n} lack field '{f}'" for f in ID_FIELDS if missing[f])
    return HarnessInputError(
        f"{where}: simulations without their ids cannot be scored ({lacking}; a stripped upload?)"
    )


def count_missing(raws: Iterable[object]) -> tuple[Counter[str], int]:
    found = Scan()
    for raw in raws:
        found.add(raw)
    return found.missing, found.n


def check_reward_basis(where: str, raw_tasks: list[Any]) -> None:
    """A fork whose tasks carry ``reward_basis: null`` scores with its own evaluator: refused."""
    null = [
        t.get("id")
        for t in raw_tasks
        if isinstance(t, dict)
        and isinstance(t.get("evaluation_criteria"), dict)
        and "reward_basis" in t["evaluation_criteria"]
        and t["evaluation_criteria"]["reward_basis"] is None
    ]
    if null:
        raise HarnessInputError(
            f"{where}: field 'tasks[].evaluation_criteria.reward_basis' is null in {len(null)} of "
            f"{len(raw_tasks)} tasks (e.g. {clip(null[0])}): its rewards come from the fork's own "
            "evaluator, which tau2's evaluator cannot score"
        )


# --- domain and task version of a headerless file ------------------------------------------------


@lru_cache(maxsize=4)
def domain_tools(domain: str) -> frozenset[str]:
    """A domain's agent tools by name (tau2's toolkit class; no database is loaded)."""
    from tau2.domains.airline.tools import AirlineTools
    from tau2.domains.retail.tools import RetailTools

    kit = {"airline": AirlineTools, "retail": RetailTools}[domain]
    return frozenset(kit(None).tools)


def foreign_tools(domain: str, messages: object) -> list[str]:
    """Tools the agent called that ``domain`` does not have and whose recorded result is not tau2's
    "Tool '…' not found" (an agent that invents a tool in a tau2 run replays fine): the run's own tools."""
    known = domain_tools(domain)
    if not _calls_unknown(messages, known):
        return []  # every call names a domain tool: no recorded result needs reading
    return sorted(
        {
            name
            for name, result in _tool_calls(messages)
            if name not in known and f"'{name}' not found" not in result
        }
    )


def _calls_unknown(messages: object, known: frozenset[str]) -> bool:
    """Whether any tool call (as ``_tool_calls`` reads them) names a tool outside ``known``."""
    if not isinstance(messages, list):
        return False
    for m in messages:
        calls = m.get("tool_calls") if isinstance(m, dict) else None
        for tc in calls if isinstance(calls, list) else []:
            if isinstance(tc, dict) and isinstance(tc.get("name"), str) and tc["name"] not in known:
                return True
    return False


_SHOWN_VERSION = {"tau2": "τ²", "tau3": "τ³", "verified": "Verified"}


def detect_domain(where: str, found: Scan, given: str | None) -> tuple[str, str]:
    if given is not None:
        if given not in DOMAINS:
            raise HarnessInputError(f"--domain: {given!r} is not one of {list(DOMAINS)}")
        return given, "domain given by --domain"
    own = {d: domain_tools(d) - frozenset().union(*(domain_tools(o) for o in DOMAINS if o != d)) for d in DOMAINS}
    hits = {d: sorted(found.tools & own[d]) for d in DOMAINS if found.tools & own[d]}
    if len(hits) == 1:
        (domain, names), = hits.items()
        return domain, f"domain {domain} from the tool calls ({', '.join(names[:3])})"
    if not hits:
        fits = [d for d in DOMAINS if found.task_ids <= set(load_task_set(d, "tau2").by_id)]
        if found.task_ids and len(fits) == 1:
            return fits[0], f"domain {fits[0]} from the task ids (present in {fits[0]} only)"
    why = "name tools of both domains" if hits else "call no tool of either domain"
    raise HarnessInputError(
        f"{where}: no 'info' to name the domain and the simulations {why}; pass --domain {'|'.join(DOMAINS)}"
    )


def _fits(domain: str, version: str, task_id: str, recorded: tuple[list, list[str] | None]) -> bool:
    """The pinned task has the recorded gold actions (and reward basis, where recorded)."""
    task = load_task_set(domain, version).by_id.get(task_id)
    if task is None:
        return False
    criteria = task.evaluation_criteria
    actions = [(a.name, a.arguments) for a in (criteria.actions if criteria else None) or []]
    basis = sorted(str(b.value) for b in criteria.reward_basis) if criteria else []
    return actions == recorded[0] and (recorded[1] is None or basis == recorded[1])


def detect_version(where: str, domain: str, found: Scan, given: str | None) -> tuple[str, str]:
    """The task version: given, or the first whose gold actions equal the recorded action checks, else tau2.

    Never one that depends on which versions' data this machine holds (#42): where the recorded golds do not
    fit tau2 (always at hand) and another version's data is missing, the version is refused in one line."""
    if given is not None:
        if given not in TASK_VERSIONS:
            raise HarnessInputError(f"--task-version: {given!r} is not one of {list(TASK_VERSIONS)}")
        return given, "given by --task-version (no embedded tasks)"
    fits, missing = [], []
    for version in TASK_VERSIONS:
        try:
            if found.golds and all(
                _fits(domain, version, tid, gold) for tid, gold in found.golds.items()
            ):
                fits.append(version)
        except TauDataError:
            missing.append(version)
    n = len(found.golds)
    if found.golds and missing and "tau2" not in fits:
        shown_missing = " and ".join(_SHOWN_VERSION[v] for v in missing)
        raise HarnessInputError(
            f"{where}: no embedded tasks, and the recorded gold actions ({n} tasks) do not fit tau2; "
            f"{shown_missing} data is not available here to compare them, so the task version would depend on "
            "this machine: provide it ($HARNESS_TAU_DATA) or pass --task-version"
        )
    if len(fits) == 1:
        return fits[0], f"no embedded tasks; detected from the recorded gold actions and reward basis ({n} tasks)"
    if fits:
        return fits[0], (
            f"no embedded tasks; the recorded gold actions and reward basis ({n} tasks) fit {' and '.join(fits)}; "
            f"{fits[0]} chosen (pass --task-version if the run used another)"
        )
    return "tau2", (
        "no embedded tasks, and no recorded gold actions that decide the version: tau2 assumed "
        "(pass --task-version tau3 if the run used τ³)"
    )
