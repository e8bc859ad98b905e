"""Message contents written as content parts, read as the text they hold (#48 item 5).

Some agents record a tool's output the way their model API hands it over: a list of parts,
``[{"type": "text", "text": "reservation_id='HATHAT' …"}]``, as a JSON list, or as that list's JSON text or
its Python repr inside the string tau2 expects. tau2's ``ToolMessage.content`` is a string, so the list form
fails validation, and the string forms hide the output from every reading (a recorded ``Error: …`` inside the
parts is not seen as a failed write; the records a tool returned are not found). Each such content is
replaced once, here at ingest, by the text of its parts joined with newlines; nothing downstream knows the
form. Only lists whose every element is a ``{"type": "text", "text": str}`` part are read; anything else
(an image part, another shape) is left as recorded, for tau2's validation to judge.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

CONTENT_PARTS_FLAG = "content_parts"  # a row with a message content read from content parts

# A string that may be a list of parts: it opens with a list holding an object whose first key is "type".
_LOOKS_LIKE_PARTS = re.compile(r"""\A\s*\[\s*\{\s*["']type["']\s*:""")
# ``ast.literal_eval`` builds only literals, but its parser's cost grows with the text: longer strings are
# left as recorded (a tool output this long is not a parts list worth reading).
_MAX_REPR = 1_000_000


def _parts_text(value: object) -> str | None:
    """The text a list of text parts holds, or None when ``value`` is not such a list."""
    if not isinstance(value, list) or not value:
        return None
    texts = []
    for part in value:
        if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
            return None
        if set(part) - {"type", "text", "annotations", "cache_control"}:
            return None  # a part carrying more than its text: not ours to flatten
        texts.append(part["text"])
    return "\n".join(texts)


def _parsed(text: str) -> object:
    """The list a string spells, as JSON or as a Python repr; None when it spells none."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        pass
    if len(text) > _MAX_REPR:
        return None
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def content_text(content: object) -> str | None:
    """The text of a content written as parts (a list, or its JSON or repr string), else None."""
    if isinstance(content, list):
        return _parts_text(content)
    if isinstance(content, str) and _LOOKS_LIKE_PARTS.match(content):
        return _parts_text(_parsed(content))
    return None


def read_content_parts(raw: object) -> tuple[object, bool]:
    """A raw simulation with each message content written as parts replaced by its text (a copy; the
    input is not changed), and whether any was. The list is copied only from the first such content on:
    a content that is neither a list nor a string the pattern matches is none (``content_text``'s gate)."""
    if not isinstance(raw, dict) or not isinstance(raw.get("messages"), list):
        return raw, False
    messages: list[Any] = raw["messages"]
    looks = _LOOKS_LIKE_PARTS.match
    out: list[Any] | None = None
    for k, message in enumerate(messages):
        content = message.get("content") if isinstance(message, dict) else None
        text = content_text(content) if isinstance(content, list) or (
            isinstance(content, str) and looks(content)) else None
        if text is None:
            if out is not None:
                out.append(message)
            continue
        if out is None:
            out = messages[:k]
        out.append({**message, "content": text})
    return ({**raw, "messages": out}, True) if out is not None else (raw, False)
