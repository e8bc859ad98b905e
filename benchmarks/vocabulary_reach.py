"""Which vocabulary entries fire on one conversation only (#46 item 5): such an entry is a phrasing, not a rule.

Each entry of ``conversation_reading/vocabulary.yaml`` (one fragment of a word class, one whole expression, one
group member of an evidence kind's subject, one claim or offer pattern) is compiled alone, as the vocabulary
compiles it (fragments as whole words, case-insensitive), and searched in every sentence and line of the side it
is read on: the user's turns for what a user says (requests, agreement, withdrawal, ...), the agent's speech
(its reasoning left out, transfer summaries in) for the rest, and the agent's raw text for the reasoning
patterns, which are read before the reasoning is removed. An entry *fires* on a conversation where it matches
there. This is the reach of the words, an upper bound on where a verdict used them: an entry that matches one
conversation can have decided at most that one.

Grammar words (negation, hypothetical, conditional and question openers, second person) and tool argument names
are not phrasings of the policy and are left out.

Used by ``credit_quality.py``; ``python benchmarks/vocabulary_reach.py RUN_DIR...`` prints the list for rescored
runs on its own.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

# The word classes a user's turn is read for; every other class is read in the agent's words.
USER_SIDE = frozenset({"transfer_request", "agreement", "keeps_reservation", "withdrawal", "explicit_yes",
                       "compensation", "compensation_request"})
# Matched on the agent's raw text (the reasoning is found there, then removed).
RAW_SIDE = frozenset({"reasoning", "third_person", "self_talk"})
# Grammar words and argument names: no phrasing of the policy.
NOT_PHRASINGS = frozenset({"negation", "hypothetical", "conditional", "question", "second_person",
                           "user_arguments", "record_arguments"})
# Classes compiled as whole regular expressions (the rest are fragments matched as whole words).
WHOLE = frozenset({"tier_claim", "false_cabin_rule", "reasoning", "third_person", "self_talk", "second_person",
                   "price_bound", "quote", "compensation_offer"})


@dataclass(frozen=True)
class Entry:
    where: str  # its place in vocabulary.yaml ("vocabulary.decline", "claims.booking_window.patterns", ...)
    text: str  # the fragment or expression as written
    side: str  # user | agent | raw
    pattern: re.Pattern[str]


def _fragment(text: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + text + r")\b", re.IGNORECASE)


def _whole(text: str) -> re.Pattern[str]:
    return re.compile(text, re.IGNORECASE)


def entries() -> list[Entry]:
    """Every entry of the vocabulary that states a phrasing, compiled alone."""
    from conversation_reading import load_vocabulary

    vocab = load_vocabulary()
    out: list[Entry] = []
    for name, values in vocab.vocabulary.model_dump().items():
        if name in NOT_PHRASINGS:
            continue
        side = "user" if name in USER_SIDE else "raw" if name in RAW_SIDE else "agent"
        compile_ = _whole if name in WHOLE else _fragment
        out += [Entry(f"vocabulary.{name}", v, side, compile_(v)) for v in values]
    for tool, fragments in vocab.requests.items():
        out += [Entry(f"requests.{tool}", f, "user", _fragment(f)) for f in fragments]
    for kind, claim in vocab.claims.kinds.items():
        out += [Entry(f"claims.{kind}.patterns", p, "agent", _whole(p)) for p in claim.patterns]
        out += [Entry(f"claims.{kind}.not_claims", p, "agent", _whole(p)) for p in claim.not_claims]
    for kind, ev in vocab.evidence.items():
        for part, groups in (("subject", ev.subject), ("indirect", ev.indirect)):
            out += [Entry(f"evidence.{kind}.{part}", f, "agent", _fragment(f)) for g in groups for f in g]
        out += [Entry(f"evidence.{kind}.not_the_clause", f, "agent", _fragment(f)) for f in ev.not_the_clause]
    for entry_id, offers in vocab.offers.items():
        out += [Entry(f"offers.{entry_id}", o.pattern, "agent", _whole(o.pattern)) for o in offers]
    return out


def _units(text: str) -> Iterator[str]:
    from conversation_reading import split_sentences

    yield from split_sentences(text)
    yield from (line for line in text.splitlines() if line.strip())


def sides(messages_json: str) -> dict[str, list[str]]:
    """A conversation's units by side: the user's, the agent's speech (with its transfer summaries) and the agent's
    raw text."""
    from conversation_reading import call_text_of, read_turns
    from loophole_scoring import tau2_messages

    messages = [m for m in json.loads(messages_json or "[]") if isinstance(m, dict) and m.get("role")]
    try:
        turns = read_turns(tau2_messages(messages))
    except (KeyError, ValueError):  # a message tau2 cannot read: its text is still the conversation's
        turns = []
    out: dict[str, list[str]] = {"user": [], "agent": [], "raw": []}
    for t in turns:
        if t.role == "user":
            out["user"] += _units(t.text)
        elif t.role == "assistant":
            out["agent"] += _units(t.text)
            out["agent"] += [call_text_of(c) for c in t.calls or ()]
            out["raw"] += _units(t.raw)
    return out


def reach(conversations: Iterable[tuple[str, str]]) -> dict[Entry, list[tuple[str, str]]]:
    """Each entry -> the conversations it fires on, each as (its name, the first unit it matched)."""
    found: dict[Entry, list[tuple[str, str]]] = {e: [] for e in entries()}
    for name, messages_json in conversations:
        units = sides(messages_json)
        for e in found:
            hit = next((u for u in units[e.side] if e.pattern.search(u)), None)
            if hit is not None:
                found[e].append((name, hit))
    return found


def print_phrasings(conversations: Iterable[tuple[str, str]]) -> int:
    """Print the entries that fire on exactly one conversation; return how many."""
    found = reach(list(conversations))
    once = [(e, hits[0]) for e, hits in found.items() if len(hits) == 1]
    never = sum(not hits for hits in found.values())
    n = len({name for hits in found.values() for name, _ in hits})
    print(f"\n{len(once)} vocabulary entr{'y' if len(once) == 1 else 'ies'} of {len(found)} fire on exactly one "
          f"conversation (a phrasing, not a rule; {never} fire on none; {n} conversations read):")
    for e, (name, unit) in once:
        print(f"- {e.where}: {e.text!r}\n  only in {name}: {unit[:160]!r}")
    return len(once)


def conversations_of(trials: pd.DataFrame) -> Iterator[tuple[str, str]]:
    """(file simulation task, messages_json) for each trial row."""
    for r in trials.itertuples():
        yield f"{Path(str(r.source_file)).name} simulation {r.simulation_id} task {r.task_id}", str(r.messages_json)


if __name__ == "__main__":
    import argparse

    from loophole_base import HarnessInputError
    from loophole_store import open_run

    ap = argparse.ArgumentParser(description="List the vocabulary entries that fire on one conversation only.")
    ap.add_argument("run_dir", nargs="+", type=Path, help="run directories (from rescore or sweep)")
    args = ap.parse_args()
    try:
        frames = [open_run(p).trials for p in args.run_dir]
    except HarnessInputError as e:
        sys.exit(f"error: {e}")
    print_phrasings(c for f in frames for c in conversations_of(f))
