"""Answers kept while one conversation is read and dropped with the reading (#47): its readers ask the same of the
same text (a message's sentences, whether a reply agrees), and nothing keyed on a conversation's text may outlive
its record (a cache across conversations would flatter a benchmark that repeats a file)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class ReadingMemo(Generic[K, V]):
    """One reader's answers by key, held while a reading is open (``reading``); outside one, nothing is kept."""

    def __init__(self, compute: Callable[[K], V]) -> None:
        self.compute = compute
        self.held: list[dict[K, V]] = []  # one per open reading (a reading inside a reading keeps its own)

    def reading(self, *others: ReadingMemo) -> AbstractContextManager[None]:
        """A reading of this memo (and ``others``), open while the answer is entered."""
        return _Reading((self, *others))

    def __call__(self, key: K) -> V:
        if not self.held:
            return self.compute(key)
        memo = self.held[-1]
        found = memo.get(key)
        if found is None:
            found = memo[key] = self.compute(key)
        return found


class _Reading:
    """Readings of some memos, open while entered. (A class: a generator's context manager, entered for every
    record, cost more instructions than the answers of the memo it opened saved, #47.)"""

    __slots__ = ("memos",)

    def __init__(self, memos: tuple[ReadingMemo, ...]) -> None:
        self.memos = memos

    def __enter__(self) -> None:
        for memo in self.memos:
            memo.held.append({})

    def __exit__(self, *_: object) -> None:
        for memo in self.memos:
            memo.held.pop()


__all__ = ["ReadingMemo"]
