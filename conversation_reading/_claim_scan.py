"""Where a claim kind's patterns match one agent message (``_reading._claims``): sentence by sentence, each pattern
in its order, every match; a sentence that none of the kind's patterns could match (``_gate``) is passed over with
one test, not one per pattern, and a pattern that could not match a sentence is not scanned there."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Literal

from conversation_reading._claims import _Kind, checkers, claim_kinds
from conversation_reading._conversation_state import _State
from conversation_reading._gate import holds_any, needs
from conversation_reading._lowered_search import twin
from conversation_reading._message_scan import message_scan

Checker = Callable[[str, re.Match[str], str, _State], str | None]

# A pattern of a kind, its lowercase twin (``_lowered_search.twin``; None: none; False: not compiled yet, which
# ``kind_matches`` does when an ASCII sentence first passes the pattern's check: about half the kinds' patterns pass
# none in a rescore, and a twin compiled is about 0.3 ms once a process, #47) and its ``needs``' check
Search = tuple[re.Pattern[str], re.Pattern[str] | None | Literal[False], Callable[[str], bool]]
# Each kind's searches and gate (``holds_any`` of its patterns), by the kind's identity (held with it): built once,
# not once a conversation.
_GATES: dict[int, tuple[_Kind, list[Search], Callable[[str], bool]]] = {}


def kind_gates(kind: _Kind) -> tuple[list[Search], Callable[[str], bool]]:
    """``kind``'s (a claim kind's) patterns, each with its twin and its ``needs``' check, and ``holds_any`` of them all."""
    held = _GATES.get(id(kind))
    if held is None or held[0] is not kind:
        held = _GATES[id(kind)] = (kind, [(p, False, needs(p).check) for p in kind.patterns],
                                   holds_any(tuple(kind.patterns)))
    return held[1], held[2]


# The installed catalog's kinds with a checker, each with its checker, gates and bits in the message scan
# (``_message_scan``), and that scan: by the scan's identity (built once per catalog), not rebuilt for every
# conversation.
Scanned = tuple[_Kind, Checker, list[Search], Callable[[str], bool], int]
_SCANNED: list[tuple[Callable[[str], int], list[Scanned]]] = []


def scanned_kinds() -> tuple[list[Scanned], Callable[[str], int]]:
    """Each claim kind with a checker (``_claims.checkers``), in the catalog's order: (kind, checker, its searches
    (``kind_gates``), ``holds_any`` of its patterns, its bits); and the one scan of a lowered message (``_message_scan``, which
    answers for every such kind's patterns) whose answer shares no bit with a kind's bits where none of its
    patterns could match: a kind most messages rule out is passed over without its gate (each gate tests every word
    it needs in turn)."""
    scan, bit = message_scan("assistant")
    if not _SCANNED or _SCANNED[0][0] is not scan:
        check = checkers()
        kinds: list[Scanned] = []
        for kind in claim_kinds()[0]:
            if kind.name in check:
                bits = 0
                for p in kind.patterns:
                    bits |= bit[id(p)]
                kinds.append((kind, check[kind.name], *kind_gates(kind), bits))
        _SCANNED[:] = [(scan, kinds)]
    return _SCANNED[0][1], _SCANNED[0][0]


# A kind's searches and gate narrowed to the patterns whose bits a message's scan set, by the kind's identity and those
# bits (held with the kind; a kind has a few patterns, so a few narrowings at most): built once, not once a message.
_NARROWED: dict[tuple[int, int], tuple[_Kind, list[Search], Callable[[str], bool]]] = {}


def _never(_: str) -> bool:
    return False


def narrowed(kind: _Kind, searches: list[Search], on: int) -> tuple[list[Search], Callable[[str], bool]]:
    """``kind``'s searches (``searches``: its own, ``kind_gates``) less the patterns none of whose bits is in ``on`` (a
    message's scan's answer, ``_message_scan``: a pattern whose bits it lacks holds no word its gate needs, so it
    matches no sentence of the message), and ``holds_any`` of those left: the same matches, in the same order, with
    fewer words tested in each sentence (#47)."""
    held = _NARROWED.get((id(kind), on))
    if held is None or held[0] is not kind:
        _, bit = message_scan("assistant")
        kept = [search for search in searches if bit[id(search[0])] & on]
        held = _NARROWED[(id(kind), on)] = (kind, kept, holds_any(tuple(p for p, _, _ in kept)) if kept else _never)
    return held[1], held[2]


def kind_matches(
    searches: Sequence[Search], may: Callable[[str], bool], sentences: Sequence[str], lowered: Sequence[str] | None,
) -> Iterator[tuple[str, re.Match[str]]]:
    """Each (sentence, match) of a kind's patterns in ``sentences``, in order (``searches``: each pattern with its twin
    and its ``needs``' check, ``kind_searches``; ``may``: ``holds_any`` of them all; ``lowered``: each sentence's
    lowercase, None where the gate does not apply). An ASCII sentence is scanned by the pattern's twin over its
    lowercase (``_lowered_search``): the same matches at the same places, their text lowered, which no checker
    reads but through ``lower`` or as digits (tests/test_claim_twins.py)."""
    one = len(searches) == 1  # ``may`` is that pattern's own gate: tested once a sentence, not twice
    for k, sentence in enumerate(sentences):
        if lowered is None:
            for pattern, _, _ in searches:
                yield from ((sentence, m) for m in pattern.finditer(sentence))
            continue
        low = lowered[k]
        if not may(low):
            continue
        plain = sentence.isascii()
        for pattern, found, check in searches:
            if one or check(low):  # ``holds``, without its call (of a kind's one pattern: ``may``'s test, passed)
                if plain and found is False:
                    found = _twinned(searches, pattern)
                for m in (found.finditer(low) if plain and found else pattern.finditer(sentence)):
                    yield sentence, m


def _twinned(searches: Sequence[Search], pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """``pattern``'s twin, compiled now and kept in its search (``searches`` is a kind's own list, ``kind_gates``)."""
    found = twin(pattern)
    if isinstance(searches, list):
        for k, (p, _, check) in enumerate(searches):
            if p is pattern:
                searches[k] = (p, found, check)
    return found


__all__ = ["kind_gates", "kind_matches", "narrowed", "scanned_kinds"]
