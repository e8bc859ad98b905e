"""Sweep configs: YAML, validated by pydantic, errors that name the file, the YAML line and the field."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from harness.costs import ModelPrice
from harness.errors import HarnessInputError

Domain = Literal["airline", "retail"]
TaskVersion = Literal["tau2", "tau3"]
_SECRET = re.compile(r"(api_?key|token|secret|password|authorization)", re.IGNORECASE)


def is_secret_key(name: str) -> bool:
    return bool(_SECRET.search(name))


def redact(value: Any) -> Any:
    """Replace every secret-bearing field (``api_key``, ``*_token``, …) with ``***``."""
    if isinstance(value, dict):
        return {k: ("***" if is_secret_key(str(k)) and v is not None else redact(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


class ModelSpec(BaseModel):
    """A litellm model and its arguments (temperature, reasoning_effort, api_base, …).

    Secrets belong in the environment: ``api_key_env: OPENAI_API_KEY`` is read at call time, and any
    secret-bearing argument is redacted wherever the config is written or printed.
    """

    model_config = ConfigDict(extra="forbid")
    model: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)
    api_key_env: str | None = None

    @property
    def provider(self) -> str:
        if self.model is None:
            return "local"
        return self.model.split("/", 1)[0] if "/" in self.model else "openai"


class AgentSpec(ModelSpec):
    """An LLM agent (``llm_agent``: tau2's LLMAgent) or a policy-reading agent (``reading_agent``: no LLM)."""

    name: str
    implementation: Literal["llm_agent", "reading_agent"] = "llm_agent"
    profile: Literal["conservative", "creative", "inconsistent"] | None = None
    procedural_error_rate: float = Field(0.0, ge=0.0, le=1.0)
    policy_fixes: list[str] = Field(default_factory=list)  # gold_variants/policy_fixes/<NAME>.yaml

    @field_validator("policy_fixes")
    @classmethod
    def _fixes(cls, v: list[str]) -> list[str]:
        from gold_variants import policy_fixes

        unknown = [n for n in v if n not in policy_fixes()]
        if unknown:
            raise ValueError(f"unknown policy fix {unknown[0]!r}; known: {sorted(policy_fixes())}")
        return v

    @model_validator(mode="after")
    def _kind(self) -> AgentSpec:
        if self.implementation == "llm_agent" and not self.model:
            raise ValueError("an llm_agent needs a model")
        if self.implementation == "reading_agent" and self.profile is None:
            raise ValueError("a reading_agent needs a profile (conservative, creative or inconsistent)")
        return self

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_.\-]+", v):
            raise ValueError("use letters, digits, '.', '_' or '-'")
        return v


class UserSpec(ModelSpec):
    """tau2's LLM ``user_simulator``, or the ``scripted_user`` that needs no LLM."""

    implementation: Literal["user_simulator", "scripted_user"] = "user_simulator"

    @model_validator(mode="after")
    def _kind(self) -> UserSpec:
        if self.implementation == "user_simulator" and not self.model:
            raise ValueError("a user_simulator needs a model")
        return self


class RetrySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    max_attempts: int = Field(6, ge=1)
    base_delay_s: float = Field(0.5, ge=0)
    max_delay_s: float = Field(20.0, ge=0)
    timeout_s: float = Field(120.0, gt=0)


class SweepConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    agents: list[AgentSpec] = Field(min_length=1)
    user_simulator: UserSpec
    domains: list[Domain] = Field(min_length=1)
    task_versions: list[TaskVersion] = Field(default_factory=lambda: ["tau2"], min_length=1)
    tasks: Literal["all", "loophole"] | list[str] = "all"
    trials: int = Field(1, ge=1)
    seed: int = 300
    max_steps: int = Field(100, ge=1)
    max_errors: int = Field(10, ge=1)
    max_concurrency: int = Field(8, ge=1)
    concurrency: dict[str, int] = Field(default_factory=dict)  # per provider, e.g. {openai: 4}
    retries: RetrySpec = Field(default_factory=RetrySpec)
    judge: ModelSpec | None = None
    policy_overrides: dict[Domain, Path] = Field(default_factory=dict)
    output: Path | None = None
    address: str | None = None  # None: embedded local Ray; "auto" or "ray://host:port": a cluster
    max_cost_usd: float | None = Field(None, gt=0)  # no trial starts that could take the total over it
    prices: dict[str, ModelPrice] = Field(default_factory=dict)  # US dollars per token, per model
    flush_every: int = Field(16, ge=1)

    @model_validator(mode="after")
    def _unique_agents(self) -> SweepConfig:
        names = [a.name for a in self.agents]
        if len(set(names)) != len(names):
            raise ValueError(f"agent names must be unique, got {names}")
        return self

    @field_validator("address")
    @classmethod
    def _address(cls, v: str | None) -> str | None:
        if v is not None and v != "auto" and not v.startswith("ray://"):
            raise ValueError("use null (embedded Ray), 'auto' or 'ray://host:port'")
        return v

    def output_dir(self) -> Path:
        return self.output or Path("runs") / self.name

    def sweep_id(self) -> str:
        """What defines the experiment (not where it runs or how fast): a changed model, task list,
        trial count or policy override is a different sweep."""
        payload = {
            "agents": [a.model_dump(mode="json", exclude={"api_key_env"}) for a in self.agents],
            "user": self.user_simulator.model_dump(mode="json", exclude={"api_key_env"}),
            "domains": self.domains,
            "versions": self.task_versions,
            "tasks": self.tasks,
            "trials": self.trials,
            "seed": self.seed,
            "max_steps": self.max_steps,
            "max_errors": self.max_errors,
            "judge": self.judge.model_dump(mode="json", exclude={"api_key_env"}) if self.judge else None,
            "policies": {d: hashlib.sha256(Path(p).read_bytes()).hexdigest() for d, p in self.policy_overrides.items()},
        }
        text = json.dumps(redact(payload), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def redacted(self) -> dict:
        return redact(self.model_dump(mode="json"))


def _line_of(node: yaml.Node | None, loc: tuple) -> int | None:
    line = node.start_mark.line + 1 if node is not None else None
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((v for k, v in node.value if k.value == str(part)), None)
            if match is None:
                key = next((k for k, _ in node.value if k.value == str(part)), None)
                return key.start_mark.line + 1 if key is not None else line
            node = match
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
        line = node.start_mark.line + 1
    return line


def load_config(path: str | Path) -> SweepConfig:
    """Read a sweep config; every problem is a one-line ``HarnessInputError``."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HarnessInputError(f"{path}: cannot read config ({exc.strerror})") from None
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        raise HarnessInputError(f"{path}:{where} not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise HarnessInputError(f"{path}: a sweep config is a YAML mapping")
    try:
        config = SweepConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        field = ".".join(map(str, loc)) or "(top level)"
        line = _line_of(root, loc)
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        raise HarnessInputError(f"{path}: line {line}: field '{field}': {msg}") from None
    for domain, override in config.policy_overrides.items():
        resolved = override if override.is_absolute() else path.parent / override
        if not resolved.is_file():
            line = _line_of(root, ("policy_overrides", domain))
            raise HarnessInputError(
                f"{path}: line {line}: field 'policy_overrides.{domain}': file {override} not found"
            )
        config.policy_overrides[domain] = resolved
    return config
