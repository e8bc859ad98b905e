"""An excerpt as the record stores it: the text's whitespace runs collapsed to one space, cut at a limit (#47)."""

from __future__ import annotations

# the ASCII characters ``str.split`` cuts at but the space (tests/test_excerpt_collapse.py checks the list)
_ASCII_SPACES = "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def excerpt_of(text: str, limit: int = 240) -> str:
    """``text`` with its whitespace collapsed (``" ".join(text.split())``), cut to ``limit`` characters with an ellipsis.

    The collapse runs only where it may change the text: every character ``split`` takes as whitespace but the space is
    unprintable (a control or a separator), so a text without one, with no two spaces in a row and no space at either
    end is its own collapse (most excerpts: one sentence of a message). An ASCII text (``isascii`` reads a flag) is
    asked for each of ``_ASCII_SPACES`` by a substring test (a memchr): ``isprintable`` looks up every character."""
    if text.isascii():
        odd = ("\n" in text or "\t" in text or "\r" in text or "\x0b" in text or "\x0c" in text
               or "\x1c" in text or "\x1d" in text or "\x1e" in text or "\x1f" in text)
    else:
        odd = not text.isprintable()
    if odd or "  " in text or text[:1] == " " or text[-1:] == " ":
        text = " ".join(text.split())
    return text if len(text) <= limit else cut(text, limit)


def cut(collapsed: str, limit: int) -> str:
    """A collapsed text longer than ``limit`` cut to it, the ellipsis last (``excerpt_of``'s cut)."""
    return collapsed[: limit - 1] + "\u2026"


__all__ = ["cut", "excerpt_of"]
