"""What a conversation must show for a variant to credit it, and the explanation every credit carries.

A variant's database outcome says what was done, not why. Two checks over the messages and tool calls:

- **Evidence** (refusal-type readings). A refusal's database is the initial one, which an agent that did
  nothing also reaches, so the trajectory must show the decision: an assistant sentence that declines and
  names the contested clause's subject, or a ``transfer_to_human_agents`` whose summary does. A decline that
  names the clause only indirectly, or a transfer whose summary names no clause, is weaker evidence than the
  rule asks: the verdict is ``uncertain`` (an upper bound), never a credit.
- **Preconditions** (``_preconditions``): what the agent must have done to take the reading while keeping the
  rest of the policy.

Self-contradiction (the written rule): an agent that both refuses the contested act and acts against the
refusal (does it, or offers its loophole's workaround) took neither reading, whatever the order.

The words (subject terms, decline and condition words, workaround offers) are the catalog's
(``vocabulary.yaml``, compiled by ``_vocabulary``). This module is the machinery: sentence splitting (a list
introduced by a colon continues its sentence), negation scope, quoted user text kept apart from the agent's
own words, and the order of messages relative to writes.

Every check returns message indices, speakers and excerpts, so a credit can be read back in minutes
(``_explanation.Explanation``, stored as ``scores.explanation_json``; ``harness explain`` prints it).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from tau2.data_model.message import Message

from conversation_reading._arguments_json import arguments_excerpt
from conversation_reading._excerpts import excerpt_of
from conversation_reading._gate import gateable, may_match
from conversation_reading._lowered_search import ascii_lowered, matches, scans, twin
from conversation_reading._message_kinds import calls_of, is_assistant_message
from conversation_reading._normalise import _apply, normalise, normalised, origin_span, speech
from conversation_reading._origin import Origin
from conversation_reading._units import Units, split_sentences
from conversation_reading._vocabulary import EvidenceKind, vocabulary

TRANSFER_TOOL = "transfer_to_human_agents"
_QUOTED = re.compile(r"[\"\u201c]([^\"\u201c\u201d]{12,}?)[\"\u201d]")
_CLAUSE_BREAK = re.compile(r"[,;:()\u2014\u2013]|\s-+\s|\b(?:but|however|although|though|yet)\b", re.IGNORECASE)
_CLAUSE_BREAK_LOWERED = twin(_CLAUSE_BREAK)  # ``negated`` splits an ASCII text's lowercase by it
# The cabin rules stated correctly ("not allowed if any flight has already been flown"; "not possible for just
# one segment", the one cabin of a reservation, #40): no misstatement.
CONDITIONAL_RULE = re.compile(r"\bflown\b|\balready (?:departed|used|taken|travell?ed)\b"
                               r"|\b(?:one|a single|single|individual) (?:legs?|segments?|flights?)\b", re.IGNORECASE)
_NEGATION_REACH = 5  # words before a term that a negator scopes over


@dataclass
class EvidenceItem:
    message_index: int
    role: str
    excerpt: str
    tool_call: str | None
    what: str
    certain: bool = True  # False: weaker than the rule asks (the verdict is uncertain)
    start: int | None = None  # the excerpt's place in the message's original content (the viewer marks it)
    end: int | None = None


@dataclass
class PreconditionResult:
    name: str
    held: bool
    detail: str
    decided: bool = True  # False: the messages cannot decide it (the verdict is uncertain)


class Turn:
    """One message as the verdicts read it. ``text``: normalised (``_normalise``), an agent's without its reasoning
    and the user's words it quotes; ``raw``: the content as written; ``origin``: ``text[i]`` came from
    ``raw[origin[i]]`` (``_normalise.Normalised.origin``). A message that is neither the user's nor the agent's (a
    tool's result: no reader reads it as speech) is an ``UnreadTurn``, normalised when its text is first read."""

    # No ``__getattr__`` here (``UnreadTurn`` has it): a class with one has each of its attributes read through it,
    # which the interpreter cannot specialise (several times the cost of a slot, for every reader of every turn, #47)
    __slots__ = ("index", "role", "calls", "raw", "text", "origin")
    text: str
    origin: Sequence[int]

    def __init__(self, index: int, role: str, text: str, calls: tuple[Any, ...], raw: str = "",
                 origin: Sequence[int] = ()) -> None:
        self.index, self.role, self.calls, self.raw = index, role, calls, raw
        self.text, self.origin = text, origin

    def _fields(self) -> tuple[Any, ...]:
        return self.index, self.role, self.text, self.calls, self.raw, self.origin

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, Turn) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "Turn(index={!r}, role={!r}, text={!r}, calls={!r}, raw={!r}, origin={!r})".format(*self._fields())

    def excerpt(self, unit: str) -> tuple[str, int | None, int | None]:
        """``unit`` (a sentence of ``text``) as the original text has it, and where: (excerpt, start, end)."""
        at = self.text.find(unit[:40]) if unit else -1
        if at < 0 or not self.origin:
            return excerpt_of(unit), None, None
        tail = unit[-20:]
        last = self.text.find(tail, at)
        end = last + len(tail) if last >= 0 else min(at + len(unit), len(self.text))
        start, stop = origin_span(self.origin, at, end)
        return excerpt_of(self.raw[start:stop]), start, stop


