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
        while data := fh.read(self.block):
            b = np.frombuffer(data, np.uint8)
            quotes = _real_quotes(b, carry)
            marks = np.flatnonzero(_brackets(b))
            if len(marks):
                outside = (np.searchsorted(quotes, marks) + in_string) % 2 == 0
                marks = marks[outside]
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
                depth = int(after[-1]) if len(after) else depth
            in_string = (in_string + len(quotes)) % 2
            carry = _trailing_backslashes(b, carry)
            base += len(data)
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


def _brackets(b: np.ndarray) -> np.ndarray:
    """Where ``b`` holds a bracket or a brace. ``x | 0x20`` is '{' (0x7B) for '[' and '{' only, '}' (0x7D) for ']'
    and '}' only; minus 0x7B, masked with 0xFD, it is 0 for exactly those four: four passes over the block
    where four comparisons and three ORs took seven (a gather through ``_BRACKETS`` took longer still)."""
    t = np.bitwise_or(b, 0x20)
    np.subtract(t, 0x7B, out=t)
    np.bitwise_and(t, 0xFD, out=t)
    return t == 0


_SHORT_RUNS = 32  # backslashes counted back one at a time up to this run; a longer run: ``_real_quotes_by_runs``


def _real_quotes(b: np.ndarray, carry: int) -> np.ndarray:
    """Positions of the quotes not escaped by an odd run of backslashes (``carry``: the run before ``b``).
    Only the quotes after a backslash have their run counted, one byte back at a time (runs are short)."""
    quotes = np.flatnonzero(b == 34)
    if not len(quotes):
        return quotes
    first = 1 if quotes[0] == 0 else 0  # a quote at the block's start: its run is ``carry``
    which = np.flatnonzero(b[quotes[first:] - 1] == 92) + first
    if not first and not len(which):
        return quotes
    escaped = np.zeros(len(quotes), bool)
    if first:
        escaped[0] = carry % 2 == 1
    # Most of them (a results file's tool outputs hold JSON: ``\"``) follow exactly one backslash: escaped, decided
    # at once; only the others are counted back below (a third of the scan's time went to counting them all).
    at = quotes[which] - 2
    one = b[at] != 92  # ``at`` -1 reads the block's last byte: that quote is excluded just below, and counted
    one &= at >= 0
    escaped[which[one]] = True
    which = which[~one]
    count = np.ones(len(which), np.int64)
    open_ = np.arange(len(which))
    back = 2
    while len(open_):
        if back > _SHORT_RUNS:
            return _real_quotes_by_runs(b, carry)
        at = quotes[which[open_]] - back
        past = at < 0  # the run reaches the block's start: it goes on into ``carry``
        count[open_[past]] += carry
        open_, at = open_[~past], at[~past]
        open_ = open_[b[at] == 92]
        count[open_] += 1
        back += 1
    escaped[which] = count % 2 == 1
    return quotes[~escaped]


def _real_quotes_by_runs(b: np.ndarray, carry: int) -> np.ndarray:
    """``_real_quotes`` from the runs of backslashes found over the whole block (any run length)."""
    quotes = np.flatnonzero(b == 34)
    if not len(quotes):
        return quotes
    is_bs = b == 92
    before = np.zeros(len(quotes), bool)
    inner = quotes > 0
    before[inner] = is_bs[quotes[inner] - 1]
    if quotes[0] == 0:
        before[0] = carry > 0
    if not before.any():
        return quotes
    slashes = np.flatnonzero(is_bs)
    run_starts = slashes[(slashes == 0) | ~is_bs[np.maximum(slashes - 1, 0)]] if len(slashes) else slashes
    cand = quotes[before]
    run = np.zeros(len(cand), np.int64)
    has = cand > 0
    if has.any():
        starts = run_starts[np.searchsorted(run_starts, cand[has] - 1, side="right") - 1]
        run[has] = cand[has] - starts + np.where(starts == 0, carry, 0)
    run[~has] = carry
    escaped = np.zeros(len(quotes), bool)
    escaped[np.flatnonzero(before)] = run % 2 == 1
    return quotes[~escaped]


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
