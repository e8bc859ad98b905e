"""Answers kept while one conversation is read and dropped with the reading (#47): its readers ask the same of the
same text (a message's sentences, whether a reply agrees), and nothing keyed on a conversation's text may outlive
its record (a cache across conversations would flatter a benchmark that repeats a file)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ReadingMemo(Generic[K, V]):
    """One reader's answers by key, held while a reading is open (``reading``); outside one, nothing is kept."""

    def __init__(self, compute: Callable[[K], V]) -> None:
        self.compute = compute
        self.held: list[dict[K, V]] = []  # one per open reading (a reading inside a reading keeps its own)

    @contextmanager
    def reading(self) -> Iterator[None]:
        self.held.append({})
        try:
            yield
        finally:
            self.held.pop()

    def __call__(self, key: K) -> V:
        if not self.held:
            return self.compute(key)
        memo = self.held[-1]
        found = memo.get(key)
        if found is None:
            found = memo[key] = self.compute(key)
        return found


__all__ = ["ReadingMemo"]
