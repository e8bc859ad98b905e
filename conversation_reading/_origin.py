"""A normalised text's origin map (``_normalise.Normalised.origin``) held as runs, not one integer per character.

A step of ``_normalise`` that drops or rewrites a few spans (markdown emphasis, JSON escapes) maps most of the text
one to one: built as a list, the map cost an integer object per character (most of a changed message's
normalisation); held as runs, it costs one entry per change. ``Origin`` reads as the sequence of integers the list
held (indexing, slicing, iteration, equality with any sequence of the same integers)."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Sequence
from itertools import repeat
from typing import overload


class Origin(Sequence[int]):
    """``origin[i]``: the original index of normalised ``text[i]``. Run ``k`` starts at index ``_at[k]`` with the value
    ``_to[k]`` and rises by ``_step[k]`` an index (0: a run of one value, as a replacement of another length maps)."""

    __slots__ = ("_at", "_to", "_step", "_len")

    def __init__(self, at: list[int], to: list[int], step: list[int], length: int) -> None:
        self._at, self._to, self._step, self._len = at, to, step, length

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, i: int) -> int: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[int]: ...

    def __getitem__(self, i: int | slice) -> int | Sequence[int]:
        if isinstance(i, slice):
            lo, hi, stride = i.indices(self._len)
            if stride != 1:
                return tuple(self)[i]
            part = OriginBuilder()
            part.extend(self, lo, hi)
            return part.build()
        if i < 0:
            i += self._len
        if not 0 <= i < self._len:
            raise IndexError("origin index out of range")
        k = bisect_right(self._at, i) - 1
        return self._to[k] + self._step[k] * (i - self._at[k])

    def _runs(self) -> Iterator[tuple[int, int, int, int]]:
        """Each run as (start, end, first value, step)."""
        at = self._at
        for k in range(len(at)):
            yield at[k], at[k + 1] if k + 1 < len(at) else self._len, self._to[k], self._step[k]

    def __iter__(self) -> Iterator[int]:
        for start, end, to, step in self._runs():
            yield from (repeat(to, end - start) if step == 0 else range(to, to + step * (end - start), step))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Origin) and (self._at, self._to, self._step, self._len) == (
                other._at, other._to, other._step, other._len):
            return True
        if isinstance(other, Origin | tuple | list | range):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Origin({list(self)!r})"


class OriginBuilder:
    """An origin map built left to right from parts of others (``extend``) and runs of one value (``repeat``); a part
    that continues the run before it joins it."""

    __slots__ = ("_at", "_to", "_step", "_len")

    def __init__(self) -> None:
        self._at: list[int] = []
        self._to: list[int] = []
        self._step: list[int] = []
        self._len = 0

    def _run(self, to: int, step: int, count: int) -> None:
        if count <= 0:
            return
        if self._at and self._step[-1] == step and self._to[-1] + step * (self._len - self._at[-1]) == to:
            self._len += count  # continues the last run
            return
        self._at.append(self._len)
        self._to.append(to)
        self._step.append(step)
        self._len += count

    def extend(self, origin: Sequence[int], lo: int, hi: int) -> None:
        """Append ``origin[lo:hi]`` (``0 <= lo``, ``hi <= len(origin)``)."""
        if hi <= lo:
            return
        if isinstance(origin, range):
            self._run(origin[lo], origin.step, hi - lo)
        elif isinstance(origin, Origin):
            for start, end, to, step in origin._runs():
                if end <= lo:
                    continue
                if start >= hi:
                    break
                a = max(start, lo)
                self._run(to + step * (a - start), step, min(end, hi) - a)
        else:  # any other sequence: its values one by one
            for value in origin[lo:hi]:
                self._run(value, 1, 1)

    def repeat(self, value: int, count: int) -> None:
        """Append ``count`` copies of ``value``."""
        self._run(value, 0, count)

    def build(self) -> Origin:
        return Origin(self._at, self._to, self._step, self._len)


__all__ = ["Origin", "OriginBuilder"]
