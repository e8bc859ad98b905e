r"""A value named in a text as a word of its own: ``re.search(r"(?<![\w.])" + re.escape(form) + r"(?![\w]|\.\d)",
text)``, tested by hand at each occurrence of ``form``. The readers that look for a write's values (``_replies.lists``,
``_write_details``) built that pattern per value, one compile a call once the values overflowed ``re``'s cache."""

from __future__ import annotations


def named_in(form: str, text: str) -> bool:
    """Whether ``form`` occurs in ``text`` with no word character or "." before it and neither a word character
    nor "." and a digit after it (``\\w``: ``isalnum()`` or "_"; ``\\d``: ``isdecimal()``)."""
    at, size, n = text.find(form), len(form), len(text)
    while at >= 0:
        before, end = text[at - 1] if at else "", at + size
        if not (before and (before.isalnum() or before in "_.")) and not (end < n and (
                text[end].isalnum() or text[end] == "_" or text[end] == "." and text[end + 1: end + 2].isdecimal())):
            return True
        at = text.find(form, at + 1)
    return False


__all__ = ["named_in"]
