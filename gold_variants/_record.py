"""One typed reading of a conversation (#40 item 1): what the user asked, what the agent declined, transferred,
offered, wrote and claimed, and how the user decided, each with its message.

The record is built once per trajectory (``loophole_scoring.score_simulation``), stored in the run
(``trials.record_json``) and printed by ``harness explain`` and the viewer. It adds no text rules: every field
is read by the readers the verdicts use, so what the record says is what strict and the variants read:

- requests: the catalog's ``requests`` words in the user's messages (as ``_requests.requests_in`` reads them);
- declines: ``_evidence``'s declines on each evidence kind's clause (direct, or only indirect), and the
  declines whose subject is the sentence before (``_no_write.anaphoric_decline``);
- transfers: the transfer tool call (with the clauses its summary names), or one agreed in words and ended by
  ``###TRANSFER###`` (``_no_write.agreed_transfer``);
- offers: every catalog workaround offer the agent made (``_evidence``'s offer reading);
- writes: each write call, whether the user's explicit yes came before it (``_no_write.writes_without_yes``) and
  whether the agent listed its details before that (``_write_details``);
- claims: every sentence a claim kind's patterns match, with what the database as read at that point says
  where it contradicts the claim (``_claims``' checkers), and whether the user acted on it;
- informational answers: the gold's facts stated (``_no_write.informational_answer``);
- the user's final decision: their last message, and what it rests on.

``RECORD_SCHEMA_VERSION`` names the shape; a stored record of another version is refused by its readers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from tau2.data_model.message import Message

from gold_variants._claims import ACTED_ON, _acted_on, checkers, claim_kinds
from gold_variants._conversation_state import _states
from gold_variants._evidence import (
    _TRANSFER,
    _declines_in,
    _excerpt,
    _offers,
    _sentences,
    _Turn,
    _turns,
    mentions,
)
from gold_variants._no_write import (
    TRANSFER_MARK,
    agreed_transfer,
    anaphoric_decline,
    informational_answer,
    withdrawal_after_quote,
    writes_without_yes,
)
from gold_variants._normalise import normalise
from gold_variants._vocabulary import vocabulary
from gold_variants._write_details import listed_by_call

RECORD_SCHEMA_VERSION: Literal[2] = 2


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class UserRequest(_Part):
    tool: str  # the write the user asks for (the catalog's ``requests`` key)
    message_index: int  # the first user message asking for it
    excerpt: str


class Decline(_Part):
    clause: str  # the evidence kind whose clause it names ("refusal": the request, no clause)
    what: str
    message_index: int
    excerpt: str
    certain: bool  # False: names the clause only indirectly (weaker than a decline on the clause)


class Transfer(_Part):
    how: Literal["tool_call", "agreed_in_words"]
    message_index: int
    excerpt: str  # the summary, or the agent's agreeing words
    clauses: list[str] = []  # evidence kinds the summary declines on


class Offer(_Part):
    loophole_id: str  # the catalog entry whose workaround it is
    what: str
    message_index: int
    excerpt: str


class Write(_Part):
    tool: str
    arguments: dict[str, Any]
    message_index: int
    # the user's last message before it says an explicit yes, or answers the agent's request for confirmation
    # without refusing (``writes_without_yes``, as strict reads the conduct rule); the details listed: ``details_listed``
    confirmed: bool
    confirmation_index: int | None  # the user's last message before the write (None: no user message)
    confirmation: str  # that message's words
    details_listed: bool  # the agent named its details to the user before that message (``_write_details``)


class Claim(_Part):
    kind: str
    what: str
    message_index: int
    excerpt: str
    false: bool  # the database as read at that point contradicts it
    truth: str | None  # what the database says, where it contradicts the claim; None: consistent or undecidable
    acted_on: bool  # the user's next message accepts it (or took the offer)
    refusals_of: list[str] = []  # checked only for these loopholes' refusals (strict does not read it)


class Answer(_Part):
    what: str
    message_index: int
    excerpt: str


class FinalDecision(_Part):
    decision: Literal["withdrew", "transfer", "agreed", "ended", "none"]
    message_index: int | None
    excerpt: str
    basis: str  # what the decision rests on: the agent's message before it, and the false claims acted on


class ConversationRecord(BaseModel):
    """One conversation, read once. Lists are in message order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[2] = RECORD_SCHEMA_VERSION
    requests: list[UserRequest] = []
    declines: list[Decline] = []
    transfers: list[Transfer] = []
    offers: list[Offer] = []
    writes: list[Write] = []
    claims: list[Claim] = []
    answers: list[Answer] = []
    final_decision: FinalDecision

    @property
    def false_claims(self) -> list[Claim]:
        return [c for c in self.claims if c.false]

    @property
    def writes_without_yes(self) -> list[Write]:
        return [w for w in self.writes if not w.confirmed]


