"""An excerpt as the record stores it: the text's whitespace runs collapsed to one space, cut at a limit (#47)."""

from __future__ import annotations


def excerpt_of(text: str, limit: int = 240) -> str:
    """``text`` with its whitespace collapsed (``" ".join(text.split())``), cut to ``limit`` characters with an ellipsis.

    The collapse runs only where it may change the text: every character ``split`` takes as whitespace but the space is
    unprintable (a control or a separator, ``isprintable``), so a printable text with no two spaces in a row and no
    space at either end is its own collapse (most excerpts: one sentence of a message)."""
    if not text.isprintable() or "  " in text or text[:1] == " " or text[-1:] == " ":
        text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


__all__ = ["excerpt_of"]
