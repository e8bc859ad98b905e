"""Errors that the CLI reports as one line and a non-zero exit."""

from __future__ import annotations


class HarnessInputError(ValueError):
    """Bad user input: a file, field or flag; the message names the file, the field and the problem."""
