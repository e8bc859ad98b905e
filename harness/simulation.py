"""One trial through tau2's real ``Orchestrator``: build, run, return the trajectory. No I/O, no scoring."""

from __future__ import annotations

import os
from typing import Any

from tau2.agent.llm_agent import LLMAgent
from tau2.data_model.simulation import SimulationRun
from tau2.orchestrator.orchestrator import Orchestrator

from envs import DatabasePool, environment_constructor, load_task_set, locked_cache
from harness._trial_spec import TrialSpec
from harness.agents import RetryCounter, RetryingLLMAgent, RetryingUserSimulator
from harness.agents._null import NullAgent
from harness.agents._reading import ReadingAgent, ScriptedUser, choose_plan
from harness.config import AgentSpec, ModelSpec, UserSpec


def resolved_args(spec: ModelSpec) -> dict[str, Any]:
    """litellm arguments with secrets revealed (``api_key_env`` read now, in the worker): never stored."""
    args = spec.args.litellm_kwargs()
    if spec.api_key_env:
        args["api_key"] = os.environ.get(spec.api_key_env, "")
    return args


def llm_args(spec: AgentSpec | UserSpec, task_ref: str, timeout_s: float) -> dict[str, Any]:
    args = resolved_args(spec)
    headers = dict(args.pop("extra_headers", {}) or {})
    headers["X-Harness-Task"] = task_ref  # tracing for providers; the scripted server's task selector
    args["extra_headers"] = headers
    args.setdefault("timeout", timeout_s)
    args["num_retries"] = 0  # our backoff decides (and counts) retries, not litellm's…
    args["max_retries"] = 0  # …nor the OpenAI client's (which would hide a refused connection for a second)
    return args


class SchemaOnceTool:
    """A tau2 tool whose OpenAI schema is built once: tau2 rebuilds every tool's JSON schema with pydantic
    on every LLM call (about 9 ms per airline call). The agent only reads the schema; tool calls go
    through the environment, so the proxy is safe to share between trials of a domain."""

    def __init__(self, tool: Any) -> None:
        self._tool = tool
        self.name = tool.name
        self._schema = tool.openai_schema

    @property
    def openai_schema(self) -> dict:
        return self._schema  # read-only by tau2 and litellm, which build new request payloads from it

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tool, name)


@locked_cache(maxsize=4)
def _agent_tools(domain: str) -> tuple[SchemaOnceTool, ...]:
    """The agent's tools of a domain, schemas built once per worker (the policy text does not change them)."""
    return tuple(SchemaOnceTool(t) for t in environment_constructor(domain)().get_tools())


def warm_up(domains: list[str], llm: bool = True) -> None:
    """Pay a worker's one-time costs before its first trial: the agent tools' schemas of each domain, and
    where trials call a model (``llm``), litellm's first completion (imports, client, token counting),
    answered locally by ``mock_response`` (half a CPU second that a sweep without an LLM never pays)."""
    for domain in domains:
        _agent_tools(domain)
    if llm:
        import litellm

        litellm.completion(model="openai/warm-up", messages=[{"role": "user", "content": "hi"}], mock_response="ok")


def simulate(spec: TrialSpec, pool: DatabasePool, counter: RetryCounter) -> tuple[SimulationRun, dict[str, Any]]:
    """Run one trial; returns the trajectory and what the agent meant to do (reading agents)."""
    task = load_task_set(spec.domain, spec.version).task(spec.task_id)
    task_ref = f"{spec.domain}/{spec.version}/{spec.task_id}"
    meant: dict[str, Any] = {}
    policy = spec.policy
    if spec.agent.policy_fixes:
        from gold_variants import fixed_policy

        base = policy if policy is not None else load_task_set(spec.domain, spec.version).policy
        policy = fixed_policy(spec.domain, spec.agent.policy_fixes, base)
    with pool.database(spec.domain) as db:
        environment = environment_constructor(spec.domain, policy)(db=db)
        tools = list(_agent_tools(spec.domain))
        if spec.agent.implementation == "null_agent":
            agent: LLMAgent = NullAgent(tools, environment.get_policy())
        elif spec.agent.implementation == "reading_agent":
            assert spec.agent.profile is not None  # AgentSpec's validator: a reading agent names its profile
            plan = choose_plan(
                spec.domain, spec.version, spec.task_id, spec.agent.profile, spec.seed, spec.agent.procedural_error_rate,
                tuple(spec.agent.policy_fixes),
            )
            agent = ReadingAgent(tools, environment.get_policy(), plan)
            meant = {"intended_gold_id": plan.intended_gold_id, "intended_reading": plan.reading,
                     "procedural_error": plan.procedural_error}
        else:
            agent = RetryingLLMAgent(
                tools=tools,
                domain_policy=environment.get_policy(),
                llm=spec.agent.model,
                llm_args=llm_args(spec.agent, task_ref, spec.timeout_s),
                policy=spec.retry, counter=counter, seed=spec.seed,
            )
        if spec.user.implementation == "scripted_user":
            user = ScriptedUser(task)
        else:
            user = RetryingUserSimulator(
                tools=None,
                instructions=str(task.user_scenario),
                llm=spec.user.model,
                llm_args=llm_args(spec.user, task_ref, spec.timeout_s),
                policy=spec.retry, counter=counter, seed=spec.seed,
            )
        orchestrator = Orchestrator(
            domain=spec.domain, agent=agent, user=user, environment=environment, task=task,
            max_steps=spec.max_steps, max_errors=spec.max_errors, seed=spec.seed,
        )
        return orchestrator.run(), meant