class UnreadTurn(Turn):
    """A turn built unread: its ``text`` and ``origin`` are ``raw`` normalised when first read (``__getattr__``)."""

    __slots__ = ()

    def __init__(self, index: int, role: str, calls: tuple[Any, ...], raw: str) -> None:
        self.index, self.role, self.calls, self.raw = index, role, calls, raw

    def __getattr__(self, name: str) -> Any:
        """``text`` or ``origin``, not set yet: ``raw`` normalised, now (a slot that is set is read without this
        call)."""
        if name not in ("text", "origin"):
            raise AttributeError(name)
        said = normalise(self.raw)
        self.text, self.origin = said.text, said.origin
        return getattr(self, name)


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s']", " ", text.lower()).split())


# The last conversation read, and its turns: every reader of one trajectory (its variants' evidence,
# preconditions and requests, strict's no-write readings, the claims, the record) reads the same turns, built
# once. The key holds each message, its content and calls (the same objects: cheap to compare); an edit in
# place is a new conversation.
_LAST: list[tuple[tuple, tuple[Turn, ...]]] = []


def read_turns(messages: Sequence[Message]) -> list[Turn]:
    """The turns as the verdicts read them: normalised, an agent's reasoning and quotes of the user out."""
    # compared message by message before any key is built (a hit builds none)
    if _LAST and len(_LAST[0][0]) == len(messages) and all(
        x[0] is m and x[1] == m.role and x[2] is m.content and x[3] is calls_of(m)
        for x, m in zip(_LAST[0][0], messages, strict=True)
    ):
        return list(_LAST[0][1])
    key = tuple((m, m.role, m.content, calls_of(m)) for m in messages)
    out = _read_turns(messages)
    _LAST[:] = [(key, tuple(out))]
    _MENTIONED.clear()  # the answers on the conversation read before
    return out


_ORIGIN_MAPS = (range, Origin)  # an origin map kept as it is (any other sequence: a tuple)
_new = object.__new__  # a turn's slots set in place: ``Turn(...)`` runs ``__init__`` in an interpreter loop of its own
_NO_WORDS = range(1)  # the origin map of "" (built once: a range costs about 900 instructions to build)


