"""NL-assertion judges. tau2 grades tau3 retail on DB + NL_ASSERTION, which needs an LLM."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, Field, ValidationError
from tau2.data_model.message import Message


class JudgeVerdict(BaseModel):
    met: bool
    checks: list[dict] = Field(default_factory=list)
    cost: float = 0.0  # what the call cost (litellm's price table), 0 for recorded verdicts


class Judge(Protocol):
    """Decides whether a trajectory satisfies a task's natural-language assertions."""

    name: str

    def judge(self, messages: Sequence[Message], assertions: Sequence[str]) -> JudgeVerdict: ...


class _Result(BaseModel):
    expectedOutcome: str
    reasoning: str = ""
    metExpectation: bool


class _Results(BaseModel):
    results: list[_Result]


# The prompt of tau2's NLAssertionsEvaluator, so that a judge model sees what tau2's judge sees.
_SYSTEM = """
TASK
- You will be given a list of expected outcomes and a conversation that was collected during a test case run.
- The conversation is between an agent and a customer.
- Your job is to evaluate whether the agent satisfies each of the expected outcomes.
- Grade each expected outcome individually.

FORMAT
- Your response should be a JSON object with the following fields:
- `reasoning`: a short explanation for your classification
- `metExpectation`: `true` if the agent satisfies the expected outcomes, `false` otherwise
- `expectedOutcome`: repeat the expectation from the input that you are grading

Example response structure:
{
    "results": [
        {
            "expectedOutcome": "<one of the expected outcomes from the input>",
            "reasoning": "<reasoning trace>",
            "metExpectation": <false or true>,
        }
    ]
}
"""


class JudgeError(RuntimeError):
    pass


class LitellmJudge:
    """An LLM judge through litellm; the model and its arguments come from config."""

    def __init__(self, model: str, api_key_env: str | None = None, **llm_args: object) -> None:
        self.name = model
        self.model = model
        self.llm_args = {"temperature": 0.0, **llm_args}  # tau2's judge runs at temperature 0
        self.api_key_env = api_key_env

    def judge(self, messages: Sequence[Message], assertions: Sequence[str]) -> JudgeVerdict:
        import litellm

        conversation = "\n".join(f"{m.role}: {m.content}" for m in messages)
        prompt = f"conversation:\n{conversation}\n\nexpectedOutcomes:\n{list(assertions)}\n"
        args = dict(self.llm_args)
        if self.api_key_env:  # read at call time, never stored in a config or an output
            key = os.environ.get(self.api_key_env)
            if not key:
                raise JudgeError(f"judge {self.model}: environment variable {self.api_key_env} is not set")
            args["api_key"] = key
        try:
            response = litellm.completion(
                model=self.model,
                messages=[{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}],
                **args,
            )
        except Exception as exc:  # noqa: BLE001 - a provider failure is a judge error row, never a score
            raise JudgeError(f"judge {self.model} failed: {type(exc).__name__}: {str(exc)[:200]}") from None
        text = response.choices[0].message.content or ""
        try:
            parsed = _Results.model_validate(json.loads(text))
        except (json.JSONDecodeError, ValidationError) as exc:
            raise JudgeError(f"judge {self.model} returned unparseable output: {exc}") from None
        if len(parsed.results) != len(assertions):
            raise JudgeError(
                f"judge {self.model} graded {len(parsed.results)} of {len(assertions)} assertions"
            )
        try:
            cost = float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # noqa: BLE001 - a model missing from litellm's price table costs "unknown": 0
            cost = 0.0
        return JudgeVerdict(
            met=all(r.metExpectation for r in parsed.results),
            checks=[r.model_dump() for r in parsed.results],
            cost=cost,
        )


RECORDED = "recorded"  # --judge recorded: the verdicts a results file holds in reward_info.nl_assertions


@dataclass(frozen=True)
class JudgeSpec:
    """A picklable description of a judge, rebuilt in each worker (``model = "recorded"``: the file's own)."""

    model: str
    args: tuple[tuple[str, object], ...] = ()
    api_key_env: str | None = None

    def build(self) -> Judge | None:
        if self.model == RECORDED:
            return None  # built per trajectory from its recorded verdicts
        return LitellmJudge(self.model, api_key_env=self.api_key_env, **dict(self.args))


class RecordedJudge:
    """The verdicts a results file recorded (``reward_info.nl_assertions``), reused when their assertion
    texts equal the task's assertions."""

    name = RECORDED

    def __init__(self, recorded: object) -> None:
        self.recorded = recorded

    def judge(self, messages: Sequence, assertions: Sequence[str]) -> JudgeVerdict:
        checks = self.recorded if isinstance(self.recorded, list) else None
        if not checks or not all(isinstance(c, dict) for c in checks):
            raise JudgeError(
                "no recorded NL-assertion verdicts (reward_info.nl_assertions) to reuse"
            )
        texts = [c.get("nl_assertion") for c in checks]
        if sorted(map(str, texts)) != sorted(assertions):
            raise JudgeError(
                "recorded NL-assertion verdicts are for other assertion texts than the task's"
            )
        if not all(isinstance(c.get("met"), bool) for c in checks):
            raise JudgeError("a recorded NL-assertion verdict has no boolean 'met'")
        return JudgeVerdict(met=all(c["met"] for c in checks), checks=checks)


class OncePerTrajectory:
    """A judge called at most once per trajectory and assertion list (the gold and its variants share the
    messages and the assertions), recording which judge answered and what it cost."""

    def __init__(self, judge: Judge) -> None:
        self.inner = judge
        self.name = judge.name
        self.cache: dict[tuple[str, ...], JudgeVerdict | JudgeError] = {}
        self.cost = 0.0

    def judge(self, messages: Sequence, assertions: Sequence[str]) -> JudgeVerdict:
        key = tuple(assertions)
        if key not in self.cache:
            try:
                verdict = self.inner.judge(messages, assertions)
                self.cost += verdict.cost
                self.cache[key] = verdict
            except JudgeError as exc:
                self.cache[key] = exc
        answer = self.cache[key]
        if isinstance(answer, JudgeError):
            raise answer
        return answer


def recorded_verdicts(raw: dict) -> object:
    """A raw simulation's recorded NL-assertion verdicts (``reward_info.nl_assertions``), if any."""
    info = raw.get("reward_info")
    return info.get("nl_assertions") if isinstance(info, dict) else None
