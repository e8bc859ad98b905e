"""The facts the variants' preconditions read (``gold_variants._preconditions``), read once into the record
(#40 item 1): flight-status reads and their results, membership tiers read and stated, the user's stated wants,
misstatements of the cabin rule, the users and records the calls name, the agent's acts, and an ending that
leaves a request pending. Each is kept with its message, so a precondition that reads up to a variant's own
decision (the decline, the certificate) cuts the list there."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence

from tau2.data_model.message import Message

from conversation_reading._arguments_json import arguments_json
from conversation_reading._evidence import (
    CONDITIONAL_RULE,
    TRANSFER_TOOL,
    Turn,
    asserted,
    call_text_of,
    excerpt_of,
    is_read_tool,
    mentions,
    negated,
    price_bound,
    split_sentences,
)
from conversation_reading._gate import may_match
from conversation_reading._lowered_search import matches, says
from conversation_reading._message_scan import changes, gate_of, message_scan
from conversation_reading._record import (
    Act,
    Misstatement,
    PendingEnding,
    RecordNamed,
    StatedWant,
    StatusRead,
    TierClaim,
    TierRead,
)
from conversation_reading._requests import asks_compensation
from conversation_reading._turn_index import UNPARSED, TurnIndex
from conversation_reading._vocabulary import vocabulary


def _index(turns: list[Turn], index: TurnIndex | None, messages: Sequence[Message] = ()) -> TurnIndex:
    return TurnIndex(turns, messages) if index is None else index


def compensation_raised_at(turns: list[Turn], index: TurnIndex | None = None) -> int | None:
    """The agent's first message with words of compensation (the catalog's request words for a certificate), or
    a certificate sent (``index``: the record's: the first such call bounds the messages read)."""
    words = vocabulary().requests["send_certificate"]
    index = _index(turns, index)
    sent = index.named("send_certificate")
    until = sent[0][0].index if sent else len(turns)  # the agent's message sending one, at the latest
    scan, bit = gate_of(words, "assistant")
    # ``TurnIndex.saying``'s test of each message, in order, up to the first that says it: the messages after it (and
    # after ``until``) are not gated
    for t, lowered, gated, bits in index.spoken("assistant", scan):
        if t.index >= until:
            break
        if (not gated or bits & bit and may_match(words, lowered, True)) \
                and says(words, t.text, _ascii_lowered(t.text, index)):
            return t.index
    return until if sent else None


def status_reads(turns: list[Turn], messages: Sequence[Message], index: TurnIndex | None = None) -> list[StatusRead]:
    index = _index(turns, index, messages)
    return [StatusRead(message_index=t.index, call=call_text_of(c),
                       result=("" if (reply := index.reply(c.id, t.index)) is None else reply[1].content or "")
                       .strip().strip('"').lower())
            for t, c in index.named("get_flight_status")]


def tier_reads(turns: list[Turn], messages: Sequence[Message], index: TurnIndex | None = None) -> list[TierRead]:
    """The tiers ``get_user_details`` returned (``index``: the record's, whose one parse of each result this
    shares)."""
    index = _index(turns, index, messages)
    out = []
    for t, c in index.named("get_user_details"):
        reply = index.reply(c.id, t.index)
        data = UNPARSED if reply is None else index.parsed(reply[0])
        if data is UNPARSED or not isinstance(data, dict):
            continue
        tier = data.get("membership")
        out.append(TierRead(message_index=t.index,
                            membership=None if tier is None else tier if isinstance(tier, str) else json.dumps(tier)))
    return out


def tier_claims(turns: list[Turn], index: TurnIndex | None = None) -> list[TierClaim]:
    """Tiers the agent states (not "if your Gold status is confirmed", not "you are not a gold member")."""
    claim = vocabulary().tier_claim
    index = _index(turns, index)
    gate = gate_of(claim, "assistant")
    return [TierClaim(message_index=t.index, tier=m.group(1).lower())
            for t in index.saying(claim, gate, "assistant")
            for s, low in _sentences_said(claim, t.text, index) for m in matches(claim, s, _ascii(s, low))
            if asserted(s, m.start())]


def _ascii_lowered(text: str, index: TurnIndex) -> str | None:
    """``says``' lowercase of ``text`` (the record's, lowered once): of an ASCII text, else None."""
    return index.lowered(text)[0] if text.isascii() else None


def _ascii(sentence: str, low: str) -> str | None:
    """``says``' lowercase of a sentence whose lowercase is ``low``."""
    return low if sentence.isascii() else None


def _sentences_said(pattern: re.Pattern[str], text: str, index: TurnIndex) -> list[tuple[str, str]]:
    """The sentences of ``text`` that ``pattern`` could match (``_gate.may_match`` of each: a catalog pattern's scan is
    slow), each with its lowercase. A sentence is a part of its text, so the gate applies to it where it applies to
    the text."""
    gated = index.lowered(text)[1]
    return [(s, low) for s, low in zip(split_sentences(text), index.sentences_lowered(text), strict=True)
            if may_match(pattern, low, gated)]


def _negated_only(pattern: re.Pattern[str], sentence: str, low: str, gated: bool) -> bool:
    """``pattern`` occurs in ``sentence`` (``low``: its lowercase) only under a negation. A negated occurrence needs a
    negator among its words (``_evidence.negated``), so a sentence the negation's gate rules out (``_gate``) has
    every occurrence un-negated: its scan is skipped. The occurrences are read once: ``says`` (one occurs) and not
    ``mentions`` (none is un-negated) over a sentence, which ``split_sentences`` cuts no further, read the same
    matches (the twin's where the sentence is ASCII) and ``negated`` of each."""
    if not may_match(vocabulary().negation, low, gated):
        return False
    found = False
    for m in matches(pattern, sentence, _ascii(sentence, low)):
        if not negated(sentence, m.start()):
            return False  # an occurrence outside a negation: ``mentions``
        found = True
    return found


def stated_wants(turns: list[Turn], index: TurnIndex | None = None) -> list[StatedWant]:
    v = vocabulary()
    index = _index(turns, index)
    compensation, keeping, negation = v.requests["send_certificate"], v.keeps_reservation, v.negation
    named = changes(v.requests["update_reservation_flights"].pattern, v.requests["cancel_reservation"].pattern)
    scan, bits = message_scan("user")
    wants, kept, changed = (bits.get(id(p), -1) for p in (compensation, keeping, named))
    out = []
    # the user's messages in one pass, each pattern's gate (``TurnIndex.saying``: its bits of the message's one scan,
    # ``_message_scan``, then the gate) tested only where the message is read for it: a message no gate lets through
    # states no want
    for t, lowered, gated, scanned in index.spoken("user", scan):
        if (not gated or scanned & wants and may_match(compensation, lowered, True)) \
                and asks_compensation(compensation, t.text):
            out.append(StatedWant(want="compensation", message_index=t.index, excerpt=excerpt_of(t.text)))
            continue
        # keeping it in words, or a change or cancellation named only under a negation ("I don't want to cancel"):
        # a negated occurrence needs a negator in its sentence, a part of the message, so a message the negation's
        # gate rules out has none (``_negated_only`` of each sentence is False)
        keeps = ((not gated or scanned & kept and may_match(keeping, lowered, True)) and mentions(keeping, t.text)) \
            or ((not gated or scanned & changed and may_match(named, lowered, True))
                and may_match(negation, lowered, gated)
                and any(_negated_only(named, s, low, gated) for s, low in _sentences_said(named, t.text, index)))
        if keeps:
            out.append(StatedWant(want="keep_reservation", message_index=t.index, excerpt=excerpt_of(t.text)))
    return out


def cabin_misstatements(turns: list[Turn], index: TurnIndex | None = None) -> list[Misstatement]:
    rule = vocabulary().false_cabin_rule
    index = _index(turns, index)
    gate = gate_of(rule, "assistant")
    out = []
    for t in index.saying(rule, gate, "assistant"):
        for s, low in _sentences_said(rule, t.text, index):  # each sentence gated too: a catalog pattern's scan is slow
            # the rule itself ("not allowed if a flight was flown"), or a verdict on the user's budget, is none
            if any(not price_bound(s, m.start(), m.end()) for m in matches(rule, s, _ascii(s, low))) \
                    and not CONDITIONAL_RULE.search(s):
                out.append(Misstatement(message_index=t.index, excerpt=excerpt_of(s)))
    return out


def authenticated_users(turns: list[Turn], index: TurnIndex | None = None) -> list[str]:
    keys = vocabulary().user_arguments
    return sorted({str(c.arguments.get(k)) for _, c in _index(turns, index).calls for k in keys if c.arguments.get(k)})


def records_named(turns: list[Turn], record_ids: Collection[str]) -> list[RecordNamed]:
    """Where each of ``record_ids`` is first read by a call (its ``record_arguments``) or named in words or a
    call's arguments."""
    keys = vocabulary().record_arguments
    first: dict[str, int] = {}
    wanted = len(set(record_ids))
    if wanted:  # none asked: nothing to look for
        for t in turns:
            said = [t.text] if t.role in ("user", "assistant") else []
            said += [arguments_json(c.arguments) for c in t.calls]  # ``json.dumps``'s, its encoder built once
            read = {str(c.arguments.get(k)) for c in t.calls for k in keys if c.arguments.get(k)}
            for r in record_ids:
                if r not in first and (r in read or any(r in text for text in said)):
                    first[r] = t.index
            if len(first) == wanted:
                break  # every id found
    return [RecordNamed(record_id=r, named_at=first.get(r)) for r in sorted(record_ids)]


def acts(turns: list[Turn], index: TurnIndex | None = None) -> list[Act]:
    """Every call neither a read nor a transfer, in order (``index``: the record's, its calls listed once)."""
    return [Act(message_index=t.index, call=call_text_of(c))
            for t, c in _index(turns, index).calls if not is_read_tool(c.name) and c.name != TRANSFER_TOOL]


def pending_ending(turns: list[Turn]) -> PendingEnding | None:
    """The user chose a transfer (their last message before the agent's last transfer asks for one), or agreed
    and ended the call with no write after."""
    v = vocabulary()
    transfer = next((t for t in reversed(turns) if t.calls and any(c.name == TRANSFER_TOOL for c in t.calls)), None)
    if transfer is not None:
        said = next((t for t in reversed(turns[: transfer.index]) if t.role == "user"), None)
        if said is not None and mentions(v.transfer_request, said.text):
            return PendingEnding(how="chose_transfer", message_index=said.index)
        return None
    last_user = next((t for t in reversed(turns) if t.role == "user"), None)
    if last_user is None or "###STOP###" not in last_user.text:
        return None
    wrote_after = any(
        c.name != TRANSFER_TOOL and not is_read_tool(c.name) for t in turns[last_user.index :] for c in t.calls
    )
    if not wrote_after and mentions(v.agreement, last_user.text.replace("###STOP###", "")):
        return PendingEnding(how="agreed_and_ended", message_index=last_user.index)
    return None


__all__ = [
    "acts", "authenticated_users", "cabin_misstatements", "compensation_raised_at", "pending_ending", "records_named",
    "stated_wants", "status_reads", "tier_claims", "tier_reads",
]