def _read_turns(messages: Sequence[Message]) -> list[Turn]:
    out: list[Turn] = []
    users: list[str] = []  # the user's texts so far: an agent quoting them is not speaking for itself
    heard, heard_of = "", 0  # the first ``heard_of`` of them, each ``_norm``-ed after a space (built when a quote needs it)
    v = vocabulary()
    for i, m in enumerate(messages):
        # each field read once: a message's attributes are read through pydantic's ``__getattr__``
        role, content = m.role, m.content
        raw = content if isinstance(content, str) else ""
        calls = tuple(m.tool_calls or []) if is_assistant_message(m) else ()  # by type (``_message_kinds``)
        if role != "user" and role != "assistant":  # no reader's speech: normalised when read (``UnreadTurn``)
            out.append(unread := _new(UnreadTurn))
            unread.index, unread.role, unread.calls, unread.raw = i, role, calls, raw
            continue
        out.append(t := _new(Turn))
        if not raw and role == "assistant":  # calls, no words (half of the agent's): "" is its own speech, untouched
            t.index, t.role, t.text, t.calls, t.raw, t.origin = i, role, raw, calls, raw, _NO_WORDS
            continue
        text, origin = normalised(raw)
        if role == "assistant":  # only what the agent said to the user is speech, not its reasoning (#40)
            text, origin = speech(text, origin, v.reasoning, v.aside, v.second_person)
        if role == "user":
            users.append(text)
        elif users and ('"' in text or "\u201c" in text):  # ``_QUOTED`` opens with one
            heard += "".join(" " + _norm(u) for u in users[heard_of:])
            heard_of = len(users)
            def unquote(q: re.Match[str], said: str = heard) -> str:  # what the user said so far, bound as it is now
                return "\u2026" if _norm(q.group(1)) in said else q.group(0)
            text, origin = _apply(text, origin, _QUOTED, unquote)
        t.index, t.role, t.text, t.calls, t.raw, t.origin = (
            i, role, text, calls, raw, origin if isinstance(origin, _ORIGIN_MAPS) else tuple(origin))
    return out


def negated(text: str, start: int, markers: re.Pattern[str] | None = None) -> bool:
    """Whether a negator (or another of ``markers``) scopes over the term at ``start``: in its clause, a few
    words before it."""
    before = text[:start]
    neg = markers or vocabulary().negation
    if before.isascii() and _CLAUSE_BREAK_LOWERED is not None:  # split lowered, as ``_lowered_search`` says: the
        # same clause, lowercase (a word's strip keeps no letter). The clause ends ``before``: its last words lie in
        # ``before``'s last words, and where those lack the words a marker needs (``_gate``), none is a marker; a
        # marker is a part of ``before``, so where the whole of it lacks them (most terms), it is not cut into words
        lowered = before.lower()
        if not may_match(neg, lowered, True) or not may_match(
                neg, " ".join(lowered.rsplit(None, _NEGATION_REACH)[-_NEGATION_REACH:]), True):
            return False
        clause = _CLAUSE_BREAK_LOWERED.split(lowered)[-1]
        return any(neg.fullmatch(w.strip(".,!?\"'*()")) for w in clause.split()[-_NEGATION_REACH:])
    clause = _CLAUSE_BREAK.split(before)[-1]
    return any(neg.fullmatch(w.strip(".,!?\"'*()").lower()) for w in clause.split()[-_NEGATION_REACH:])


def asserted(text: str, start: int) -> bool:
    """The term at ``start`` is stated, not negated or hypothetical ("if your Gold status is confirmed")."""
    return not negated(text, start) and not negated(text, start, vocabulary().hypothetical)


# Where one coordinate clause of a sentence ends ("…, and …", "…; …", "… but …"): a condition in one clause
# does not bind another.
_COORDINATE = re.compile(r";|:|\s-+\s|,?\s+\b(?:and|but|while|whereas|however|also|plus)\b\s+", re.IGNORECASE)


def price_bound(sentence: str, start: int, end: int) -> bool:
    """The verdict at ``sentence[start:end]`` is conditioned on the user's budget or a price, in its own
    coordinate clause ("the business upgrade isn't possible within your $200 budget"): no statement of a
    rule (#40 class 4). "Upgrades aren't allowed on basic economy, and it's over your budget" still states one."""
    before = [m.end() for m in _COORDINATE.finditer(sentence, 0, start)]
    after = _COORDINATE.search(sentence, end)
    clause = sentence[(before[-1] if before else 0) : (after.start() if after else len(sentence))]
    return bool(vocabulary().price_bound.search(clause))


