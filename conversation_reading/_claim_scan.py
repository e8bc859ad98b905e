"""Where a claim kind's patterns match one agent message (``_reading._claims``): sentence by sentence, each pattern
in its order, every match; a sentence that none of the kind's patterns could match (``_gate``) is passed over with
one test, not one per pattern, and a pattern that could not match a sentence is not scanned there."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from conversation_reading._claims import _Kind, checkers, claim_kinds
from conversation_reading._conversation_state import _State
from conversation_reading._gate import Needs, holds_any, needs
from conversation_reading._message_scan import message_scan

Checker = Callable[[str, re.Match[str], str, _State], str | None]

# Each kind's gates (its patterns' ``needs`` and ``holds_any`` of them), by the kind's identity (held with it):
# built once, not once a conversation.
_GATES: dict[int, tuple[_Kind, list[Needs], Callable[[str], bool]]] = {}


def kind_gates(kind: _Kind) -> tuple[list[Needs], Callable[[str], bool]]:
    """``kind``'s (a claim kind's) patterns' ``needs``, and ``holds_any`` of them all."""
    held = _GATES.get(id(kind))
    if held is None or held[0] is not kind:
        held = _GATES[id(kind)] = (kind, [needs(p) for p in kind.patterns], holds_any(tuple(kind.patterns)))
    return held[1], held[2]


# The installed catalog's kinds with a checker, each with its checker, gates and bits in the message scan
# (``_message_scan``), and that scan: by the scan's identity (built once per catalog), not rebuilt for every
# conversation.
Scanned = tuple[_Kind, Checker, list[Needs], Callable[[str], bool], int]
_SCANNED: list[tuple[Callable[[str], int], list[Scanned]]] = []


def scanned_kinds() -> tuple[list[Scanned], Callable[[str], int]]:
    """Each claim kind with a checker (``_claims.checkers``), in the catalog's order: (kind, checker, its patterns'
    ``needs``, ``holds_any`` of them, its bits); and the one scan of a lowered message (``_message_scan``, which
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


def kind_matches(
    patterns: Sequence[re.Pattern[str]], needed: Sequence[Needs], may: Callable[[str], bool], sentences: Sequence[str],
    lowered: Sequence[str] | None,
) -> Iterator[tuple[str, re.Match[str]]]:
    """Each (sentence, match) of ``patterns`` in ``sentences``, in order (``needed``: each pattern's ``needs``;
    ``may``: ``holds_any`` of them all; ``lowered``: each sentence's lowercase, None where the gate does not apply)."""
    for k, sentence in enumerate(sentences):
        if lowered is not None and not may(lowered[k]):
            continue
        for pattern, required in zip(patterns, needed, strict=True):
            if lowered is None or required.check(lowered[k]):  # ``holds``, without its call
                for m in pattern.finditer(sentence):
                    yield sentence, m


__all__ = ["kind_gates", "kind_matches", "scanned_kinds"]
