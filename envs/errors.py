"""The project's one-line errors: every layer raises them, the CLI prints ``error: <message>``.

They sit in the lowest layer so that the store, analysis and report can raise a ``HarnessInputError``
without importing the application.
"""

from __future__ import annotations


class HarnessError(Exception):
    """An error the CLI reports as ``error: <message>`` and exit ``exit_code``."""

    exit_code = 2


class HarnessInputError(HarnessError, ValueError):
    """Bad user input: a file, field or flag; the message names the file, the field and the problem."""


def shown(path: object) -> str:
    """A path as a one-line error shows it: printable as is, else its repr (no control characters)."""
    text = str(path)
    return text if text.isprintable() else repr(text)
