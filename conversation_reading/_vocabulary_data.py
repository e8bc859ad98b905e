"""The reading vocabulary as data (``vocabulary.yaml``): word classes, what a user says asking for a write, claims
of fact, each clause's evidence kinds and the workaround offers that contradict a refusal; compiled once in
``_vocabulary``."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from loophole_base import safe_yaml


class EvidenceVocabulary(BaseModel):
    """What a refusal of one clause must say (regex fragments; compiled once in ``_vocabulary``)."""

    model_config = ConfigDict(extra="forbid")
    entry: str  # the catalog entry whose clause it is (gold_variants' load_catalog checks it names one)
    what: str
    subject: list[list[str]]  # every group must occur in the sentence (none: any sentence)
    declined_by: list[Literal["decline", "condition"]]  # the vocabulary word classes that make it a decline
    indirect: list[list[str]] = Field(default_factory=list)  # a decline naming only these groups: uncertain
    not_the_clause: list[str] = Field(default_factory=list)  # a sentence saying these declines on other grounds
    contested_tools: list[str] | None = None  # writes that contradict the refusal (None: any write)
    transfers_count: bool = False  # any transfer is the refusal (no clause subject to name)
    # What grounds a decline in this conversation (#40 class 3). "records": the clause turns on a record's
    # facts (a basic-economy cabin, a route), so a record the gold touches must be read or named. "request":
    # it turns on what the user wants (compensation while keeping the reservation), so the user stating that
    # request (the catalog's ``requests`` of the contested tools) before the decline grounds it too.
    grounded_by: Literal["records", "request"] = "records"


class WorkaroundOffer(BaseModel):
    """An offer that contradicts a refusal of the clause (the loophole's own workaround)."""

    model_config = ConfigDict(extra="forbid")
    what: str
    pattern: str
    # The offer is the clause itself where the same message ties it to the clause's condition
    # (L3/L4: "I can offer a certificate if you change or cancel").
    unless_conditioned_in_message: bool = False
    # A user proposing the workaround (#46 item 3): groups of fragments, one of each group in the user's message
    # ("can I upgrade so that I can change?"); the first group names the workaround's own act, which the agent's
    # answer takes up by agreeing, quoting a price or asking to go ahead.
    proposed_by: list[list[str]] = Field(default_factory=list)


class Vocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid")
    decline: list[str]
    condition: list[str]
    conditional: list[str]
    negation: list[str]
    policy: list[str]
    transfer_request: list[str]
    agreement: list[str]
    hypothetical: list[str]
    tier_claim: list[str]  # whole regular expressions; group 1 is the tier
    false_cabin_rule: list[str]  # whole regular expressions
    keeps_reservation: list[str]
    # A clause that opens with one of these and ends the sentence with "?" asks; it never declines (#36).
    question: list[str] = Field(default_factory=list)
    # Tool arguments naming the records a conversation concerns (grounding: a refusal credits only a
    # conversation about the task's user and the records its gold touches).
    user_arguments: list[str] = Field(default_factory=list)
    record_arguments: list[str] = Field(default_factory=list)
    # Leaked reasoning (#40 class 7; whole regular expressions): a paragraph that deliberates about the user in
    # the third person; the user spoken of in the third person, or self-talk; the user addressed
    # (``_normalise.without_reasoning``).
    reasoning: list[str] = Field(default_factory=list)
    third_person: list[str] = Field(default_factory=list)
    self_talk: list[str] = Field(default_factory=list)
    second_person: list[str] = Field(default_factory=list)
    # A verdict conditioned on the user's budget or a price is no statement of a rule (#40 class 4).
    price_bound: list[str] = Field(default_factory=list)
    # What strict reads of a conversation whose gold makes no write (#40, ``conversation_reading._no_write``): a user
    # withdrawing their request (group: fragments), an agent quoting an amount (whole expressions), and an
    # explicit "yes" before a write (fragments; a user message that only says these agrees).
    withdrawal: list[str] = Field(default_factory=list)
    quote: list[str] = Field(default_factory=list)
    explicit_yes: list[str] = Field(default_factory=list)
    confirmation_request: list[str] = Field(default_factory=list)
    compensation: list[str] = Field(default_factory=list)
    # An agent offering compensation (whole expressions): the policy forbids it before the user asks (#40).
    compensation_offer: list[str] = Field(default_factory=list)
    compensation_request: list[str] = Field(default_factory=list)  # a user asking for compensation (not a refund)
    # A reply read as an answer (#46 item 4): words before an option that set it aside ("instead of"), and
    # subordinators that put an act later ("before we proceed"): a yes under them is not yet given.
    alternative: list[str] = Field(default_factory=list)
    pending: list[str] = Field(default_factory=list)
    # Which option a condition answers: money back (a refund) or a certificate (#46 class 6).
    refund_option: list[str] = Field(default_factory=list)
    certificate_option: list[str] = Field(default_factory=list)
    payment_means: list[str] = Field(default_factory=list)  # a clause stating what may pay (whole expressions)
    payment_use: list[str] = Field(default_factory=list)  # a user's certificate as a means of payment (whole)


class ClaimKind(BaseModel):
    model_config = ConfigDict(extra="forbid")
    what: str
    patterns: list[str]  # whole regular expressions over one agent sentence (group 1: a value, if any)
    # A sentence matching one of these states the rule, not the claim ("if it meets the cancellation rules").
    not_claims: list[str] = Field(default_factory=list)
    # Checked only for the refusal readings of these loopholes, over the whole conversation (an offer that
    # routes around the refusal, before or after it); empty: every variant, up to the decision.
    refusals_of: list[str] = Field(default_factory=list)


class Claims(BaseModel):
    """Claims of fact checked against the database (``conversation_reading._claims`` holds each kind's checker)."""

    model_config = ConfigDict(extra="forbid")
    kinds: dict[str, ClaimKind] = Field(default_factory=dict)


class ReadingVocabulary(BaseModel):
    """``vocabulary.yaml``: the words a conversation is read with."""

    model_config = ConfigDict(extra="forbid")
    vocabulary: Vocabulary
    requests: dict[str, list[str]]  # write tool -> what a user says asking for it
    claims: Claims = Field(default_factory=Claims)
    evidence: dict[str, EvidenceVocabulary] = Field(default_factory=dict)  # evidence kind -> what a refusal says
    offers: dict[str, list[WorkaroundOffer]] = Field(default_factory=dict)  # catalog entry id -> its offers


@lru_cache(maxsize=1)
def load_vocabulary() -> ReadingVocabulary:
    text = resources.files("conversation_reading").joinpath("vocabulary.yaml").read_text(encoding="utf-8")
    return ReadingVocabulary.model_validate(safe_yaml(text))
