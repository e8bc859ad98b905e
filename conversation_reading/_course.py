"""Where each agent message stands in the conversation (``_sentences.consequential_sentences``): the user's next
message with words, the agent's next write, the first write and the last act."""

from __future__ import annotations

from collections.abc import Callable

from conversation_reading._evidence import Turn


class Course:
    """Where each message stands in the conversation, found in one pass back: the user's next message with words,
    the agent's next write, the first write and the last act (a write or a transfer). A turn's index is its
    position (``read_turns``). The user's last message before one is the record's (``TurnIndex.said_before``)."""

    def __init__(self, turns: list[Turn], is_write: Callable[[str], bool]) -> None:
        n = len(turns)
        # each list held by a local name, each turn's entries set in place (a tuple of two a turn, and the lists read
        # off ``self``, were most of the walk's cost, #47)
        said_from: list[Turn | None] = [None] * (n + 1)  # the first user message with words at or after
        self._said_from = said_from
        self._writes_from = writes_from = [n] * (n + 1)  # the position of the agent's first write at or after
        first_write, acted_after = n, -1
        said: Turn | None = None
        written = n
        for at in range(n - 1, -1, -1):
            t = turns[at]
            calls = t.calls
            if calls:
                writes = acts = False  # a write among the calls; a write or a transfer (a loop: no generator, #47)
                for c in calls:
                    if is_write(c.name):
                        writes = acts = True
                        break
                    acts = acts or c.name == "transfer_to_human_agents"
                if writes:
                    first_write = t.index
                    if t.role == "assistant":
                        written = at
                if acted_after < 0 and acts:
                    acted_after = t.index
            if t.role == "user" and t.text and not t.text.isspace():  # words: ``strip()`` not empty, with no copy
                said = t
            if said is not None:
                said_from[at] = said
            writes_from[at] = written
        self.first_write, self.acted_after = first_write, acted_after

    def relied(self, index: int, decisions: set[int]) -> bool:
        """The user's next message with words is a decision, or the agent writes before it."""
        said = self._said_from[index]
        written = self._writes_from[index] < len(self._writes_from) - 1
        if said is not None and (not written or said.index < self._writes_from[index]):
            return said.index in decisions
        return written

    def reply(self, index: int) -> Turn | None:
        """The user's next message with words after message ``index``."""
        return self._said_from[index + 1]


__all__ = ["Course"]
