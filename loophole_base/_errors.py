"""The project's one-line errors: every layer raises them, the CLI prints ``error: <message>``.

They sit in the lowest layer so that every stage can raise a ``HarnessInputError`` or a ``DiskFull``
without importing the application.
"""

from __future__ import annotations

import errno
import shlex
import sys


class HarnessError(Exception):
    """An error the CLI reports as ``error: <message>`` and exit ``exit_code``."""

    exit_code = 2


class HarnessInputError(HarnessError, ValueError):
    """Bad user input: a file, field or flag; the message names the file, the field and the problem."""


def shown(path: object) -> str:
    """A path as a one-line error shows it: printable as is, else its repr (no control characters)."""
    text = str(path)
    return text if text.isprintable() else repr(text)


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
