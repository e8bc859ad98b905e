"""What else settles a request whose gold makes no write, and a write made without the user's yes (#40).

``strict_reward`` asks of a no-write gold that the conversation shows the agent deciding, not merely doing
nothing. A decline or a transfer tool call (``_evidence``) is one such decision; these are the others, each
read from the messages with the catalog's vocabulary (``withdrawal``, ``quote``, ``explicit_yes``,
``transfer_request``):

- **an informational answer** (class 8): the user asked for a fact and the agent stated it. The facts are the
  gold's own (``communicate_info``); each must stand as a whole token in a statement of the agent (not only
  inside a longer number, as tau2's substring check allows: "4" in "$149");
- **a withdrawal after a quote** (class 9): the user's last word withdraws the request ("over my budget,
  I won't be proceeding") right after the agent quoted an amount, and no claim the agent made before it is
  false against the database (``_claims``: what it can check; an undecidable quote is not held false);
- **a decline whose subject is the sentence before** (class 10): "… which requires changing the destination.
  This is not permitted under policy." The declining sentence opens with an anaphor (this, that, it, which,
  such a change), names part of the clause's subject, and the sentence before it names the whole subject,
  in the agent's words or in a transfer summary;
- **a transfer agreed in words** (class 11): the agent's last message says it will transfer (or asks whether
  to), and the user simulator answers with ``###TRANSFER###``, ending the call before the tool call could be
  made. A transfer announced and then not made while the conversation went on is not one.

None of these settles a request where the agent made a claim the database contradicts (``first_false_claim``:
"as a Gold member" to a Silver one): the user's decision then rests on it.

``writes_without_yes`` reads the policy's conduct rule (list the action's details and obtain an explicit
"yes" before any write), conservatively: a write whose last user message before it says no explicit yes
and does not answer the agent's request for confirmation either (``confirmation_request``).
A quote of compensation (a certificate's amount) does not count for a withdrawal: offering it unasked is
itself what the policy forbids.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from tau2.data_model.message import Message

from conversation_reading._claims import false_claims
from conversation_reading._evidence import (
    TRANSFER_TOOL,
    Turn,
    Units,
    _declines,
    asks,
    mentions,
    read_turns,
    split_sentences,
)
from conversation_reading._replies import asks_confirmation, confirmation_of
from conversation_reading._turn_index import TurnIndex
from conversation_reading._vocabulary import vocabulary

TRANSFER_MARK = "###TRANSFER###"
_ANAPHOR = re.compile(r"^\W*(?:this|that|it|which|such (?:a |an )?\w+|these|those)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Settled:
    """How a no-write gold's request was settled: what, at which message, in the agent's or user's words."""

    what: str
    message_index: int
    excerpt: str


