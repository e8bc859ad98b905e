"""Strict, streaming JSON: no duplicate keys, no NaN/Infinity, valid UTF-8, no lone surrogate escapes;
a results file's simulations are read one at a time, so memory stays bounded.

Not ijson: with duplicate-key checks ijson (yajl2_c) took 2.47 s vs 1.90 s here to stream the 200 MB benchmark file, and it reads a lone surrogate as '?' unseen.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import orjson

from loophole_base import HarnessInputError, number_token_before, shown

JSONObject = dict[str, Any]  # a decoded JSON object (values: any JSON value)


class _Refused(ValueError):
    """Text that ``json`` would accept but strict JSON does not (a duplicate key, a non-finite number)."""


def _no_duplicates(pairs: list[tuple[str, object]]) -> JSONObject:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Refused(f"duplicate key {key!r}")
            seen.add(key)
    return out


def _no_constant(name: str) -> object:
    raise _Refused(f"non-finite number {name} (not JSON)")


_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
_NONBLANK = re.compile(r"[^ \t\n\r]")
# A \uD800-\uDFFF escape that is not part of a surrogate pair: JSON allows it, UTF-8 cannot hold it.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _lone_surrogate(text: str) -> str | None:
    """The first lone surrogate escape in a JSON text, if any (a pair, or an escaped backslash, is fine)."""
    paired_low = -1
    for m in _SURROGATE_ESCAPE.finditer(text):
        start = m.start()
        if start == paired_low:
            continue
        k = start
        while k > 0 and text[k - 1] == "\\":
            k -= 1
        if (start - k) % 2:
            continue  # "\\ud800": an escaped backslash, then plain text
        high = text[start + 3] in "89abAB"
        if high and _SURROGATE_ESCAPE.match(text, m.end()) and text[m.end() + 3] in "cdefCDEF":
            paired_low = m.end()
            continue
        return m.group()
    return None


def _written_big(written: bytes) -> bool:
    """Whether orjson's compact text holds a number written with a positive exponent (1.8446744073709552e+19:
    where it read an integer beyond 64 bits as a float). Looked for after ``e+`` only (a regex over the whole
    text cost 10x more); an ``e+`` in a string that looks like one is taken for one: decoded again, no harm."""
    if b"+" not in written:  # one memchr: most simulations
        return False
    return number_token_before(written, b"e+", b":,[")


def _escaped_colon(data: bytes) -> bool:
    """Whether ``data`` holds ``\\u003`` (an escaped ':' is ``\\u003a``), looked for only where some backslash is
    followed by 'u' (most simulations have none): two of numpy's whole-text comparisons cost less than half of
    ``bytes.find`` of ``\\u003``, which halts at nearly every byte of prose."""
    b = np.frombuffer(data, np.uint8)
    if not ((b[:-1] == 92) & (b[1:] == 117)).any():
        return False
    return b"\\u003" in data


def _colons(text: bytes) -> int:
    """How many ':' bytes ``text`` holds: numpy compares 16 or 32 bytes at a time, where ``bytes.count`` of one
    byte walks them one by one (a third of the cost on a simulation's 30 kB)."""
    return int(np.count_nonzero(np.frombuffer(text, np.uint8) == 58))


class CompactList(list):
    """A decoded simulation's messages, with orjson's compact text of them as decoded (``compact``), which
    ``strict_value`` writes anyway to check the decoding: the messages column (``loophole_store.json_text``)
    reuses it instead of writing the list again (~0.05 ms a trajectory). Nothing changes a decoded simulation's
    messages in place (content parts are read into a copy, ``_content_parts``), so the text stays theirs."""

    __slots__ = ("compact",)

    def __init__(self, items: list[Any], compact: bytes) -> None:
        super().__init__(items)
        self.compact = compact


def strict_value(data: bytes) -> Any:
    """One whole JSON value (a simulation's span), decoded strictly: what ``_DECODER`` makes of ``data`` as
    UTF-8, and its exceptions (``UnicodeDecodeError``, ``json.JSONDecodeError``, ``_Refused``,
    ``RecursionError``) or ``ValueError`` (text after the value, a lone surrogate escape).

    orjson first (~4x faster); its value is kept only where it must be ``_DECODER``'s: orjson is RFC 8259
    strict (no NaN, valid UTF-8, no lone surrogate escape), so what it reads differently is a duplicate key (it
    keeps the last), an integer beyond 64 bits (it makes a float, written back as ``1.8e+19``) or nesting too
    deep for its writer (255). A duplicate shows as fewer ``:`` in the value written back than in ``data``
    (``\\u003a`` excepted: an escaped colon). Anything else, refused or in doubt, is decoded by ``_DECODER``
    (tests/test_strict_json.py checks the two agree)."""
    if data[:1] == b"{" and data[-1:] == b"}" and not _escaped_colon(data):
        try:
            value = orjson.loads(data)
            messages = value.get("messages")
            if isinstance(messages, list):  # written apart: the messages column reuses their text (``CompactList``)
                listed = orjson.dumps(messages)
                written = orjson.dumps({k: v for k, v in value.items() if k != "messages"})
                colons = _colons(listed) + 1  # the colon after the "messages" key
            else:
                listed, written, colons = b"", orjson.dumps(value), 0
        except (orjson.JSONDecodeError, orjson.JSONEncodeError):
            pass
        else:
            if not _written_big(written) and not _written_big(listed) and colons + _colons(written) == _colons(data):
                if isinstance(messages, list):
                    value["messages"] = CompactList(messages, listed)
                return value
    text = data.decode("utf-8")
    value, stop = _DECODER.raw_decode(text)
    if stop != len(text):
        raise ValueError("text after the value")
    if "\\u" in text and (lone := _lone_surrogate(text)):
        raise ValueError(f"lone surrogate escape {lone!r}")
    return value


class Stream:
    """One JSON file read in chunks: whitespace, punctuation and whole values, decoded strictly.

    Only the current value and one chunk are in memory; a value that spans chunks is decoded again
    once more text has been read (rare: chunks are much larger than one simulation).
    """

    def __init__(self, path: Path, chunk: int = 1 << 24, first: int = 1 << 20) -> None:
        self.path = path
        self.chunk = chunk
        # reads start at ``first`` and double up to ``chunk``: a header read alone (the import's, the span scan's:
        # 0.2-0.4 MB in tau2's files) took a whole 16 MB chunk, read, hashed and decoded (~15-30 ms each, #47)
        self.next_read = min(first, chunk)
        self.fh: BinaryIO = open(path, "rb")  # noqa: SIM115 - closed by close()
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.bytes_read = 0
        self.hasher = hashlib.sha256()
        self.lines_before = 0  # newlines in the text already dropped from ``buf``…
        self.column_before = 0  # …and the characters after the last of them: an error's line and column

    def close(self) -> None:
        self.fh.close()

    def error(self, what: str) -> HarnessInputError:
        return HarnessInputError(f"{shown(self.path)}: {what}")

    def _more(self) -> bool:
        if self.eof:
            return False
        data = self.fh.read(max(self.next_read, len(self.buf) - self.pos))
        self.next_read = min(2 * self.next_read, self.chunk)
        self.hasher.update(data)
        try:
            text = self.decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            raise self.error(f"not valid UTF-8 at byte {self.bytes_read + exc.start}") from None
        self.bytes_read += len(data)
        self.eof = not data
        dropped = self.buf[: self.pos]
        newlines = dropped.count("\n")
        self.lines_before += newlines
        self.column_before = len(dropped) - dropped.rfind("\n") - 1 if newlines else self.column_before + len(dropped)
        self.buf = self.buf[self.pos :] + text
        self.pos = 0
        return bool(data)

    def peek(self) -> str:
        """The next non-blank character ('' at the end of the file)."""
        while True:
            m = _NONBLANK.search(self.buf, self.pos)
            if m is not None:
                self.pos = m.start()
                return self.buf[self.pos]
            self.pos = len(self.buf)
            if not self._more():
                return ""

    def expect(self, chars: str, what: str) -> str:
        ch = self.peek()
        if ch == "" or ch not in chars:
            found = "end of file (truncated file?)" if ch == "" else repr(ch)
            raise self.error(
                f"not valid JSON: expected {what}, found {found} at character {self._offset()}"
            )
        self.pos += 1
        return ch

    def _offset(self) -> int:
        return self.bytes_read - len(self.buf.encode("utf-8", "surrogatepass")) + self.pos

    def value(self, where: str, check_text: bool = True) -> Any:
        """The next JSON value (``check_text=False``: lone surrogate escapes not looked for)."""
        self.peek()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError:
                if self._more():
                    continue
                raise self.error(self._decode_error(where)) from None
            except _Refused as exc:
                raise self.error(f"not valid JSON: {exc} in {where}") from None
            except RecursionError:
                raise self.error(f"not valid JSON: nesting too deep in {where}") from None
            if end == len(self.buf) and self._more():
                continue  # a number may go on in the next chunk
            if check_text:
                text = self.buf[self.pos : end]
                if "\\u" in text and (lone := _lone_surrogate(text)):
                    raise self.error(f"not valid JSON: lone surrogate escape {lone!r} in {where}")
            self.pos = end
            return value

    def _decode_error(self, where: str) -> str:
        """``truncated JSON: unterminated string starting at line L column C in field 'tasks'`` (the file
        ends inside a value), else ``not valid JSON: …``: json's message with the file's line and column.
        Decoded again: the last ``_more()`` moved the buffer under the first error's position."""
        try:
            _DECODER.raw_decode(self.buf, self.pos)
        except json.JSONDecodeError as error:
            exc = error
        else:  # pragma: no cover - the same text decoded once more fails the same way
            return "not valid JSON"
        head = self.buf[: exc.pos]
        newlines = head.count("\n")
        line = self.lines_before + newlines + 1
        column = exc.pos - head.rfind("\n") if newlines else self.column_before + exc.pos + 1
        truncated = exc.msg.startswith("Unterminated string") or exc.pos >= len(self.buf.rstrip()) - 1
        msg = exc.msg[:1].lower() + exc.msg[1:]
        at = "" if msg.endswith(" at") else " at"
        return f"{'truncated' if truncated else 'not valid'} JSON: {msg}{at} line {line} column {column} in {where}"

    def finish(self) -> str:
        """Refuses text after the top-level value; the file's sha256."""
        if self.peek() != "":
            raise self.error(
                f"not valid JSON: extra data after the top-level object at character {self._offset()}"
            )
        return self.hasher.hexdigest()


ARRAY = object()  # the value ``members`` yields for ``simulations``: its elements are the caller's to read


def members(stream: Stream) -> Iterator[tuple[str, Any]]:
    """The top-level object's members; ``simulations`` yields ``ARRAY`` and its elements are read by the
    caller with ``elements`` before iteration goes on."""
    stream.expect("{", "a JSON object with 'info', 'tasks' and 'simulations'")
    if stream.peek() == "}":
        stream.pos += 1
        return
    while True:
        key = stream.value("a top-level key")
        if not isinstance(key, str):
            raise stream.error("not valid JSON: an object key must be a string")
        stream.expect(":", "':'")
        if key == "simulations" and stream.peek() == "[":
            yield key, ARRAY
        else:
            yield key, stream.value(f"field {key!r}")
        if stream.expect(",}", "',' or '}'") == "}":
            return


def elements(stream: Stream, where: str, check_text: bool = True) -> Iterator[Any]:
    """An array's elements, one at a time."""
    stream.expect("[", "'['")
    if stream.peek() == "]":
        stream.pos += 1
        return
    index = 0
    while True:
        yield stream.value(f"{where}[{index}]", check_text)
        index += 1
        if stream.expect(",]", "',' or ']'") == "]":
            return


def open_stream(path: Path) -> Stream:
    """A regular file opened for streaming; anything else is a one-line ``HarnessInputError``."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise HarnessInputError(f"{shown(path)}: not a regular file")
        return Stream(path)
    except OSError as exc:
        raise HarnessInputError(f"{shown(path)}: cannot read ({exc.strerror})") from None


def read_json_strict(path: Path, what: str = "file") -> tuple[Any, str]:
    """A whole (small) JSON file, strictly decoded, and its sha256."""
    stream = open_stream(path)
    try:
        value = stream.value(what)
        return value, stream.finish()
    finally:
        stream.close()


def sha256_file(path: Path) -> str:
    """The file's sha256: ``hashlib.file_digest`` reads it into one buffer, where a fresh 4 MB ``bytes`` a read
    cost 7% more CPU (0.41 against 0.38 s for the benchmark's 564 MB file)."""
    try:
        with open(path, "rb") as fh:
            return hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError as exc:
        raise HarnessInputError(f"{shown(path)}: cannot read ({exc.strerror})") from None