# What ``mentions`` answered on the conversation last read (``read_turns`` drops it when it reads another, so nothing
# is kept across conversations): its readers ask the same of the same text (24k asks, a fifth of them again, on
# the shared runs). Each answer keeps its pattern, so a pattern's id is not reused while its answers are held.
_MENTIONED: dict[tuple[int, str], tuple[re.Pattern[str], bool]] = {}
_MENTIONED_MAX = 4096  # past this (asks outside a conversation's record), start again


def mentions(pattern: re.Pattern[str], text: str) -> bool:
    """``pattern`` occurs in ``text`` outside a negator's scope ("add a bag", not "no bags")."""
    key = (id(pattern), text)
    held = _MENTIONED.get(key)
    if held is not None and held[0] is pattern:
        return held[1]
    if len(_MENTIONED) >= _MENTIONED_MAX:
        _MENTIONED.clear()
    found = _MENTIONED[key] = (pattern, _mentions(pattern, text))
    return found[1]


def _mentions(pattern: re.Pattern[str], text: str) -> bool:
    gated = gateable(text)
    if not may_match(pattern, text.lower(), gated):
        return False  # no sentence (a part of the text) could hold a match (``_gate``): most texts lack its words
    return mentioned_in(pattern, ((s, s.lower()) for s in split_sentences(text)), gated)


def mentioned_in(pattern: re.Pattern[str], sentences: Iterable[tuple[str, str]], gated: bool) -> bool:
    """``pattern`` outside a negator's scope in one of a text's ``sentences`` (each with its lowercase; ``gated``: the
    text's), each gated on its own; an ASCII one scanned by the pattern's twin (``_lowered_search``: the same places)."""
    for s, low in sentences:
        if gated and not may_match(pattern, low, True):
            continue
        if any(not negated(s, m.start()) for m in matches(pattern, s, low if s.isascii() else None)):
            return True
    return False


def call_text_of(call: Any) -> str:
    return f"{call.name}({arguments_excerpt(call.arguments, 200)})"


def is_read_tool(name: str) -> bool:
    return name.startswith(("get_", "search_", "list_", "find_", "calculate", "think"))


def first_call_of(calls: list[tuple[Turn, Any]], names: frozenset[str] | set[str] | None) -> int | None:
    """The message of the first call (``calls``: every call with its turn, in order, ``TurnIndex.calls``) of one of
    ``names``, or, ``names`` None, of a tool that writes: one loop over the calls, not a generator over each turn's
    (most turns make none)."""
    if names is None:
        for t, c in calls:
            if c.name != TRANSFER_TOOL and not is_read_tool(c.name):
                return t.index
    elif names:
        for t, c in calls:
            if c.name in names:
                return t.index
    return None


def asks(unit: str, start: int) -> bool:
    """The word at ``start`` lies in a question: the sentence ends with "?" and the clause holding the word
    runs to that end and opens with a question word ("…, or are you only seeking compensation?")."""
    text = unit.rstrip()
    if not text.endswith("?"):
        return False
    if _CLAUSE_BREAK.search(text, start):
        return False  # a later clause follows: the word's own clause states, the question comes after
    clause = _CLAUSE_BREAK.split(text[:start])[-1].split()
    words = clause or text[start:].split()
    return bool(words) and bool(vocabulary().question.fullmatch(words[0].strip("\"'(*").lower()))


def _stated(pattern: re.Pattern[str], unit: str, lowered: str | None = None) -> bool:
    """``pattern`` occurs in ``unit`` outside a question. ``lowered``: ``unit``'s lowercase where it is ASCII, which
    the pattern's twin scans (``_lowered_search``: the same places), else None."""
    if not may_match(pattern, unit.lower() if lowered is None else lowered, gateable(unit)):
        return False  # the decline classes are the costliest scans, and most units lack their words (``_gate``)
    return any(not asks(unit, m.start()) for m in matches(pattern, unit, lowered))


