"""Sweep configs: YAML, validated by pydantic, errors that name the file, the YAML line and the field."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SecretStr,
    ValidationError,
    field_validator,
    model_validator,
)

from envs import Domain, TaskVersion
from harness.costs import ModelPrice
from loophole_base import HarnessInputError
from loophole_store import SECRET_FIELDS


class GenerationSettings(BaseModel):
    """The litellm arguments of one model, typed. Generation settings are part of the sweep's identity and
    are written to ``sweep.json`` and ``run.json``; secrets are ``SecretStr`` (by type, never by a key's
    name), left out of the identity and written as ``**********``.

    ``extra`` passes other litellm arguments (non-secret, part of the identity); ``secrets`` passes other
    secret arguments (``aws_secret_access_key``, …) that are never written anywhere.
    """

    model_config = ConfigDict(extra="forbid")
    temperature: float | None = Field(None, ge=0)
    top_p: float | None = Field(None, ge=0, le=1)
    max_tokens: int | None = Field(None, ge=1)
    max_completion_tokens: int | None = Field(None, ge=1)
    reasoning_effort: Literal["minimal", "low", "medium", "high"] | None = None
    thinking: dict[str, Any] | None = None  # Anthropic: {type: enabled, budget_tokens: N}
    seed: int | None = None
    stop: list[str] | None = None
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    api_base: str | None = None
    api_version: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    api_key: SecretStr | None = None
    extra_headers: dict[str, SecretStr] = Field(default_factory=dict)  # auth headers live here
    secrets: dict[str, SecretStr] = Field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """Every non-secret setting that is set: the sweep's identity, ``sweep.json`` and ``run.json``."""
        return self.model_dump(mode="json", exclude_none=True, exclude={*SECRET_FIELDS, "extra"}) | {
            "extra": dict(self.extra)
        }

    def litellm_kwargs(self) -> dict[str, Any]:
        """The arguments for a litellm call, secrets revealed: only ever passed to litellm, never written."""
        kwargs = self.model_dump(exclude_none=True, exclude={*SECRET_FIELDS, "extra"})
        kwargs.update(self.extra)
        if self.api_key is not None:
            kwargs["api_key"] = self.api_key.get_secret_value()
        if self.extra_headers:
            kwargs["extra_headers"] = {k: v.get_secret_value() for k, v in self.extra_headers.items()}
        kwargs.update({k: v.get_secret_value() for k, v in self.secrets.items()})
        return kwargs


class ModelSpec(BaseModel):
    """A litellm model and its typed arguments (``GenerationSettings``).

    Secrets belong in the environment: ``api_key_env: OPENAI_API_KEY`` is read at call time. A key given
    inline (``args.api_key``) is a ``SecretStr``: never written, never part of the sweep id.
    """

    model_config = ConfigDict(extra="forbid")
    model: str | None = None
    args: GenerationSettings = Field(default_factory=GenerationSettings)
    api_key_env: str | None = None

    @property
    def provider(self) -> str:
        if self.model is None:
            return "local"
        return self.model.split("/", 1)[0] if "/" in self.model else "openai"

    def public(self) -> dict[str, Any]:
        """What identifies this model's calls (model and non-secret settings), for ids and provenance."""
        data = self.model_dump(mode="json", exclude={"args"})
        data["args"] = self.args.public()
        return data


class AgentSpec(ModelSpec):
    """An LLM agent (``llm_agent``: tau2's LLMAgent), a policy-reading agent (``reading_agent``: no LLM), or the
    ``null_agent`` (no LLM, no tool call, a polite goodbye: what doing nothing earns)."""

    name: str
    implementation: Literal["llm_agent", "reading_agent", "null_agent"] = "llm_agent"
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
        if self.implementation == "null_agent" and (self.model or self.profile or self.policy_fixes):
            raise ValueError("a null_agent takes no model, profile or policy_fixes: it does nothing")
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
    breaker_after: int = Field(5, ge=1)  # an endpoint whose first N attempts all fail stops the sweep


class SweepConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    agents: list[AgentSpec] = Field(min_length=1)
    user_simulator: UserSpec
    domains: list[Domain] = Field(min_length=1)
    task_versions: list[TaskVersion] = Field(default_factory=lambda: list[TaskVersion](["tau2"]), min_length=1)
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
    flush_every: int = Field(16, ge=1)  # finished trials written as a part every N trials…
    flush_interval_s: float = Field(5.0, gt=0)  # …or every S seconds (and always on exit, SIGINT, SIGTERM)

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

    # where the config came from, for errors found later (the grid check in ``harness.trials``)
    _source: str = PrivateAttr("config")
    _lines: dict[str, int | None] = PrivateAttr(default_factory=dict)

    def output_dir(self) -> Path:
        return self.output or Path("runs") / self.name

    def sweep_id(self) -> str:
        """What defines the experiment (not where it runs or how fast): a changed model, generation
        setting (``max_tokens``, ``temperature``, …), task list, trial count or policy override is a
        different sweep. Every non-secret field of the models counts; secrets never do."""
        payload = {
            "agents": [a.public() for a in self.agents],
            "user": self.user_simulator.public(),
            "domains": self.domains,
            "versions": self.task_versions,
            "tasks": self.tasks,
            "trials": self.trials,
            "seed": self.seed,
            "max_steps": self.max_steps,
            "max_errors": self.max_errors,
            "judge": self.judge.public() if self.judge else None,
            "policies": {d: hashlib.sha256(Path(p).read_bytes()).hexdigest() for d, p in self.policy_overrides.items()},
        }
        text = json.dumps(payload, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def calls_llm(self) -> bool:
        """Whether a trial may call a model through litellm: an LLM agent, an LLM user simulator or a judge
        (the offline demo's policy-reading agents and scripted user never do)."""
        return (any(a.implementation == "llm_agent" for a in self.agents)
                or self.user_simulator.implementation == "user_simulator" or self.judge is not None)

    def redacted(self) -> dict:
        """The whole config as JSON data; secret fields are ``SecretStr`` and dump as ``**********``."""
        return self.model_dump(mode="json")


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


class _StrictLoader(yaml.SafeLoader):
    """``yaml.safe_load`` that refuses a duplicate key (PyYAML lets the last one win silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


MAX_YAML_NODES = 100_000  # a config is small; an alias ("anchor") bomb expands to billions of nodes
_SLUG = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*")


def _expanded_size(root: yaml.Node, limit: int) -> int:
    """Nodes the document has once every alias is expanded, counted up to ``limit``."""
    count, stack = 0, [root]
    while stack and count <= limit:
        node = stack.pop()
        count += 1
        if isinstance(node, yaml.SequenceNode):
            stack += node.value
        elif isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack += (k, v)
    return count


def load_config(path: str | Path) -> SweepConfig:
    """Read a sweep config; every problem is a one-line ``HarnessInputError``.

    Checked before anything is created: strict YAML (no duplicate keys, bounded alias expansion), the
    schema, a run name that is a slug (nothing escapes ``runs/``), every task id against its task sets, and
    the size of the trial grid, counted without building it, against ``$HARNESS_MAX_TRIALS``.
    """
    path = Path(path)
    shown = str(path) if str(path).isprintable() else repr(str(path))
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise HarnessInputError(f"{shown}: not valid UTF-8 at byte {exc.start}") from None
    except OSError as exc:
        raise HarnessInputError(f"{shown}: cannot read config ({exc.strerror})") from None
    try:
        root = yaml.compose(text, Loader=_StrictLoader)
        if root is not None and _expanded_size(root, MAX_YAML_NODES) > MAX_YAML_NODES:
            raise HarnessInputError(
                f"{shown}: YAML expands to more than {MAX_YAML_NODES} nodes through aliases (an anchor bomb?)"
            )
        data = yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark else ""
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise HarnessInputError(f"{shown}:{where} not valid YAML ({problem})") from None
    except RecursionError:
        raise HarnessInputError(f"{shown}: not valid YAML (nesting too deep)") from None
    if not isinstance(data, dict):
        raise HarnessInputError(f"{shown}: a sweep config is a YAML mapping")
    try:
        config = SweepConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = tuple(err["loc"])
        field = ".".join(map(str, loc)) or "(top level)"
        line = _line_of(root, loc)
        msg = "unknown key" if err["type"] == "extra_forbidden" else err["msg"]
        raise HarnessInputError(f"{shown}: line {line}: field '{field}': {msg}") from None
    if not _SLUG.fullmatch(config.name) or config.name in (".", ".."):
        line = _line_of(root, ("name",))
        raise HarnessInputError(
            f"{shown}: line {line}: field 'name': {config.name!r} is not a run name "
            "(letters, digits, '.', '_' or '-'; it names a folder under runs/)"
        )
    for domain, override in config.policy_overrides.items():
        resolved = override if override.is_absolute() else path.parent / override
        if not resolved.is_file():
            line = _line_of(root, ("policy_overrides", domain))
            raise HarnessInputError(
                f"{shown}: line {line}: field 'policy_overrides.{domain}': file {override} not found"
            )
        config.policy_overrides[domain] = resolved
    config._source = shown
    config._lines = {name: _line_of(root, (name,)) for name in ("tasks", "trials")}
    return config
