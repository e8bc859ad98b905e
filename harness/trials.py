"""Trial keys: a config expands into (agent, domain, version, task, trial); sha256 gives seed and identity."""

from __future__ import annotations

import hashlib
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from envs import load_task_set
from gold_variants import load_catalog
from harness.config import SweepConfig, load_config
from loophole_base import HarnessInputError

MAX_TRIALS_ENV = "HARNESS_MAX_TRIALS"
DEFAULT_MAX_TRIALS = 1_000_000


def load_sweep(path: str | Path) -> SweepConfig:
    """A sweep config (``harness.config.load_config``) whose grid is checked: every task id exists, and
    the number of trials is within the cap. Found before a run directory exists, naming the file and line."""
    config = load_config(path)
    check_grid(config)
    return config


def check_grid(config: SweepConfig) -> None:
    """Every task id exists, and the grid's size is counted (never built) against the cap."""
    shown, lines = config._source, config._lines
    total = 0
    for domain in config.domains:
        for version in config.task_versions:
            try:
                n_tasks = len(task_ids(config, domain, version))
            except HarnessInputError as exc:
                raise HarnessInputError(f"{shown}: line {lines.get('tasks')}: {exc}") from None
            total += len(config.agents) * n_tasks * config.trials
    cap = _max_trials()
    if total > cap:
        raise HarnessInputError(
            f"{shown}: line {lines.get('trials')}: the sweep has {total:,} trials, more than the cap "
            f"of {cap:,} (set ${MAX_TRIALS_ENV} to raise it)"
        )


def _max_trials() -> int:
    try:
        return int(os.environ.get(MAX_TRIALS_ENV, DEFAULT_MAX_TRIALS))
    except ValueError:
        raise HarnessInputError(f"${MAX_TRIALS_ENV}: not an integer") from None


@dataclass(frozen=True)
class TrialKey:
    sweep_id: str
    agent: str
    domain: str
    version: str
    task_id: str
    trial: int

    @property
    def key(self) -> str:
        return f"{self.sweep_id}/{self.agent}/{self.domain}/{self.version}/{self.task_id}/{self.trial}"

    @property
    def seed(self) -> int:
        """Stable across runs and machines (never Python's ``hash()``)."""
        return int(hashlib.sha256(self.key.encode()).hexdigest()[:8], 16) & 0x7FFFFFFF

    @property
    def task_ref(self) -> str:
        return f"{self.domain}/{self.version}/{self.task_id}"

    def as_dict(self) -> dict:
        return asdict(self)


def task_ids(config: SweepConfig, domain: str, version: str) -> list[str]:
    task_set = load_task_set(domain, version)
    if config.tasks == "all":
        return task_set.task_ids()
    if config.tasks == "loophole":
        wanted = load_catalog().loophole_tasks(domain)
        return [t for t in task_set.task_ids() if t in wanted]
    missing = [t for t in config.tasks if t not in task_set.by_id]
    if missing:
        raise HarnessInputError(
            f"field 'tasks': {domain} {version} has no task {missing[0]!r} ({len(task_set.tasks)} tasks)"
        )
    return [str(t) for t in config.tasks]


def expand(config: SweepConfig) -> list[TrialKey]:
    sweep_id = config.sweep_id()
    keys = []
    for agent in config.agents:
        for domain in config.domains:
            for version in config.task_versions:
                for task_id in task_ids(config, domain, version):
                    for trial in range(config.trials):
                        keys.append(TrialKey(sweep_id, agent.name, domain, version, task_id, trial))
    return keys


def expected_turns(key: TrialKey) -> int:
    """A trial's expected length before it runs: its gold's actions (each a tool call and its reply), and
    what the agent must tell the user. LLM calls in a trial are sequential, so this is its critical path."""
    criteria = load_task_set(key.domain, key.version).task(key.task_id).evaluation_criteria
    if criteria is None:
        return 0
    return len(criteria.actions or []) + len(criteria.communicate_info or [])


def longest_first(keys: list[TrialKey]) -> list[TrialKey]:
    """Keys in the order to start them: expected-longest first (stable otherwise). Started last, the
    shortest trials fill the slots that free up at the end, so the sweep's tail is one short trial long,
    not one long one (longest-processing-time-first list scheduling)."""
    return sorted(keys, key=lambda k: -expected_turns(k))