def _declines(kind: EvidenceKind, unit: str, *, direct: bool, summary: bool = False) -> bool:
    """``unit`` declines on ``kind``'s clause: naming its whole subject (direct), or only part (indirect).
    A sentence that asks does not decline (``asks``). Each pattern scans an ASCII unit's lowercase by its twin."""
    low = ascii_lowered(unit)
    # the subject first: most units name none, and a decline class is the costliest scan; each pattern gated (``scans``)
    if direct:
        for p in kind.subject:
            if not scans(p, unit, low):
                return False
    elif not kind.indirect:
        return False
    else:
        for p in kind.indirect:
            if not scans(p, unit, low):
                return False
        # a clause on what may pay declines the means of payment, not the change (#46 class 6)
        unit = vocabulary().payment_means.sub(" ", unit)
        low = ascii_lowered(unit)
    if kind.other_grounds and scans(kind.not_the_clause, unit, low):
        return False  # declined on other grounds ("the flight was not delayed")
    for p in kind.declined_by:  # a loop, not ``any`` over a generator: most clauses have one class (#47)
        if _stated(p, unit, low):
            return True
    if direct:
        # A transfer summary that names the subject and cites the policy reports the refusal (its words gated: ``scans``)
        return summary and vocabulary().decline in kind.declined_by and scans(vocabulary().policy, unit, low)
    return _stated(vocabulary().decline, unit, low)


def find_declines(kind_name: str, turns: list[Turn], before: int | None = None) -> list[EvidenceItem]:
    """Assistant sentences and transfer summaries that decline and name ``kind_name``'s whole subject."""
    return [e for e in _declines_in(vocabulary().kinds[kind_name], turns, before) if e.certain]


def _declines_in(kind: EvidenceKind, turns: list[Turn], before: int | None = None,
                 cut: Units | None = None) -> list[EvidenceItem]:
    cut = cut or Units()
    found: list[EvidenceItem] = []
    for t in turns:
        if before is not None and t.index >= before:
            break
        if t.role != "assistant":
            continue
        # no words, or none that may decline: no unit is read (most messages; no generator is built for them, #47)
        if t.text and cut.may_decline(kind, t.text):
            units = cut.of(t.text)
            # (a kind with no indirect subject, the generic refusal, declines none indirectly: ``_declines``)
            hit = next((u for u in units if _declines(kind, u, direct=True)), None)
            if hit:
                text, start, end = t.excerpt(hit)
                found.append(EvidenceItem(t.index, "assistant", text, None, f"declines, naming {kind.what}", True, start, end))
            elif kind.indirect and (weak := next((u for u in units if _declines(kind, u, direct=False)), None)):
                text, start, end = t.excerpt(weak)
                found.append(EvidenceItem(
                    t.index, "assistant", text, None, f"declines, naming {kind.what} only indirectly", False, start, end
                ))
        for call in t.calls or ():  # most make no call
            if call.name != TRANSFER_TOOL:
                continue
            summary = str(call.arguments.get("summary") or "")
            parts = cut.of_summary(summary)
            if kind.transfers_count or any(_declines(kind, u, direct=True, summary=True) for u in parts):
                found.append(EvidenceItem(
                    t.index, "assistant", excerpt_of(summary), call_text_of(call), f"transfer whose summary names {kind.what}"
                ))
            else:
                indirect = any(_declines(kind, u, direct=False) for u in parts)
                what = "names the clause only indirectly" if indirect else "names no clause"
                found.append(EvidenceItem(
                    t.index, "assistant", excerpt_of(summary), call_text_of(call), f"transfer whose summary {what}", False
                ))
    return found


__all__ = ["EvidenceItem", "PreconditionResult", "asserted", "find_declines", "mentioned_in", "mentions", "price_bound"]
