"""The one status of a stored row (``trials.status``, ``scores.status``): the README's failure policy."""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """A ``trials`` or ``scores`` row's status (the README's failure policy says what each one counts as)."""

    OK = "ok"
    NO_JUDGE = "no_judge"  # NL assertions and no judge: reward null
    JUDGE_ERROR = "judge_error"  # the judge failed: reward null
    REPLAY_DIVERGENCE = "replay_divergence"  # the recorded trajectory cannot be replayed: reward null
    AGENT_ERROR = "agent_error"  # the model failed (malformed tool call, context overflow): reward 0
    INFRA_ERROR = "infra_error"  # the provider kept failing (429, 5xx, timeouts): reward null, retried
    ERROR = "error"  # a harness or tau2 bug, or an unreadable input: reward null, retried on resume


# Statuses a resumed sweep runs again: the infrastructure's and the harness's failures, never the agent's.
RETRIED_ON_RESUME = frozenset({Status.INFRA_ERROR, Status.ERROR, Status.JUDGE_ERROR})


class Verdict(StrEnum):
    """What a gold says of a trajectory (``scores.verdict``). ``uncertain``: the outcome matches and the
    preconditions hold, but the evidence is weaker than the rule asks; it counts in ``multi_gold_upper``,
    never in ``multi_gold_reward``."""

    CREDITED = "credited"
    NOT_CREDITED = "not_credited"
    UNCERTAIN = "uncertain"
