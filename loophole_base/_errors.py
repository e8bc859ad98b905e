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
    """A path as a one-line error shows it: printable as is, else its repr (no control characters); cut
    (``cut``) past 1000 characters."""
    return cut(path, 1000)


def cut(value: object, limit: int = 200) -> str:
    """A user-controlled string as the terminal shows it: at most ``limit`` characters, then ``…`` and the
    original length; its repr where it holds control characters. Print it with rich's markup and highlighting
    off: a 1 MB tool name went through rich's highlighter for minutes."""
    text = str(value)
    head = text if len(text) <= limit else text[:limit]
    if not head.isprintable():
        head = repr(head)
    return head if len(text) <= limit else f"{head}… ({len(text):,} characters)"


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
