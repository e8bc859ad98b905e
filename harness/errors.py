"""The application's errors (an endpoint that fails, an interrupted sweep) beside the project's one-line
errors (``envs.errors``) and the row status (``loophole_scoring.Status``), re-exported for the CLI."""

from __future__ import annotations

import errno
import shlex
import sys

from envs.errors import HarnessError, HarnessInputError, shown
from loophole_scoring import RETRIED_ON_RESUME, Status

__all__ = [
    "RETRIED_ON_RESUME",
    "DiskFull",
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


class DiskFull(HarnessError):
    """No space left on the device (or over quota) while writing: one line saying what was being written,
    what is kept and to run the same command again."""

    exit_code = 75  # sysexits' EX_TEMPFAIL: try again later

    @staticmethod
    def matches(exc: BaseException) -> bool:
        return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)

    @classmethod
    def of(cls, exc: OSError, writing: str, kept: str) -> DiskFull:
        """``writing``: what was being written (the file, when the OSError names it); ``kept``: what is safe."""
        what = f"{shown(exc.filename)} ({writing})" if exc.filename else writing
        again = shlex.join(["harness", *sys.argv[1:]])
        reason = (exc.strerror or "no space left on device").lower()
        return cls(f"{reason} writing {what}; {kept}; free some space and run the same command again: {again}")
