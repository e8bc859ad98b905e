"""A monolithic results file's simulations as byte spans, so that parallel workers parse them.

The main process only finds where each element of ``simulations`` starts and ends (numpy over 16 MB
blocks: quotes, escapes and brackets, no JSON values built); each worker reads its spans from the file
and decodes them with the same strict decoder as the stream (``_jsonstream``), checking the text between
them. Anything unexpected raises ``SpanError``: the caller then reads the file the ordinary way, whose
one-line error is the canonical one (or which reads it fine where this reader was too cautious).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from loophole_base import HarnessInputError, gc_paused
from loophole_ingest._identity import _Run as IdentifiedRun
from loophole_ingest._identity import identified
from loophole_ingest._jsonstream import (
    ARRAY,
    Stream,
    _Refused,
    members,
    open_stream,
    strict_value,
)
from loophole_ingest._simulations import ImportedSimulation

_BRACKETS = np.zeros(256, np.int8)
_BRACKETS[ord("{")] = _BRACKETS[ord("[")] = 1
_BRACKETS[ord("}")] = _BRACKETS[ord("]")] = -1
_BLANK = b" \t\n\r"


class SpanError(Exception):
    """The spans cannot be trusted (or a span does not decode): read the file the ordinary way."""


class SimulationSpans:
    """Iterate for each simulation's (start, end) byte offsets; then ``finish`` checks the rest of the
    file (the members after ``simulations``, no duplicate key, nothing after the object)."""

    # 1 MB blocks: each block's half-dozen whole-block numpy passes (quotes, brackets, their positions) then run in
    # the cache; with 16 MB blocks every pass went to memory and every temporary array was fresh pages (the scan
    # took 0.095 ms a trajectory of the benchmark's file, 0.062 with 1 MB; 256 kB gained nothing more).
    def __init__(self, path: Path, block: int = 1 << 20) -> None:
        self.path = path
        self.block = block
        self.stream: Stream = open_stream(path)
        self.members = members(self.stream)
        self.array_end: int | None = None
        self.seen: set[str] = set()
        try:
            for key, value in self.members:
                if key in self.seen:
                    raise SpanError(f"duplicate key {key!r}")
                self.seen.add(key)
                if key == "simulations" and value is ARRAY:
                    self.start = _byte_offset(self.stream)  # at the '['
                    return
        except HarnessInputError as exc:
            self.stream.close()
            raise SpanError(str(exc)) from None
        self.stream.close()
        raise SpanError("no simulations array")

    def __iter__(self) -> Iterator[tuple[int, int]]:
        with open(self.path, "rb") as fh:
            fh.seek(self.start)
            if fh.read(1) != b"[":
                raise SpanError("the simulations array is not where the stream says")
            fh.seek(self.start)
            yield from self._scan(fh)

    def _scan(self, fh) -> Iterator[tuple[int, int]]:  # noqa: ANN001 - a binary file
        base, depth, in_string, carry = self.start, 0, 0, 0  # carry: backslashes ending the last block
        opened = -1
        scratch = _Scratch(self.block)
        while size := fh.readinto(scratch.data):
            b = np.frombuffer(scratch.data, np.uint8, size)
            marks, in_string = _structural(b, carry, in_string, scratch)
            if len(marks):
                step = _BRACKETS[b[marks]].astype(np.int64)
                after = depth + np.cumsum(step)
                events = np.flatnonzero(((step > 0) & (after == 2)) | ((step < 0) & (after <= 1)))
                for i in events.tolist():
                    where = base + int(marks[i])
                    if step[i] > 0:
                        opened = where
                    elif after[i] == 1:
                        yield opened, where + 1
                    else:
                        self.array_end = where
                        return
                depth = int(after[-1])
            carry = _trailing_backslashes(b, carry)
            base += size
        raise SpanError("the simulations array does not end")

    def finish(self, last_end: int | None) -> None:
        """The text from the last simulation to ``]`` is blank, and the rest of the file is valid."""
        if self.array_end is None:
            self.stream.close()
            raise SpanError("spans not read to the end")
        try:
            lo = self.start + 1 if last_end is None else last_end
            with open(self.path, "rb") as fh:
                fh.seek(lo)
                if fh.read(self.array_end - lo).strip(_BLANK) != b"":
                    raise SpanError("text after the last simulation")
            stream = self.stream
            stream.fh.seek(self.array_end + 1)
            stream.buf, stream.pos, stream.eof, stream.bytes_read = "", 0, False, self.array_end + 1
            stream.decoder.reset()
            for key, _ in self.members:
                if key in self.seen:
                    raise SpanError(f"duplicate key {key!r}")
                self.seen.add(key)
            stream.finish()
        except HarnessInputError as exc:
            raise SpanError(str(exc)) from None
        finally:
            self.stream.close()


def _byte_offset(stream: Stream) -> int:
    pending = len(stream.decoder.getstate()[0])  # bytes read but not yet decoded (a split character)
    held = len(stream.buf.encode("utf-8", "surrogatepass"))
    return stream.bytes_read - pending - held + len(stream.buf[: stream.pos].encode("utf-8", "surrogatepass"))


# A block's bytes as bits, 64 to a word (bit i of word w: byte 64w + i), as simdjson finds a text's structure:
# a whole-block pass a character class, then a few passes over a sixty-fourth of the bytes. The quotes' and the
# brackets' positions were found one by one (``flatnonzero``) and a bracket's side of the quotes looked up
# (``searchsorted``): 0.88-0.93 s of CPU for the benchmark's 564 MB file, 0.56-0.68 s with the bits.
_WORD = np.dtype("<u8")
_EVEN = np.uint64(0x5555555555555555)  # the bits at even positions
_ODD = np.uint64(0xAAAAAAAAAAAAAAAA)
_ONE, _TOP = np.uint64(1), np.uint64(63)


class _Scratch:
    """A block's whole-block arrays, made once a scan, the block read into ``data``: a fresh megabyte each pass
    was fresh pages from the system each time (the scan's character classes took three times as long)."""

    def __init__(self, block: int) -> None:
        self.data = bytearray(block)
        size = block + -block % 64
        self.flags = np.empty(size, bool)
        self.work = np.empty(size, np.uint8)

    def bits(self, b: np.ndarray, byte: int) -> np.ndarray:
        """Where ``b`` holds ``byte``, as bits."""
        return np.packbits(np.equal(b, byte, out=self.flags[: len(b)]), bitorder="little").view(_WORD)

    def bracket_bits(self, b: np.ndarray) -> np.ndarray:
        """Where ``b`` holds a bracket or a brace, as bits. ``x | 0x20`` is '{' (0x7B) for '[' and '{' only, '}'
        (0x7D) for ']' and '}' only; minus 0x7B, masked with 0xFD, it is 0 for exactly those four: four passes where
        four comparisons and three ORs took seven."""
        t = self.work[: len(b)]
        np.bitwise_or(b, 0x20, out=t)
        np.subtract(t, 0x7B, out=t)
        np.bitwise_and(t, 0xFD, out=t)
        return np.packbits(np.equal(t, 0, out=self.flags[: len(b)]), bitorder="little").view(_WORD)


def _plus(a: np.ndarray, c: np.ndarray) -> np.ndarray:
    """``a + c`` as one number of ``len(a)`` words, low word first; the carry out of the last is dropped."""
    total = a + c
    carried = total < a
    while carried[:-1].any():  # a carry runs on through a word of all ones (64 backslashes)
        inc = np.zeros(len(a), _WORD)
        inc[1:] = carried[:-1]
        raised = total + inc
        carried = raised < total
        total = raised
    return total


def _structural(b: np.ndarray, carry: int, in_string: int, scratch: _Scratch) -> tuple[np.ndarray, int]:
    """The positions in ``b`` of the brackets and braces outside strings, and whether ``b`` ends inside a string
    (``in_string``: whether it starts inside one; ``carry``: the backslashes ending the text before ``b``).

    A quote is escaped when an odd run of backslashes stands before it: a run's first backslash added to the run
    carries through it to the byte after it, and the run is odd where that byte's position has the other parity
    than its first's (simdjson's ``find_escaped``). A byte is inside a string when an odd number of unescaped quotes
    stand before it: the running xor of the quotes' bits, within a word by shifts, across words by a running xor
    of each word's last bit."""
    n = len(b)
    if n % 64:  # padded with blanks to whole words
        b = np.concatenate([b, np.full(64 - n % 64, 32, np.uint8)])
    quotes, slashes, marks = scratch.bits(b, 34), scratch.bits(b, 92), scratch.bracket_bits(b)
    before = slashes << _ONE  # whether the byte before is a backslash
    before[1:] |= slashes[:-1] >> _TOP
    starts = slashes & ~before
    even, odd = starts & _EVEN, starts & _ODD
    if carry % 2 and slashes[0] & _ONE:  # the carried run goes on: it started an odd number of bytes before bit 0
        even[0] &= ~_ONE
        odd[0] |= _ONE
    escaped = (_plus(slashes, even) & ~slashes & _ODD) | (_plus(slashes, odd) & ~slashes & _EVEN)
    if carry % 2 and not slashes[0] & _ONE:
        escaped[0] |= _ONE
    inside = quotes & ~escaped
    for shift in (1, 2, 4, 8, 16, 32):
        inside ^= inside << np.uint64(shift)
    ends = np.bitwise_xor.accumulate(inside >> _TOP)  # inside a string after each word (from ``in_string`` 0)
    flip = np.empty_like(ends)
    flip[0] = in_string
    flip[1:] = ends[:-1] ^ np.uint64(in_string)
    inside ^= np.uint64(0) - flip  # a word that starts inside a string: every bit the other way
    marks &= ~inside
    words = np.flatnonzero(marks)
    at = np.flatnonzero(np.unpackbits(marks[words].view(np.uint8), bitorder="little").view(bool))  # bool: 5x faster
    return words[at >> 6] * 64 + (at & 63), int(ends[-1]) ^ in_string


def _trailing_backslashes(b: np.ndarray, carry: int) -> int:
    if not len(b) or b[-1] != 92:
        return 0
    others = np.flatnonzero(b != 92)
    if not len(others):
        return carry + len(b)
    return len(b) - 1 - int(others[-1])


def read_spans(path: Path, lo: int, spans: list[tuple[int, int]], first: bool) -> list[object]:
    """The simulations at ``spans`` decoded strictly; ``lo``: where the text before the first one starts
    (after ``[`` when ``first``, else the end of the previous span: a comma between)."""
    with open(path, "rb") as fh:
        fh.seek(lo)
        data = fh.read(spans[-1][1] - lo)
    out: list[object] = []
    prev = lo
    with gc_paused():
        for k, (start, end) in enumerate(spans):
            gap = data[prev - lo : start - lo].strip(_BLANK)
            if gap != (b"" if first and k == 0 else b","):
                raise SpanError(f"unexpected text before the simulation at byte {start}")
            try:
                value = strict_value(data[start - lo : end - lo])
            except (UnicodeDecodeError, json.JSONDecodeError, _Refused, RecursionError) as exc:
                raise SpanError(f"the simulation at byte {start}: {exc}") from None
            except ValueError:
                raise SpanError(f"the simulation at byte {start} is not one strict JSON value") from None
            out.append(value)
            prev = end
    return out




def read_simulations(
    run: IdentifiedRun, lo: int, spans: list[tuple[int, int]], first_index: int
) -> list[ImportedSimulation]:
    """The simulations at byte ``spans`` of ``run``'s monolithic file (``SimulationSpans``), validated as
    ``ImportedRun.iter_simulations`` validates them; ``SpanError`` wherever that would raise, so that the
    caller reads the file that way for the canonical one-line error. The validation runs with the collector
    paused too (``gc_paused``): its models outlive the chunk, and every collection in between walked the
    chunk's earlier ones again (validate 0.25 -> 0.18 ms a trajectory in the CPU budget)."""
    out = []
    with gc_paused():
        for k, raw in enumerate(read_spans(run.path, lo, spans, first_index == 0)):
            if not run.skip_bad and isinstance(raw, dict) and any(raw.get(f) is None for f in ("task_id", "termination_reason")):
                raise SpanError("a simulation without task_id or termination_reason")
            try:
                out.append(identified(run, first_index + k, raw))  # remapped or refused as the stream does
            except HarnessInputError as exc:
                raise SpanError(str(exc)) from None
    return out
