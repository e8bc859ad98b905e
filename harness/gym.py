"""Gymnasium environments on tau2's own ``AgentGymEnv``: ``tau2/airline-v0`` and ``tau2/retail-v0``.

    import gymnasium, harness.gym  # importing harness.gym registers the ids
    env = gymnasium.make("tau2/airline-v0", task_version="tau3", task_id="32")

What changes from tau2's environment: the task comes from the pinned task version (or is drawn with the
reset seed from the version's tasks, or a given list of ids); the user is the scripted user by default (no
LLM; pass ``user_llm`` for tau2's LLM user simulator); the terminal reward is our single-gold reward, equal
to tau2's, and ``info`` carries the multi-gold reward and the matched gold ids.

A null reward (a task that needs a judge for its NL assertions, as every τ³ retail task does, and none is
given; or a replay that cannot be checked) cannot be a float, which gymnasium requires: the episode's reward
is then 0.0 **and** ``info["reward_is_null"]`` is True with ``info["reward_status"]`` saying why
(``no_judge``, ``judge_error``, ``replay_divergence``, ``no_simulation``). A 0.0 with
``info["reward_is_null"]`` False is a real failure; learners and evaluations should drop the null ones
rather than count them as failures. An action is a tool call
(JSON or ``name(arg=...)``) or a message to the user; an observation is the text the agent would see.
The episode ends on stop or transfer.
"""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
from tau2.data_model.tasks import Task
from tau2.gym.gym_agent import AgentGymEnv
from tau2.user.user_simulator import UserSimulator

from envs import environment_constructor, load_task_set


class TextSpace(gym.spaces.Space[str]):
    """Any string. gymnasium's ``Text`` space limits its charset, which real observations (JSON, prices,
    emails) exceed; this space admits every string and samples a plain message."""

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        return "Hello, how can I help you today?"

    def contains(self, x: Any) -> bool:
        return isinstance(x, str)

    @property
    def is_np_flattenable(self) -> bool:
        return False


class LoopholeAgentGymEnv(AgentGymEnv):
    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        domain: str,
        task_version: str = "tau2",
        task_id: str | None = None,
        task_ids: list[str] | None = None,
        max_steps: int = 100,
        user_llm: str | None = None,
        user_llm_args: dict | None = None,
    ) -> None:
        self.task_version = task_version
        self._task_set = load_task_set(domain, task_version)
        self._fixed_task = task_id
        self._pool = list(task_ids) if task_ids else self._task_set.task_ids()
        if task_id is not None:
            self._task_set.task(task_id)  # a one-line error for an unknown id, now rather than at reset
        self._scripted_user = user_llm is None
        super().__init__(
            domain=domain, task_id=task_id or self._pool[0], max_steps=max_steps,
            user_llm=user_llm, user_llm_args=user_llm_args,
        )
        self.observation_space = TextSpace()
        self.action_space = TextSpace()
        self._last: dict[str, Any] = {}

    # -- tau2 hooks -----------------------------------------------------------------------------

    def _get_task(self) -> Task:
        return self._task_set.task(self.task_id)

    def _get_environment(self):
        return environment_constructor(self.domain, self._task_set.policy)(solo_mode=self.solo_mode)

    def _get_user(self) -> UserSimulator:
        if self._scripted_user:
            from harness.agents._reading import ScriptedUser

            return ScriptedUser(self._get_task())
        return super()._get_user()

    def _get_reward(self) -> tuple[float, str]:
        if self._simulation_run is None:
            self._last = {"reward_status": "no_simulation", "reward_is_null": True}
            return 0.0, "{}"
        from envs import engine_for
        from gold_variants import variants_for
        from loophole_scoring import score_trajectory, trajectory_record

        task, engine = self._get_task(), engine_for(self.domain)
        variants = variants_for(self.domain, self.task_version, self.task_id)
        # the conversation read once, for every variant (as scoring reads it)
        record = trajectory_record(self._simulation_run.messages, self.domain, self.task_version, task, engine, variants)
        result = score_trajectory(self._simulation_run, task, engine, variants=variants, record=record)
        gold = result.single_gold
        self._last = {
            "multi_gold_reward": result.multi_gold_reward,
            "multi_gold_upper": result.multi_gold_upper,
            "matched_gold_ids": result.matched_gold_ids,
            "reward_status": gold.status,
            "reward_is_null": gold.reward is None,
        }
        return (0.0 if gold.reward is None else gold.reward), gold.reason or ""

    # -- gym API --------------------------------------------------------------------------------

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if self._fixed_task is None:
            super(AgentGymEnv, self).reset(seed=seed)  # seed np_random first, then draw the task
            self.task_id = str(self.np_random.choice(self._pool))
        return super().reset(seed=seed, options=options)

    def step(self, action: str):
        observation, reward, terminated, truncated, info = super().step(action)
        agent = getattr(self, "_agent", None)
        if agent is not None and not terminated:
            # tau2's agent says it is its turn (clears its event) before it stores the new observation, in one
            # locked block that the step's read does not wait for: a slow store (a GC pause) returned the last
            # step's observation. Read it again once the block is done.
            with agent._lock:
                observation = self._format_observation(agent.observation)
        info.update(self._last)
        info["task_id"] = self.task_id
        info["task_version"] = self.task_version
        return observation, float(reward), terminated, truncated, info

    def _get_simulation_run(self) -> str:
        """The run as JSON without its clock readings and random id, so equal play gives equal info."""
        if self._simulation_run is None:
            return "{}"
        data = _without_clock(self._simulation_run.model_dump(mode="json"))
        data.pop("id", None)
        return json.dumps(data, indent=2)

    def _get_info(self) -> dict:
        info = super()._get_info()
        info["task"] = info["task"].model_dump(mode="json")  # plain data, not a pydantic object
        info["tools"] = [t.name for t in info["tools"]]
        return info


_CLOCK = {"timestamp", "start_time", "end_time", "duration", "generation_time_seconds"}


def _without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_clock(v) for k, v in value.items() if k not in _CLOCK}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


def register() -> None:
    """Register ``tau2/airline-v0`` and ``tau2/retail-v0`` (idempotent)."""
    for domain, env_id in {"airline": "tau2/airline-v0", "retail": "tau2/retail-v0"}.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="harness.gym:LoopholeAgentGymEnv", kwargs={"domain": domain})


register()
