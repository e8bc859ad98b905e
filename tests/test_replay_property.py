"""Property test: our single-gold verdict equals tau2's ``evaluate_simulation`` on generated trajectories.

Each example draws a real task and a sequence of tool calls mixing its gold actions, other tasks' gold
actions, mutated arguments, unknown tools, user-side calls and dropped arguments; sometimes the whole gold
in order; sometimes a corrupted recorded output or a broken message structure. Stock tau2 evaluates it
from scratch (fresh environments, full-database hashes); ours uses the shared-database replay engine.
"""

from __future__ import annotations

import copy
import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

from envs import ReplayFlag, ReplayMode, engine_for, load_task_set
from loophole_scoring import score_trajectory

# 40 per domain in the suite (stock tau2's evaluator, which loads both databases afresh, is nearly all of each
# example's time: about 0.5 s); they reach each verdict with room to spare (seed 3, hypothesis 6.155: airline
# 16 db_true, 11 db_false, 8 divergences; retail 7, 8, 14; a fixed seed, so the same examples every run).
# HARNESS_PROPERTY_EXAMPLES=1000 for a deeper search, HARNESS_PROPERTY_SEED=N for other examples
EXAMPLES = int(os.environ.get("HARNESS_PROPERTY_EXAMPLES", "40"))
SEED = int(os.environ.get("HARNESS_PROPERTY_SEED", "3"))


def _gold_calls(domain: str) -> list[tuple[str, dict]]:
    return [
        (a.name, a.arguments)
        for t in load_task_set(domain, "tau2").tasks
        for a in (t.evaluation_criteria.actions or [])
    ]


@st.composite
def tool_call(draw, domain: str, own: list[tuple[str, dict]]) -> tuple[str, dict, str]:
    pool = _gold_calls(domain)
    kind = draw(st.sampled_from(["own", "own", "own", "other", "mutate", "drop", "unknown", "user"]))
    if kind in ("own", "mutate", "drop", "user") and own:
        name, args = draw(st.sampled_from(own))
    else:
        name, args = draw(st.sampled_from(pool))
    args = copy.deepcopy(args)
    requestor = "assistant"
    if kind == "mutate" and args:
        key = draw(st.sampled_from(sorted(args)))
        same_key = [a[key] for _, a in pool if key in a]
        args[key] = draw(st.one_of(st.sampled_from(same_key), st.text(max_size=8), st.integers(-5, 500)))
    elif kind == "drop" and args:
        args.pop(draw(st.sampled_from(sorted(args))))
    elif kind == "unknown":
        name = draw(st.sampled_from(["refund_everything", "get_user_detail", ""]))
    elif kind == "user":
        requestor = "user"
    return name, args, requestor


@st.composite
def simulation(draw, domain: str):
    task_set = load_task_set(domain, "tau2")
    task = draw(st.sampled_from([t for t in task_set.tasks if t.evaluation_criteria.actions]))
    own = [(a.name, a.arguments) for a in task.evaluation_criteria.actions]
    calls = draw(st.lists(tool_call(domain, own), max_size=7))
    if draw(st.integers(0, 3)) == 0:  # the full gold, in order, among other calls
        at = draw(st.integers(0, len(calls)))
        calls[at:at] = [(n, copy.deepcopy(a), "assistant") for n, a in own]
    tool_calls = [
        ToolCall(id=f"call_{i}", name=n, arguments=a, requestor=r) for i, (n, a, r) in enumerate(calls)
    ]
    responses = engine_for(domain).respond(tool_calls)
    messages: list = [UserMessage(role="user", content="Hi, I need help.")]
    for tc, resp in zip(tool_calls, responses, strict=True):
        messages.append(AssistantMessage(role="assistant", content=None, tool_calls=[tc]))
        messages.append(resp)
    if responses and draw(st.integers(0, 9)) == 0:  # a recorded output that replay will not reproduce
        idx = next(i for i, m in enumerate(messages) if isinstance(m, ToolMessage))
        messages[idx] = ToolMessage(id=messages[idx].id, role="tool", content='{"tampered": true}', requestor="assistant")
    if responses and draw(st.integers(0, 19)) == 0:  # a tool call without its tool message
        idx = next(i for i, m in enumerate(messages) if isinstance(m, ToolMessage))
        del messages[idx]
    info = task.evaluation_criteria.communicate_info or []
    said = " ".join(info) if draw(st.booleans()) else "Anything else?"
    messages.append(AssistantMessage(role="assistant", content=f"Done. {said}"))
    reason = draw(
        st.sampled_from(
            [TerminationReason.AGENT_STOP] * 3
            + [TerminationReason.USER_STOP, TerminationReason.MAX_STEPS, TerminationReason.TOO_MANY_ERRORS]
        )
    )
    sim = SimulationRun(
        id="prop", task_id=task.id, start_time="2025-01-01T00:00:00", end_time="2025-01-01T00:01:00",
        duration=60.0, termination_reason=reason, messages=messages,
    )
    return sim, task


def _check(domain: str, sim: SimulationRun, task) -> Any:
    """``--replay strict`` is the pinned package's evaluator; the lenient default equals it wherever that
    runs, and where it raises on an output that differs, scores the trajectory and flags it. Returns the
    strict verdict (the test counts its kinds)."""
    ours = score_trajectory(sim, task, engine_for(domain), replay=ReplayMode.STRICT).single_gold
    scored = score_trajectory(sim, task, engine_for(domain))
    lenient = scored.single_gold
    try:
        stock = evaluate_simulation(sim, task, EvaluationType.ALL, False, domain)
    except ValueError as exc:
        assert ours.reward is None and ours.status == "replay_divergence", (str(exc)[:300], ours)
        if ours.reason.startswith("trajectory structure"):
            assert lenient.reward is None and lenient.reason == ours.reason
        else:
            assert lenient.reward is not None and lenient.status == "ok", lenient
            assert ReplayFlag.STRICT_DIVERGES in scored.replay_flags
        return ours
    assert ours.reward == stock.reward == lenient.reward, (ours, stock.reward, lenient)
    if stock.db_check is not None:
        assert ours.db_match == stock.db_check.db_match == lenient.db_match
    return ours


_settings = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_verdicts_equal_stock_evaluator(domain):
    seen = {"db_true": 0, "db_false": 0, "divergence": 0}

    # A fixed seed, not ``derandomize``: that seeds from the test's source, so an unrelated edit here drew other
    # examples (once too few matching databases); the seed changes the draws only when the generator changes.
    @seed(SEED)
    @_settings
    @given(simulation(domain))
    def run(case):
        sim, task = case
        ours = _check(domain, sim, task)  # the strict verdict _check compared (scored once, not again here)
        if ours.status == "replay_divergence":
            seen["divergence"] += 1
        elif ours.db_match is True:
            seen["db_true"] += 1
        elif ours.db_match is False:
            seen["db_false"] += 1

    run()
    # The generator must reach both verdicts and divergences, or the test proves little.
    assert seen["db_true"] >= 5 and seen["db_false"] >= 5 and seen["divergence"] >= 1, seen