def excerpt_of(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _spoken(turns: list[Turn], role: str) -> list[Turn]:
    return [t for t in turns if t.role == role and t.text.strip()]


def _token(fact: str) -> re.Pattern[str]:
    """``fact`` as a whole token: not inside a longer word or number."""
    return re.compile(r"(?<![\w.])" + re.escape(fact.lower()) + r"(?![\w]|\.\d)")


def informational_answer(messages: Sequence[Message], facts: Sequence[str]) -> Settled | None:
    """The agent stated every one of ``facts`` (the gold's ``communicate_info``) in a statement: the message
    where the last of them first stands. None where there are no facts or one is never stated."""
    return answer_in(read_turns(messages), facts)


def answer_in(turns: list[Turn], facts: Sequence[str]) -> Settled | None:
    """``informational_answer`` on a conversation already read (``_evidence.read_turns``)."""
    if not facts:
        return None
    said = [(t.index, t.text.lower().replace(",", "")) for t in _spoken(turns, "assistant")]  # once for every fact
    last: tuple[int, str] | None = None
    for fact in facts:
        pattern = _token(fact)
        word = fact.lower()  # the token's text: a message without it has no sentence (a part of it) to match
        found = None
        for index, text in said:
            if word not in text:
                continue
            for sentence in split_sentences(text):
                m = pattern.search(sentence)
                if m is not None and not asks(sentence, m.start()):
                    found = (index, sentence)
                    break
            if found:
                break
        if found is None:
            return None
        last = max(last, found) if last else found
    assert last is not None
    return Settled(f"the agent states {', '.join(repr(f) for f in facts)}", last[0], excerpt_of(last[1]))


def withdrawal_after_quote(messages: Sequence[Message], domain: str) -> Settled | None:
    """The user's last message withdraws the request right after the agent's message quoting an amount, and
    no claim the agent made up to then is false against the database."""
    turns = read_turns(messages)
    return withdrawal_in(turns, lambda until: bool(false_claims(turns, messages, domain, until=until)))


def withdrawal_in(turns: list[Turn], false_claim_until: Callable[[int], bool]) -> Settled | None:
    """``withdrawal_after_quote`` on a conversation already read, ``false_claim_until(i)`` saying whether a claim
    the agent made up to message ``i`` is false (of the kinds checked for every verdict)."""
    v = vocabulary()
    users = _spoken(turns, "user")
    if not users:
        return None
    last = users[-1]
    said = last.text.replace("###STOP###", " ").replace(TRANSFER_MARK, " ")
    if not mentions(v.withdrawal, said):
        # the withdrawal may come one message earlier, the last only thanking ("That's all for now, thanks")
        earlier = users[-2] if len(users) > 1 else None
        if earlier is None or mentions(v.transfer_request, said) or not mentions(v.withdrawal, earlier.text):
            return None
        last = earlier
    quote = next((t for t in reversed(turns[: last.index]) if t.role == "assistant" and t.text.strip()), None)
    if quote is None or not v.quote.search(quote.text):
        return None
    if mentions(v.compensation, quote.text):
        return None  # an amount of compensation declined is no quote of the request (the policy limits offers)
    if any(c.name != TRANSFER_TOOL for t in turns[last.index :] for c in t.calls):
        return None  # something was done after the withdrawal: it did not end the request
    if false_claim_until(last.index):
        return None
    return Settled(f"the user withdraws after the agent's quote at message {quote.index}", last.index,
                   excerpt_of(last.text))


def _anaphoric(kind_name: str, units: list[str]) -> str | None:
    kind = vocabulary().kinds[kind_name]
    for before, unit in zip(units, units[1:], strict=False):
        if not _ANAPHOR.match(unit) or kind.not_the_clause.search(before) or kind.not_the_clause.search(unit):
            continue
        if kind.names(before) and not kind.names(unit) and _declines(kind, unit, direct=False):
            return f"{before} {unit}"
        if kind.names(before) and kind.indirect == () and _declines(kind, unit, direct=True):
            return f"{before} {unit}"
    return None


def anaphoric_decline(kind_name: str, messages: Sequence[Message]) -> Settled | None:
    """A decline on ``kind_name``'s clause whose subject is the sentence before it, in an agent message or a
    transfer summary."""
    return anaphoric_in(kind_name, read_turns(messages), Units())


def anaphoric_in(
    kind_name: str, turns: list[Turn], units: Units, gated: bool = True, declined: Collection[int] | None = None,
) -> Settled | None:
    """``anaphoric_decline`` on a conversation already read, its units cut once (``units``). An agent message is
    read only where a unit of it may name the subject (``Units.may``) and may decline on the clause
    (``Units.may_decline``, which the clause's declines in words asked of it already): the declining sentence of
    an anaphoric decline declines on it, directly or not (``_declines``). ``declined``: the messages where the
    clause's declines in words (``_evidence``'s, over the same ``units``) found one, directly or not: that unit is
    one of them, so no other message's words are read (the generic refusal names no subject, so its gate lets
    every message that may decline through). ``gated=False``: every message read (the reference the gates are
    tested against)."""
    kind = vocabulary().kinds[kind_name]
    for t in turns:
        if t.role != "assistant":
            continue
        found = None
        if not gated or t.text and (declined is None or t.index in declined) and units.may(
                kind.subject, t.text) and units.may_decline(kind, t.text):
            found = _anaphoric(kind_name, units.of(t.text))
        for call in t.calls or ():  # a loop, not a generator a turn (#47): most make no call
            if found is not None:
                break
            if call.name == TRANSFER_TOOL:
                found = _anaphoric(kind_name, units.of_summary(str(call.arguments.get("summary") or "")))
        if found is not None:
            return Settled(f"declines on {kind.what}, naming it in the sentence before",
                           t.index, excerpt_of(found))
    return None


def first_false_claim(messages: Sequence[Message], domain: str) -> Settled | None:
    """The first claim of the agent the database contradicts (``_claims``: the kinds it can check), if any."""
    found = false_claims(read_turns(messages), messages, domain)
    if not found:
        return None
    first = min(found, key=lambda c: c.message_index)
    return Settled(f"a false claim of {first.what}: {first.truth}", first.message_index, first.excerpt)


def agreed_transfer(messages: Sequence[Message]) -> Settled | None:
    """The agent's last message agrees to transfer (or offers it) and the user ends the call with
    ``###TRANSFER###`` right after it, before any transfer tool call."""
    return agreed_in(read_turns(messages))


def agreed_in(turns: list[Turn], index: TurnIndex | None = None) -> Settled | None:
    """``agreed_transfer`` on a conversation already read (``index``: the record's, whose calls by tool and last
    user message it reads)."""
    if index is not None:
        if index.named(TRANSFER_TOOL):
            return None
        last = index.said_before(len(turns))  # the user's last message with words
    elif any(c.name == TRANSFER_TOOL for t in turns for c in t.calls):
        return None  # a transfer tool call: the evidence's own case
    else:
        users = _spoken(turns, "user")
        last = users[-1] if users else None
    if last is None or TRANSFER_MARK not in last.text:
        return None
    agent = next((t for t in reversed(turns[: last.index]) if t.role == "assistant"), None)  # the agent's last before
    if agent is None or not agent.text.strip():
        return None
    if not mentions(vocabulary().transfer_request, agent.text):
        return None
    return Settled(f"the agent agrees to transfer at message {agent.index}; the user ends the call with "
                   f"{TRANSFER_MARK}", last.index, excerpt_of(agent.text))


def _answers_confirmation(turns: list[Turn], said: Turn) -> bool:
    """``said`` answers the agent's request for confirmation (its last message before asks for it) without
    refusing or withdrawing."""
    v = vocabulary()
    asked = next((t for t in reversed(turns[: said.index]) if t.role == "assistant" and t.text.strip()), None)
    if asked is None or not asks_confirmation(asked.text):
        return False
    refuses = re.match(r"\W*(?:no|nope|not)\b", said.text, re.IGNORECASE) is not None
    return not refuses and not mentions(v.withdrawal, said.text)


def writes_without_yes(
    messages: Sequence[Message], is_write: Callable[[str], bool]
) -> list[Settled]:
    """Each write call (``is_write`` by tool name) whose last user message before it has no explicit yes."""
    return unconfirmed_writes(read_turns(messages), is_write)


def unconfirmed_writes(turns: list[Turn], is_write: Callable[[str], bool]) -> list[Settled]:
    """``writes_without_yes`` on a conversation already read (``_evidence.read_turns``): the last user message
    before the write that answers the agent putting the write to them says yes (``_replies.confirmation_of``)."""
    found: list[Settled] = []
    for t in turns:
        if not t.calls:
            continue  # most messages make no call
        for call in (c for c in t.calls if c.name != TRANSFER_TOOL and is_write(c.name)):
            if confirmation_of(turns, t.index, dict(call.arguments or {}), call.name) is None:
                said = next((u for u in reversed(turns[: t.index]) if u.role == "user" and u.text.strip()), None)
                found.append(Settled(f"{call.name} with no explicit yes from the user before it", t.index,
                                     excerpt_of(said.text if said is not None else "")))
                break
    return found


__all__ = ["Settled", "agreed_transfer", "anaphoric_decline", "first_false_claim", "informational_answer", "withdrawal_after_quote", "writes_without_yes"]
