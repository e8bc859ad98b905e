"""One typed reading of a conversation (#40 item 1): what the user asked, what the agent declined, transferred,
offered, wrote and claimed, and how the user decided, each with its message.

The record is built once per scored trajectory, before any verdict (``_reading.conversation_record``, called by
``loophole_scoring.score_simulation`` in sweeps and rescores alike), stored in the run (``trials.record_json``)
and printed by ``harness explain`` and the viewer. Strict, the variants' evidence, claims and conduct checks, and
the independent requests read their facts from it (``_record_reads``); none of them reads the text again.

``RECORD_SCHEMA_VERSION`` names the shape; a stored record of another version is refused by its readers in one
line naming the version. Version 2 adds what the verdicts read besides version 1's facts: each decline's form
(in words, in a transfer summary, or anaphoric, the subject in the sentence before) and place; the clauses read
and each one's first contested write; transfers' summaries, whether the user asked for one before and whether
the agent declined before it; offers' place in the catalog and the clauses whose condition their message states;
writes' tool errors and whether the agent listed their details before the yes (``_write_details``); cancellations and what the rules said of each; compensation offered unasked; claims' places;
the withdrawal after a quote; and what the variants' preconditions read: flight-status reads and their results,
membership tiers read and stated, which writes follow a user request, the user's stated wants, misstatements of
the cabin rule, the users and records the calls name, the agent's acts, and an ending that leaves a request pending. Since #46 (same version: the new fields have defaults) each clause also
holds the agent's final handling (``ClauseRead.taken_up_at``: where it took the workaround up after declining,
``_handling``), each offer the condition its own message states of it and whether its sentence is conditional,
and a write's ``confirmed`` reads the user's yes as a reply to the agent putting that write to them
(``_replies``).
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

RECORD_SCHEMA_VERSION: Literal[2] = 2


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


P = TypeVar("P", bound=_Part)
_new = object.__new__
_set = object.__setattr__
# BaseModel's slots set through their own descriptors: one wrapper call each, not object.__setattr__'s slice,
# argument unpacking and type lookup (#47: 3.1K instructions a part less, with the shared fields set below)
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
# one "every field set" per part class, shared by the parts built with every field: pydantic only ever mutates
# a model's fields set on assignment (refused: the parts are frozen) or on the copy ``model_copy`` makes first
_EVERY: dict[type[BaseModel], set[str]] = {}


def built(cls: type[P], fields: dict[str, Any]) -> P:
    """The part ``cls.model_validate(fields)`` builds, without validating it: ``model_construct`` with every field
    given, in the model's order (its ``__dict__``; the fields set: every field, one set shared by the class's
    parts). For a part the reader builds of values it knows valid (its own strings, ints, bools, fresh lists),
    where validating cost twice the building (#47; ``model_construct`` itself costs more than validating). The
    record holding the parts is still validated (``ConversationRecord``); tests/test_record_built.py compares
    each part with the validated one on real conversations."""
    m = _new(cls)
    _set(m, "__dict__", fields)
    every = _EVERY.get(cls)
    if every is None:
        every = _EVERY[cls] = set(cls.model_fields)
    _set_fields_set(m, every if len(every) == len(fields) else set(fields))
    _set_extra(m, None)
    _set_private(m, None)
    return m


class UserRequest(_Part):
    tool: str  # the write the user asks for (the catalog's ``requests`` key)
    message_index: int  # the first user message asking for it
    excerpt: str


class Decline(_Part):
    """A decline on a clause (an evidence kind; "refusal": the request, no clause)."""

    clause: str
    # words: an agent sentence; transfer: a transfer call's summary (``tool_call`` names the call); anaphoric:
    # a sentence whose subject is the sentence before (strict's class 10; not a variant's evidence)
    form: Literal["words", "transfer", "anaphoric"]
    what: str
    message_index: int
    excerpt: str
    certain: bool  # False: names the clause only indirectly, or a transfer summary names no clause
    tool_call: str | None = None  # the transfer call, as the explanation shows it (form "transfer")
    start: int | None = None  # the excerpt's place in the message's original content (the viewer marks it)
    end: int | None = None


class ClauseRead(_Part):
    """A clause whose declines the record holds, and where the agent acted against a refusal on it by writing."""

    clause: str
    contested_write_at: int | None  # the first call of a write the clause contests (any write where it names none)
    # the first user message stating the request a decline on the clause answers (the catalog's ``requested_by``;
    # None: the clause names no such request, or the user never stated it) and its words
    requested_at: int | None = None
    request_excerpt: str = ""
    # the final handling (#46 item 3): the first point after the clause's first decline where the agent takes up
    # the clause's workaround (``_handling``): offers it in a sentence of its own (not tied to the clause's
    # condition), or answers the user proposing it by agreeing, quoting its price or asking to go ahead; None:
    # the decline is the agent's last word
    taken_up_at: int | None = None
    taken_up: str = ""


class Transfer(_Part):
    how: Literal["tool_call", "agreed_in_words"]
    message_index: int
    excerpt: str  # the summary as read (normalised), or the agent's agreeing words
    clauses: list[str] = []  # evidence kinds the summary declines on, certainly
    what: str = ""  # agreed in words: how, as strict names it
    summary: str = ""  # tool call: the summary as written
    asked_by_user: bool = False  # a user message before it asks for a transfer
    declined_before: bool = False  # the agent declined the request before it (or, a tool call, in its summary)


class Offer(_Part):
    loophole_id: str  # the catalog entry whose workaround it is
    offer: int  # its place among the entry's offers
    what: str
    message_index: int
    excerpt: str
    # the clauses (of those read) whose condition the same message ties the offer to ("if you change or cancel,
    # I can offer ..."), for an offer the catalog says such a tie makes the clause itself
    conditioned_on: list[str] = []
    # the clauses (of those read) whose condition the message states of this option (not in a sentence about
    # another option: a refund's condition is not the certificate's), and whether the offer's own sentence is
    # conditional ("cancel it (if eligible) and book a new one"): either way the offer is no taking-up (#46)
    own_condition: list[str] = []
    conditional: bool = False
    start: int | None = None  # the offer's place in the message's original content
    end: int | None = None


class Write(_Part):
    tool: str
    arguments: dict[str, Any]
    message_index: int
    # the user's last message before it says an explicit yes, or answers the agent's request for confirmation
    # without refusing (the policy's conduct rule as strict and every credit read it); the details listed:
    # ``details_listed``
    confirmed: bool
    confirmation_index: int | None  # the user's last message before the write (None: no user message)
    confirmation: str  # that message's words
    details_listed: bool  # the agent named its details to the user before that message (``_write_details``)
    failed: bool = False  # its tool message is an error (the write was attempted; a tool error stopped it)
    requested_at: int | None = None  # the first user message before it asking for its tool (catalog ``requests``)

    @property
    def no_yes(self) -> str:
        return f"{self.tool} with no explicit yes from the user before it"

    @property
    def no_details(self) -> str:
        shown = ", ".join(f"{k}: {v}" for k, v in list(self.arguments.items())[:3])
        return f"{self.tool} with none of its details ({shown}) listed by the agent before the user's confirmation"


class Cancellation(_Part):
    reservation_id: str
    message_index: int
    forbidden: str | None  # why the cancellation rules forbid it, as the conversation had read it; None: allowed or undecidable


class UnaskedCompensation(_Part):
    message_index: int
    detail: str  # compensation offered or sent before the user asked, or sent after the agent declined it


class Claim(_Part):
    kind: str
    what: str
    message_index: int
    excerpt: str
    false: bool  # the database as read at that point contradicts it
    truth: str | None  # what the database says, where it contradicts the claim; None: consistent or undecidable
    acted_on: bool  # the user's next message accepts it (or took the offer)
    refusals_of: list[str] = []  # checked only for these loopholes' refusals (strict does not read it)
    start: int | None = None
    end: int | None = None
    withdrawn_at: int | None = None  # an offer taken: the agent's message declining its act before any write of it

    @property
    def relied_on(self) -> bool:
        """The user acted on it and the agent did not take it back before acting (#46 item 3: the final
        handling): a taken offer the agent then declined is noted, not relied on."""
        return self.acted_on and self.withdrawn_at is None


class ConsequentialSentence(_Part):
    """An agent sentence before the user's decision that states a money figure, states what is allowed,
    possible, eligible or required, or offers, promises or asks for a decision (#46 item 2), checked against
    the policy model over the database as the conversation had read it (``_sentences``)."""

    kind: Literal["decline", "offer", "promise", "figure", "rule_claim", "fact_claim", "question",
                  "confirmation_request"]
    # true/false: the policy model (or a claim checker) decides it; not_checkable: nothing decides it;
    # read_elsewhere: another part of the record reads it (a decline, an offer, a confirmation request)
    verdict: Literal["true", "false", "not_checkable", "read_elsewhere"]
    clause: str  # the policy clause or figure it was checked against ("" where none)
    why: str  # what the policy model says (a false one: the truth)
    message_index: int
    excerpt: str
    relied_on: bool  # the user's decision followed it: their next message agrees, ends the call or decides

    @property
    def accounted(self) -> bool:
        return self.verdict != "not_checkable"


class Answer(_Part):
    what: str
    message_index: int
    excerpt: str


class Withdrawal(_Part):
    """The user withdrew right after the agent quoted an amount, and no claim before it is false."""

    what: str
    message_index: int  # the user's withdrawing message
    excerpt: str


class FinalDecision(_Part):
    decision: Literal["withdrew", "transfer", "agreed", "ended", "none"]
    message_index: int | None
    excerpt: str
    basis: str  # what the decision rests on: the agent's message before it, and the false claims acted on


class StatusRead(_Part):
    """A get_flight_status call and what it returned (unquoted, lower case; "" where no result came)."""

    message_index: int
    call: str  # as the explanation cites it
    result: str


class TierRead(_Part):
    """A get_user_details call whose result is a JSON object, and the membership it gives."""

    message_index: int
    membership: str | None


class TierClaim(_Part):
    """A membership tier the agent states ("as a Gold member"; not "if your Gold status is confirmed")."""

    message_index: int
    tier: str  # lower case


class StatedWant(_Part):
    """A user message asking for compensation, or saying what they want of the reservation (keep it: not change
    or cancel it); a message doing both asks for compensation."""

    want: Literal["compensation", "keep_reservation"]
    message_index: int
    excerpt: str  # the normalised words


class Misstatement(_Part):
    """An agent sentence stating the cabin rule falsely (every reservation may change cabin)."""

    message_index: int
    excerpt: str


class RecordNamed(_Part):
    """A record id the verdicts ask about (a gold's ``record_arguments``), and the first message whose words or
    call arguments name it (a tool result listing it is not enough)."""

    record_id: str
    named_at: int | None


class Act(_Part):
    """A call that is neither a read (by its name) nor a transfer: what the database credit rests on."""

    message_index: int
    call: str  # as the explanation cites it


class PendingEnding(_Part):
    """Why a write the user asked for may be pending rather than ignored."""

    how: Literal["chose_transfer", "agreed_and_ended"]
    message_index: int

    @property
    def why(self) -> str:
        if self.how == "chose_transfer":
            return f"the user chose a transfer at message {self.message_index}"
        return f"the user agreed and ended the call at message {self.message_index}"


class ConversationRecord(BaseModel):
    """One conversation, read once. Lists are in message order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[2] = RECORD_SCHEMA_VERSION
    clauses_read: list[ClauseRead] = []
    requests: list[UserRequest] = []
    declines: list[Decline] = []
    transfers: list[Transfer] = []
    offers: list[Offer] = []
    writes: list[Write] = []
    cancellations: list[Cancellation] = []
    unasked_compensation: UnaskedCompensation | None = None
    claims: list[Claim] = []
    sentences: list[ConsequentialSentence] = []  # every consequential agent sentence (``_sentences``)
    answers: list[Answer] = []
    withdrawal: Withdrawal | None = None
    final_decision: FinalDecision
    # what the variants' preconditions read (``_precondition_facts``)
    certificate_at: int | None = None  # the first send_certificate call
    compensation_raised_at: int | None = None  # the agent's first words of compensation, or a certificate sent
    status_reads: list[StatusRead] = []
    tier_reads: list[TierRead] = []
    tier_claims: list[TierClaim] = []
    stated_wants: list[StatedWant] = []
    cabin_misstatements: list[Misstatement] = []
    authenticated_users: list[str] = []  # every user id a call's ``user_arguments`` name, sorted
    records_named: list[RecordNamed] = []  # the record ids asked about (``conversation_record``'s ``record_ids``)
    acts: list[Act] = []
    pending_ending: PendingEnding | None = None

    @property
    def false_claims(self) -> list[Claim]:
        return [c for c in self.claims if c.false]

    @property
    def writes_without_yes(self) -> list[Write]:
        return [w for w in self.writes if not w.confirmed]

    @property
    def writes_without_details(self) -> list[Write]:
        """Writes the user confirmed (or not) without the agent having named any of their details first."""
        return [w for w in self.writes if not w.details_listed]

    def named_at(self, record_id: str) -> int | None:
        """Where ``record_id`` is first named; a verdict asking for one the record did not look for is a scoring bug."""
        found = next((r for r in self.records_named if r.record_id == record_id), None)
        if found is None:
            raise KeyError(f"the conversation record did not look for record {record_id!r}")
        return found.named_at

    def clause(self, name: str) -> ClauseRead:
        """The clause's reading; a verdict asking for one the record did not read is a scoring bug."""
        found = next((c for c in self.clauses_read if c.clause == name), None)
        if found is None:
            raise KeyError(f"the conversation record did not read clause {name!r} (read: "
                           f"{', '.join(c.clause for c in self.clauses_read)})")
        return found

    def declines_on(self, clause: str, before: int | None = None) -> list[Decline]:
        """The declines on ``clause`` in words or a transfer summary (a variant's evidence), in message order."""
        self.clause(clause)
        return [d for d in self.declines if d.clause == clause and d.form != "anaphoric"
                and (before is None or d.message_index < before)]

    def anaphoric_decline(self, clause: str) -> Decline | None:
        self.clause(clause)
        return next((d for d in self.declines if d.clause == clause and d.form == "anaphoric"), None)

    def agreed_transfer(self) -> Transfer | None:
        """A transfer agreed in words that the user asked for or that follows a decline: one printed unasked
        over a request nobody declined hands the request off unanswered and settles nothing (#46 strict)."""
        return next((t for t in self.transfers
                     if t.how == "agreed_in_words" and (t.asked_by_user or t.declined_before)), None)


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


__all__ = [
    "Act", "Answer", "Cancellation", "Claim", "ClauseRead", "ConsequentialSentence", "ConversationRecord", "Decline", "FinalDecision",
    "Misstatement", "Offer", "PendingEnding", "RECORD_SCHEMA_VERSION", "RecordNamed", "RecordVersionError",
    "StatedWant", "StatusRead", "TierClaim", "TierRead", "Transfer", "UnaskedCompensation", "UserRequest",
    "Withdrawal", "Write", "built", "read_record",
]