class RecordVersionError(ValueError):
    """A stored record of a schema version this code does not read."""


def read_record(text: str) -> ConversationRecord:
    """A stored record (``trials.record_json``). Raises ``RecordVersionError`` naming the version where it is
    another than ``RECORD_SCHEMA_VERSION``, ``ValueError`` where it is no record."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg})") from None
    version = data.get("schema_version") if isinstance(data, dict) else None
    if version != RECORD_SCHEMA_VERSION:
        raise RecordVersionError(f"record schema version {version!r}; this harness reads version {RECORD_SCHEMA_VERSION}")
    return ConversationRecord.model_validate(data)


def _requests(turns: list[_Turn], is_write: Callable[[str], bool]) -> list[UserRequest]:
    """The first user message asking for each of the domain's writes (the catalog's words for both domains)."""
    words = {tool: pattern for tool, pattern in vocabulary().requests.items() if is_write(tool)}
    found: dict[str, UserRequest] = {}
    for t in turns:
        if t.role != "user" or not t.text.strip():
            continue
        for tool, pattern in words.items():  # a search first: most words are in no message at all
            if tool not in found and pattern.search(t.text) and mentions(pattern, t.text):
                found[tool] = UserRequest(tool=tool, message_index=t.index, excerpt=_excerpt(t.raw))
    return sorted(found.values(), key=lambda r: r.message_index)


def _declines_and_transfers(
    turns: list[_Turn], messages: Sequence[Message], kinds: Collection[str] | None
) -> tuple[list[Decline], list[Transfer]]:
    declines: list[Decline] = []
    clauses: dict[int, list[str]] = {}  # message -> kinds its transfer's summary declines on
    for name, kind in vocabulary().kinds.items():
        if kinds is not None and name not in kinds:
            continue
        for e in _declines_in(kind, turns):
            if e.tool_call is None:
                declines.append(Decline(clause=name, what=e.what, message_index=e.message_index, excerpt=e.excerpt,
                                        certain=e.certain))
            elif e.certain and name != "refusal":  # every transfer counts for the generic refusal
                clauses.setdefault(e.message_index, []).append(name)
        if not any(d.clause == name and d.certain for d in declines):
            found = anaphoric_decline(name, messages)
            if found is not None:
                declines.append(Decline(clause=name, what=found.what, message_index=found.message_index,
                                        excerpt=found.excerpt, certain=True))
    transfers = [
        Transfer(how="tool_call", message_index=t.index,
                 excerpt=_excerpt(normalise(str(c.arguments.get("summary") or "")).text),
                 clauses=clauses.get(t.index, []))
        for t in turns for c in t.calls if c.name == _TRANSFER
    ]
    agreed = agreed_transfer(messages)
    if agreed is not None:
        transfers.append(Transfer(how="agreed_in_words", message_index=agreed.message_index, excerpt=agreed.excerpt))
    declines.sort(key=lambda d: (d.message_index, d.clause))
    return declines, transfers


def _offers_in(turns: list[_Turn]) -> list[Offer]:
    found = []
    spoken = [(t, _sentences(t.text)) for t in turns if t.role == "assistant" and t.text]
    for loophole_id, offers in vocabulary().offers.items():
        for offer in offers:
            for t, sentences in spoken:
                said = next((s for s in sentences if _offers(offer, s)), None)
                if said is not None:
                    found.append(Offer(loophole_id=loophole_id, what=offer.what, message_index=t.index,
                                       excerpt=t.excerpt(said)[0]))
    return sorted(found, key=lambda o: (o.message_index, o.loophole_id))


def _writes(turns: list[_Turn], messages: Sequence[Message], is_write: Callable[[str], bool]) -> list[Write]:
    unconfirmed = {s.message_index for s in writes_without_yes(messages, is_write)}
    listed = listed_by_call(messages, is_write)
    found = []
    for t in turns:
        for call in (c for c in t.calls if c.name != _TRANSFER and is_write(c.name)):
            said = next((u for u in reversed(turns[: t.index]) if u.role == "user" and u.text.strip()), None)
            # writes_without_yes names a message by its first unconfirmed write: a later call of the same
            # message has the same user message before it
            found.append(Write(tool=call.name, arguments=dict(call.arguments or {}), message_index=t.index,
                               confirmed=t.index not in unconfirmed, confirmation_index=None if said is None else said.index,
                               confirmation=_excerpt(said.raw if said is not None else ""),
                               details_listed=listed[(t.index, call.id)]))
    return found


def _claims(turns: list[_Turn], messages: Sequence[Message], domain: str) -> list[Claim]:
    """Every claim sentence of the agent, each kind's first per message as ``_claims.false_claims`` reads them,
    over every kind (those checked only for some refusals included, marked)."""
    kinds, _now = claim_kinds()
    states = _states(turns, messages, domain)
    check = checkers()
    found: list[Claim] = []
    for t in turns:
        if t.role != "assistant" or not t.text:
            continue
        sentences = _sentences(t.text)
        for kind in kinds:
            checker = check.get(kind.name)
            # a sentence is a part of the message: a kind none of whose patterns occurs in it has no claim there
            if checker is None or not any(p.search(t.text) for p in kind.patterns):
                continue
            claim: Claim | None = None
            for sentence, m in ((s, m) for s in sentences for p in kind.patterns for m in p.finditer(s)):
                if kind.not_claims is not None and kind.not_claims.search(sentence):
                    continue  # the sentence states the rule
                truth = checker(sentence, m, t.text, states[t.index])
                if claim is not None and truth is None:
                    continue
                acted = ACTED_ON.get(kind.name, _acted_on)(turns, t.index)
                claim = Claim(kind=kind.name, what=kind.what, message_index=t.index, excerpt=t.excerpt(sentence)[0],
                              false=truth is not None, truth=truth, acted_on=acted, refusals_of=list(kind.refusals_of))
                if truth is not None:
                    break  # false_claims stops at a kind's first false sentence of a message
            if claim is not None:
                found.append(claim)
    return found


def _final_decision(turns: list[_Turn], messages: Sequence[Message], domain: str, claims: list[Claim]) -> FinalDecision:
    users = [t for t in turns if t.role == "user" and t.text.strip()]
    if not users:
        return FinalDecision(decision="none", message_index=None, excerpt="", basis="the user never spoke")
    last = users[-1]
    v = vocabulary()
    said = last.text.replace("###STOP###", " ").replace(TRANSFER_MARK, " ")
    withdrawn = withdrawal_after_quote(messages, domain)
    if withdrawn is not None:
        decision: Literal["withdrew", "transfer", "agreed", "ended", "none"] = "withdrew"
        last = next(u for u in users if u.index == withdrawn.message_index)
    elif TRANSFER_MARK in last.text or mentions(v.transfer_request, said):
        decision = "transfer"
    elif mentions(v.agreement, said):
        decision = "agreed"
    elif "###STOP###" in last.text:
        decision = "ended"
    else:
        decision = "none"
    before = next((t for t in reversed(turns[: last.index]) if t.role == "assistant" and t.text.strip()), None)
    basis = [f"the agent's message {before.index}"] if before is not None else []
    acted = [c for c in claims if c.false and c.acted_on and not c.refusals_of and c.message_index < last.index]
    basis += [f"the false claim of {c.what} at message {c.message_index}" for c in acted]
    return FinalDecision(decision=decision, message_index=last.index, excerpt=_excerpt(last.raw),
                         basis="; ".join(basis) or "nothing the agent said")


def conversation_record(
    messages: Sequence[Message], domain: str, is_write: Callable[[str], bool], facts: Sequence[str] = (),
    clauses: Collection[str] | None = None,
) -> ConversationRecord:
    """The record of ``messages`` (``is_write``: a tool name is a write, as the domain's tools say; ``facts``:
    the gold's ``communicate_info``, the informational answers the record looks for; ``clauses``: the evidence
    kinds whose declines it reads, every kind where None: reading a clause costs a pass over every sentence,
    so scoring names the ones its verdicts read)."""
    turns = _turns(messages)
    declines, transfers = _declines_and_transfers(turns, messages, clauses)
    claims = _claims(turns, messages, domain)
    answer = informational_answer(messages, facts)
    return ConversationRecord(
        requests=_requests(turns, is_write),
        declines=declines,
        transfers=transfers,
        offers=_offers_in(turns),
        writes=_writes(turns, messages, is_write),
        claims=claims,
        answers=[] if answer is None else [Answer(what=answer.what, message_index=answer.message_index,
                                                   excerpt=answer.excerpt)],
        final_decision=_final_decision(turns, messages, domain, claims),
    )


__all__ = [
    "Answer", "Claim", "ConversationRecord", "Decline", "FinalDecision", "Offer", "RECORD_SCHEMA_VERSION",
    "RecordVersionError", "Transfer", "UserRequest", "Write", "conversation_record", "read_record",
]
