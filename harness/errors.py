"""The application's errors (an endpoint that fails, an interrupted sweep) beside the project's one-line
errors (``envs.errors``) and the row status (``loophole_scoring.Status``), re-exported for the CLI."""

from __future__ import annotations

from envs.errors import HarnessError, HarnessInputError
from loophole_scoring import RETRIED_ON_RESUME, Status

__all__ = [
    "RETRIED_ON_RESUME",
    "EndpointError",
    "HarnessError",
    "HarnessInputError",
    "Status",
    "SweepInterrupted",
]


class EndpointError(HarnessError):
    """A model endpoint is misconfigured or unreachable (refused connection, wrong ``api_base``, bad key,
    unknown model, or its first attempts all failed): the sweep stops; running it again after the fix
    runs every trial that did not finish."""

    exit_code = 3


class SweepInterrupted(HarnessError):
    """SIGINT or SIGTERM: finished trials were written; running the sweep again resumes."""

    exit_code = 130
