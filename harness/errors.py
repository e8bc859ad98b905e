"""The application's own errors: an endpoint that fails, an interrupted sweep. The project's one-line errors
(``HarnessError``, ``HarnessInputError``, ``DiskFull``) live in ``loophole_base``."""

from __future__ import annotations

from loophole_base import HarnessError

__all__ = ["EndpointError", "SweepInterrupted"]


class EndpointError(HarnessError):
    """A model endpoint is misconfigured or unreachable (refused connection, wrong ``api_base``, bad key,
    unknown model, or its first attempts all failed): the sweep stops; running it again after the fix
    runs every trial that did not finish."""

    exit_code = 3


class SweepInterrupted(HarnessError):
    """SIGINT or SIGTERM: finished trials were written; running the sweep again resumes."""

    exit_code = 130
