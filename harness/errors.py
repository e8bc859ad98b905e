"""Errors that the CLI reports as one line and a non-zero exit, and the status of a stored row.

Every error the CLI reports is a ``HarnessError``: one ``except`` prints ``error: <message>`` and exits with
the error's ``exit_code``.
"""

from __future__ import annotations

from enum import StrEnum


class HarnessError(Exception):
    """An error the CLI reports as ``error: <message>`` and exit ``exit_code``."""

    exit_code = 2


class HarnessInputError(HarnessError, ValueError):
    """Bad user input: a file, field or flag; the message names the file, the field and the problem."""


class EndpointError(HarnessError):
    """A model endpoint is misconfigured or unreachable (refused connection, wrong ``api_base``, bad key,
    unknown model, or its first attempts all failed): the sweep stops; running it again after the fix
    runs every trial that did not finish."""

    exit_code = 3


class SweepInterrupted(HarnessError):
    """SIGINT or SIGTERM: finished trials were written; running the sweep again resumes."""

    exit_code = 130


class Status(StrEnum):
    """A ``trials`` or ``scores`` row's status (the README's failure policy says what each one counts as)."""

    OK = "ok"
    NO_JUDGE = "no_judge"  # NL assertions and no judge: reward null
    JUDGE_ERROR = "judge_error"  # the judge failed: reward null
    REPLAY_DIVERGENCE = (
        "replay_divergence"  # the recorded trajectory cannot be replayed: reward null
    )
    AGENT_ERROR = (
        "agent_error"  # the model failed (malformed tool call, context overflow): reward 0
    )
    INFRA_ERROR = (
        "infra_error"  # the provider kept failing (429, 5xx, timeouts): reward null, retried
    )
    ERROR = "error"  # a harness or tau2 bug, or an unreadable input: reward null, retried on resume


# Statuses a resumed sweep runs again: the infrastructure's and the harness's failures, never the agent's.
RETRIED_ON_RESUME = frozenset({Status.INFRA_ERROR, Status.ERROR, Status.JUDGE_ERROR})
