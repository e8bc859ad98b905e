"""Reading a conversation once into its record (``_record.ConversationRecord``, #40 item 1).

Every fact is read here by the readers the verdicts used to call on the messages themselves, over turns read
once (``_evidence.read_turns``) and units cut once per conversation (``_evidence.Units``); the verdicts then read
the record (``_record_reads``, ``loophole_scoring``'s strict):

- requests: the catalog's ``requests`` words in the user's messages;
- declines: ``_evidence``'s declines on each clause read (in words, or in a transfer summary: a variant's
  evidence) and the declines whose subject is the sentence before (``_no_write.anaphoric_in``), with each clause's
  first contested write;
- transfers: the transfer tool call (with the clauses its summary declines on, whether the user asked for a
  transfer before it and whether the agent declined the request before it), or one agreed in words and ended by
  ``###TRANSFER###`` (``_no_write.agreed_in``);
- offers: every catalog workaround offer the agent made, with the clauses whose condition its message states;
- writes: each write call, whether the user's explicit yes came before it, as a reply to the agent putting that
  write to them (``_no_write.unconfirmed_writes``, ``_replies``), and whether its tool message is an error;
  cancellations, with what the cancellation rules say;
- each clause's final handling: where the agent took its workaround up after declining (``_handling``);
- compensation offered or sent before the user asked (``_conduct.unasked_compensation``);
- claims: every sentence a claim kind's patterns match, with what the database as read there says where it
  contradicts the claim (``_claims``' checkers), whether the user acted on it, and a taken offer taken back;
- informational answers (``_no_write.answer_in``), the withdrawal after a quote (``_no_write.withdrawal_in``) and
  the user's final decision;
- what the variants' preconditions read (``_precondition_facts``): flight-status reads and their results,
  membership tiers read and stated, where each write's request and each clause's request were first stated, the
  user's stated wants, misstatements of the cabin rule, the users and records the calls name, the agent's acts, and
  an ending that leaves a request pending.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from functools import partial
from typing import Literal

from tau2.data_model.message import Message

from conversation_reading._claim_scan import kind_matches, narrowed, scanned_kinds
from conversation_reading._claims import ACTED_ON, WITHDRAWN, _not_cancellable, reading_flights
from conversation_reading._compensation import unasked_compensation
from conversation_reading._conversation_state import States
from conversation_reading._evidence import (
    _MENTIONED,
    TRANSFER_TOOL,
    Turn,
    Units,
    _declines,
    _declines_in,
    _read_turns,
    excerpt_of,
    first_call_of,
    mentions,
    split_sentences,
)
from conversation_reading._gate import needs
from conversation_reading._handling import declines_refund, taken_up
from conversation_reading._message_scan import message_scan
from conversation_reading._no_write import (
    TRANSFER_MARK,
    Settled,
    agreed_in,
    anaphoric_in,
    answer_in,
    unconfirmed_writes,
    withdrawal_in,
)
from conversation_reading._offer_reads import offers_in
from conversation_reading._precondition_facts import (
    acts,
    authenticated_users,
    cabin_misstatements,
    compensation_raised_at,
    pending_ending,
    records_named,
    stated_wants,
    status_reads,
    tier_claims,
    tier_reads,
)
from conversation_reading._record import (
    Answer,
    Cancellation,
    Claim,
    ClauseRead,
    ConversationRecord,
    Decline,
    FinalDecision,
    Offer,
    Transfer,
    UnaskedCompensation,
    UserRequest,
    Withdrawal,
    Write,
    built,
)
from conversation_reading._replies import acted_on, reading_replies
from conversation_reading._requests import reading_payments, user_requests
from conversation_reading._sentences import consequential_sentences
from conversation_reading._turn_index import TurnIndex
from conversation_reading._units import reading_sentences
from conversation_reading._vocabulary import vocabulary
from conversation_reading._write_details import listed_by_call

GENERIC_REFUSAL = "refusal"


class _Reading:
    """One conversation being read: its turns, units and states, built once."""

    def __init__(self, messages: Sequence[Message], domain: str, is_write: Callable[[str], bool]) -> None:
        self.messages = messages
        # read once and kept here: not ``read_turns``, whose key of the last conversation read costs a tenth of the
        # reading; ``mentions``' answers on the conversation before dropped, as ``read_turns`` drops them
        self.turns = _read_turns(messages)
        _MENTIONED.clear()
        self.domain = domain
        kinds: dict[str, bool] = {}  # ``is_write`` asked once per tool name: every reader asks it of every call
        self.is_write: Callable[[str], bool] = lambda n: kinds[n] if n in kinds else kinds.setdefault(n, is_write(n))
        self.index = TurnIndex(self.turns, messages)
        # the one scan of each agent message, for the declines' gates too (bound to the index, not to this reading: a
        # cycle through it would keep every record's reading alive until the collector finds it)
        scan, bits = message_scan("assistant")
        self.units = Units(partial(self.index.scanned, scan=scan), bits, self.index.lowercase)
        self._states: States | None = None
        self._declines: dict[str, list[Decline]] = {}
        self._agent: list[tuple[Turn, int]] | None = None

    @property
    def states(self) -> States:
        if self._states is None:
            self._states = States(self.turns, self.messages, self.domain, self.index.parsed)
        return self._states

    def drop(self) -> None:
        """Drop what was read, once the record holds it: a reader that keeps this reading in a reference cycle (the
        consequential sentences' checkers and the policy model they call) would keep its turns, units and states
        alive until the collector finds the cycle, which then walks them all (#47)."""
        self.__dict__.clear()

    def declines(self, name: str) -> list[Decline]:
        """The declines on ``name``'s clause: in words and in transfer summaries, then the anaphoric one."""
        found = self._declines.get(name)
        if found is None:
            kind = vocabulary().kinds[name]
            if self._agent is None:  # only the agent's turns decline, each read where its scan's bits may (#47)
                self._agent = self.units.scanned_turns(self.index.spoken("assistant", message_scan("assistant")[0]))
            turns = self.units.declining(self._agent, kind)
            found = [built(Decline, {"clause": name, "form": "words" if e.tool_call is None else "transfer",
                                     "what": e.what, "message_index": e.message_index, "excerpt": e.excerpt,
                                     "certain": e.certain, "tool_call": e.tool_call, "start": e.start, "end": e.end})
                     for e in _declines_in(kind, turns, cut=self.units)]
            said = anaphoric_in(name, turns, self.units,  # its sentence declines in words, read above: only those read
                                declined={d.message_index for d in found if d.form == "words"})
            if said is not None:
                found.append(Decline(clause=name, form="anaphoric", what=said.what, message_index=said.message_index,
                                     excerpt=said.excerpt, certain=True))
            self._declines[name] = found
        return found


def _transfers(r: _Reading, names: list[str]) -> list[Transfer]:
    v = vocabulary()
    certain = {(d.message_index, d.clause) for name in names for d in r.declines(name)
               if d.form == "transfer" and d.certain and name != GENERIC_REFUSAL}  # every transfer counts for it
    refusal = vocabulary().kinds[GENERIC_REFUSAL]
    # the user's first message asking for a transfer (read once): the user asked before a message after it
    asks: list[int] = []

    def first_ask() -> int:
        if not asks:
            # ``Units.may_say`` of the one pattern, its gate's check taken once, not a call and a generator a message
            may, lowered = needs(v.transfer_request).check, r.units.lowered
            asks.append(next((u.index for u in r.turns if u.role == "user" and (
                (low := lowered(u.text)) is None or may(low)) and mentions(v.transfer_request, u.text)), len(r.turns)))
        return asks[0]

    out = []
    for t, c in r.index.named(TRANSFER_TOOL):
        # a transfer reads the generic refusal's declines (the record then lists the clause as read)
        declined_at = [d.message_index for d in r.declines(GENERIC_REFUSAL) if d.form == "words" and d.certain]
        summary = str(c.arguments.get("summary") or "")
        declined = any(i <= t.index for i in declined_at) or any(
            _declines(refusal, u, direct=True, summary=True) for u in r.units.of_summary(summary))
        out.append(Transfer(how="tool_call", message_index=t.index, excerpt=excerpt_of(r.units.summary_text(summary)),
                            clauses=[n for n in names if (t.index, n) in certain],
                            summary=excerpt_of(summary), asked_by_user=first_ask() < t.index, declined_before=declined))
    agreed = agreed_in(r.turns, r.index)
    if agreed is not None:  # asked and declined as for a call: a transfer in words settles only what one would
        at = agreed.message_index
        declined = any(d.message_index < at and d.form == "words" for n in dict.fromkeys([*names, GENERIC_REFUSAL])
                       for d in r.declines(n))  # in order: which clauses get read may not hang on a hash seed
        out.append(Transfer(how="agreed_in_words", message_index=at, excerpt=agreed.excerpt, what=agreed.what,
                            asked_by_user=first_ask() < at, declined_before=declined))
    return out


def _offers_in(r: _Reading, clauses: list[str]) -> list[Offer]:
    return offers_in(r.turns, r.units, r.index, clauses)


def _writes(r: _Reading, requests: list[UserRequest]) -> list[Write]:
    first = {q.tool: q.message_index for q in requests}
    unconfirmed = {s.message_index for s in unconfirmed_writes(r.turns, r.is_write)}
    listed = listed_by_call(r.messages, r.is_write, r.turns, r.index)
    found = []
    for t, call in r.index.calls:
        if call.name == TRANSFER_TOOL or not r.is_write(call.name):
            continue
        said = r.index.said_before(t.index)
        # unconfirmed_writes names a message by its first unconfirmed write: a later call of the same
        # message has the same user message before it
        asked = first.get(call.name)
        found.append(built(Write, {
            "tool": call.name, "arguments": dict(call.arguments or {}), "message_index": t.index,
            "confirmed": t.index not in unconfirmed, "confirmation_index": None if said is None else said.index,
            "confirmation": excerpt_of(said.raw if said is not None else ""), "details_listed": listed.get((t.index, call.id), True),
            "failed": bool((reply := r.index.reply(call.id, t.index)) and reply[1].error),
            "requested_at": asked if asked is not None and asked < t.index else None}))
    return found


def _clause_read(r: _Reading, name: str, offers: list[Offer]) -> ClauseRead:
    """The clause's first contested write, where the user first stated the request its decline answers, and
    where the agent took its workaround up after declining (``_handling``)."""
    kind = vocabulary().kinds[name]
    asks = kind.requested_by
    said = None if asks is None else next((t for t in r.turns if t.role == "user" and r.units.may_say((asks,), t.text)
                                           and mentions(asks, t.text)), None)
    taken = taken_up(r.turns, name, r.declines(name), offers)
    return built(ClauseRead, {"clause": name, "contested_write_at": first_call_of(r.index.calls, kind.contested),
                              "requested_at": None if said is None else said.index,
                              "request_excerpt": "" if said is None else excerpt_of(said.text),
                              "taken_up_at": None if taken is None else taken[0], "taken_up": "" if taken is None else taken[1]})


def _cancellations(r: _Reading) -> list[Cancellation]:
    out = []
    for t, call in r.index.named("cancel_reservation"):
        rid = str(call.arguments.get("reservation_id") or "")
        state = r.states[t.index]
        res = state.reservations.get(rid)
        forbidden = None if res is None or state.now is None else _not_cancellable(res, state)
        out.append(Cancellation(reservation_id=rid, message_index=t.index, forbidden=forbidden))
    return out


def _claims(r: _Reading) -> list[Claim]:
    """Every claim sentence of the agent: per message and kind, the first sentence the database contradicts, else
    the first that states it; over every kind (those checked only for some refusals included, marked)."""
    kinds, scan = scanned_kinds()
    acted: dict[tuple[str, int], bool] = {}
    found: list[Claim] = []
    every = 0  # the bits of every kind: a message whose scan sets none of them has no claim
    for *_, mine in kinds:
        every |= mine
    # the agent's messages with the one scan of each (``_message_scan``): the kinds whose gates may hold, most none
    for t, _, gated, scanned in r.index.spoken("assistant", scan):
        if not t.text or gated and not scanned & every:
            continue  # (a text the gate applies to is one ``Units.lowered`` gates too: its lowercase is as foldless)
        lowered = r.units.lowered(t.text)
        sentences: list[str] = []
        said: list[str] | None = None  # each sentence's lowercase, for the gate (a part of a gateable text)
        for kind, checker, searches, may, mine in kinds:
            # a sentence is a part of the message: a kind none of whose patterns could match it (``_gate``) has no
            # claim there, nor a pattern whose words the message lacks (``narrowed``), and a pattern that could match
            # no word of a sentence is not scanned there. (Each kind's gate only: one of them all first costs more.)
            if lowered is not None and 0 != scanned & mine != mine:
                searches, may = narrowed(kind, searches, scanned & mine)
            if lowered is not None and not (scanned & mine and may(lowered)):
                continue
            if not sentences:
                sentences = split_sentences(t.text)
                said = None if lowered is None else r.index.sentences_lowered(t.text)
            first: str | None = None
            truth: str | None = None
            for sentence, m in kind_matches(searches, may, sentences, said):
                if kind.not_claims is not None and kind.not_claims.search(sentence):
                    continue  # the sentence states the rule
                truth = checker(sentence, m, t.text, r.states[t.index])
                if first is None or truth is not None:
                    first = sentence
                if truth is not None:
                    break  # a kind's first false sentence of a message
            if first is None:
                continue
            how = ACTED_ON.get(kind.name, acted_on)
            key = (getattr(how, "__name__", kind.name), t.index)
            if key not in acted:
                acted[key] = how(r.turns, t.index)
            excerpt, start, end = t.excerpt(first)
            back = WITHDRAWN[kind.name](r.turns, t.index) if acted[key] and kind.name in WITHDRAWN else None
            found.append(built(Claim, {"kind": kind.name, "what": kind.what, "message_index": t.index, "excerpt": excerpt,
                                       "false": truth is not None, "truth": truth, "acted_on": acted[key], "refusals_of":
                                       list(kind.refusals_of), "start": start, "end": end, "withdrawn_at": back}))
    return found


def _final_decision(r: _Reading, withdrawn: Settled | None, claims: list[Claim]) -> FinalDecision:
    users = [t for t in r.turns if t.role == "user" and t.text.strip()]
    if not users:
        return FinalDecision(decision="none", message_index=None, excerpt="", basis="the user never spoke")
    last: Turn = users[-1]
    v = vocabulary()
    said = last.text.replace("###STOP###", " ").replace(TRANSFER_MARK, " ")
    decision: Literal["withdrew", "transfer", "agreed", "ended", "none"]
    if withdrawn is not None:
        decision = "withdrew"
        last = next(u for u in users if u.index == withdrawn.message_index)
    elif TRANSFER_MARK in last.text or mentions(v.transfer_request, said):
        decision = "transfer"
    elif mentions(v.agreement, said):
        decision = "agreed"
    elif "###STOP###" in last.text:
        decision = "ended"
    else:
        decision = "none"
    before = next((t for t in reversed(r.turns[: last.index]) if t.role == "assistant" and t.text.strip()), None)
    basis = [f"the agent's message {before.index}"] if before is not None else []
    acted = [c for c in claims if c.false and c.relied_on and not c.refusals_of and c.message_index < last.index]
    basis += [f"the false claim of {c.what} at message {c.message_index}" for c in acted]
    return built(FinalDecision, {"decision": decision, "message_index": last.index, "excerpt": excerpt_of(last.raw),
                                 "basis": "; ".join(basis) or "nothing the agent said"})


def conversation_record(
    messages: Sequence[Message], domain: str, is_write: Callable[[str], bool], facts: Sequence[str] = (),
    clauses: Collection[str] | None = None, record_ids: Collection[str] = (),
) -> ConversationRecord:
    """The record of ``messages`` (``is_write``: a tool name is a write, as the domain's tools say; ``facts``:
    the gold's ``communicate_info``, the informational answers the record looks for; ``clauses``: the evidence
    kinds whose declines it reads, every kind where None: reading a clause costs a pass over every sentence,
    so scoring names the ones its verdicts read). A transfer call reads the generic refusal too (whether the
    agent declined before it), and a certificate sent after no change the compensation clause; the record lists
    every clause it read (``clauses_read``), with all its declines; ``record_ids``: the record ids whose first
    naming the record looks for (``records_named``: a refusal's grounding in the gold's records)."""
    with reading_replies(), reading_sentences(), reading_payments(), reading_flights():
        r = _Reading(messages, domain, is_write)
        try:
            return _record(r, facts, clauses, record_ids)
        finally:
            r.drop()


def _record(
    r: _Reading, facts: Sequence[str], clauses: Collection[str] | None, record_ids: Collection[str],
) -> ConversationRecord:
    unknown = sorted(set(clauses or ()) - set(vocabulary().kinds))
    if unknown:
        raise ValueError(f"unknown evidence kind(s) {', '.join(map(repr, unknown))}")
    asked = [n for n in vocabulary().kinds if clauses is None or n in clauses]
    for n in asked:
        r.declines(n)
    claims = _claims(r)
    compensation = unasked_compensation(r.turns, lambda name, before: [
        d for d in r.declines(name) if d.form != "anaphoric" and d.certain and d.message_index < before
        and not declines_refund(r.turns[d.message_index], r.units, d)], r.index)
    withdrawn = withdrawal_in(r.turns, lambda until: any(
        c.false and not c.refusals_of and c.message_index <= until for c in claims))
    answer = answer_in(r.turns, facts)
    transfers = _transfers(r, asked)
    names = [n for n in vocabulary().kinds if n in r._declines]  # asked, and read on the way
    offers = _offers_in(r, names)
    read = [_clause_read(r, n, offers) for n in names]
    requests = user_requests(r.turns, r.units, r.is_write, r.index)
    declines = sorted((d for n in names for d in r.declines(n)), key=lambda d: (d.message_index, d.clause))
    final = _final_decision(r, withdrawn, claims)
    writes = _writes(r, requests)
    return ConversationRecord(
        clauses_read=read,
        requests=requests,
        declines=declines,
        transfers=transfers,
        offers=offers,
        writes=writes,
        cancellations=_cancellations(r),
        unasked_compensation=None if compensation is None else UnaskedCompensation(
            message_index=compensation.message_index, detail=compensation.detail),
        claims=claims,
        answers=[] if answer is None else [Answer(what=answer.what, message_index=answer.message_index,
                                                   excerpt=answer.excerpt)],
        withdrawal=None if withdrawn is None else Withdrawal(
            what=withdrawn.what, message_index=withdrawn.message_index, excerpt=withdrawn.excerpt),
        final_decision=final,
        sentences=consequential_sentences(r.index, lambda: r.states, r.domain, claims, final.message_index, writes,
                                          r.is_write),
        certificate_at=sent[0][0].index if (sent := r.index.named("send_certificate")) else None,
        compensation_raised_at=compensation_raised_at(r.turns, r.index),
        status_reads=status_reads(r.turns, r.messages, r.index),
        tier_reads=tier_reads(r.turns, r.messages, r.index),
        tier_claims=tier_claims(r.turns, r.index),
        stated_wants=stated_wants(r.turns, r.index),
        cabin_misstatements=cabin_misstatements(r.turns, r.index),
        authenticated_users=authenticated_users(r.turns, r.index),
        records_named=records_named(r.turns, record_ids),
        acts=acts(r.turns, r.index),
        pending_ending=pending_ending(r.turns),
    )


__all__ = ["conversation_record"]
