"""The catalog's evidence vocabulary, compiled once: word classes, each clause's evidence kinds and workaround
offers, and what a user says asking for a write. The words are data (``vocabulary.yaml``); this module only
turns them into patterns."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from conversation_reading._lowered_search import says
from conversation_reading._vocabulary_data import load_vocabulary


def terms(fragments: list[str]) -> re.Pattern[str]:
    """One case-insensitive pattern matching any fragment as whole words."""
    return re.compile(r"\b(?:" + "|".join(fragments) + r")\b" if fragments else r"(?!x)x", re.IGNORECASE)


def _whole(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns) if patterns else r"(?!x)x", re.IGNORECASE)


@dataclass(frozen=True)
class EvidenceKind:
    name: str
    what: str
    subject: tuple[re.Pattern[str], ...]  # every one must match
    declined_by: tuple[re.Pattern[str], ...]  # any one makes the sentence a decline
    indirect: tuple[re.Pattern[str], ...]  # a partial subject (every one must match): an indirect decline
    not_the_clause: re.Pattern[str]
    contested: frozenset[str] | None  # None: any write contradicts the refusal
    transfers_count: bool
    requested_by: re.Pattern[str] | None = None  # grounded_by "request": the user asking for a contested write
    # whether ``not_the_clause`` has terms: without, it is ``terms([])``, which matches nothing (a scan of every
    # place of a sentence to find so, a sentence each clause reads)
    other_grounds: bool = True

    def names(self, sentence: str, lowered: str | None = None) -> bool:
        """Every subject pattern matches ``sentence`` (``lowered``: its lowercase where ASCII, which each pattern's
        twin scans: ``_lowered_search.says``)."""
        return all(says(p, sentence, lowered) for p in self.subject)


@dataclass(frozen=True)
class Offer:
    what: str
    pattern: re.Pattern[str]
    unless_conditioned_in_message: bool
    proposed_by: tuple[re.Pattern[str], ...] = ()  # a user proposing the workaround (every one must match)


@dataclass(frozen=True)
class Vocabulary:
    decline: re.Pattern[str]
    condition: re.Pattern[str]
    conditional: re.Pattern[str]
    negation: re.Pattern[str]  # full-word match of one negator
    policy: re.Pattern[str]
    transfer_request: re.Pattern[str]
    agreement: re.Pattern[str]
    hypothetical: re.Pattern[str]  # full-word match of one marker
    tier_claim: re.Pattern[str]
    false_cabin_rule: re.Pattern[str]
    keeps_reservation: re.Pattern[str]
    question: re.Pattern[str]  # full-word match of one question opener
    user_arguments: tuple[str, ...]
    record_arguments: tuple[str, ...]
    reasoning: re.Pattern[str]
    aside: re.Pattern[str]  # the user in the third person, or self-talk: reasoning unless the user is addressed
    second_person: re.Pattern[str]
    price_bound: re.Pattern[str]
    kinds: dict[str, EvidenceKind]
    offers: dict[str, tuple[Offer, ...]]  # catalog entry id -> its workaround offers
    kind_entry: dict[str, str]  # evidence kind -> the catalog entry that defines it
    requests: dict[str, re.Pattern[str]]  # write tool -> a user asking for it
    withdrawal: re.Pattern[str] = re.compile(r"(?!x)x")  # a user withdrawing their request (#40)
    quote: re.Pattern[str] = re.compile(r"(?!x)x")  # an agent quoting an amount
    explicit_yes: re.Pattern[str] = re.compile(r"(?!x)x")  # a user's explicit yes to listed details
    confirmation_request: re.Pattern[str] = re.compile(r"(?!x)x")  # an agent asking for that yes
    compensation: re.Pattern[str] = re.compile(r"(?!x)x")  # an amount of compensation
    compensation_offer: re.Pattern[str] = re.compile(r"(?!x)x")  # an agent offering compensation (#40 class 5)
    compensation_request: re.Pattern[str] = re.compile(r"(?!x)x")  # a user asking for it (not a refund)
    alternative: re.Pattern[str] = re.compile(r"(?!x)x")  # words setting an option aside ("instead of")
    pending: re.Pattern[str] = re.compile(r"(?!x)x")  # full-word match: a subordinator putting an act later
    refund_option: re.Pattern[str] = re.compile(r"(?!x)x")  # money back (a refund, cash)
    certificate_option: re.Pattern[str] = re.compile(r"(?!x)x")  # a certificate or voucher
    payment_means: re.Pattern[str] = re.compile(r"(?!x)x")  # a clause stating what may pay
    payment_use: re.Pattern[str] = re.compile(r"(?!x)x")  # a user's certificate as a means of payment

    def offers_for(self, loophole_id: str | None) -> tuple[Offer, ...]:
        """The offers of a variant's loophole ("L3/L4" gathers both entries)."""
        if loophole_id is None:
            return ()
        return tuple(o for part in loophole_id.split("/") for o in self.offers.get(part, ()))


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    catalog = load_vocabulary()
    words = catalog.vocabulary
    classes = {"decline": terms(words.decline), "condition": terms(words.condition)}
    kinds: dict[str, EvidenceKind] = {}
    kind_entry: dict[str, str] = {}
    for name, ev in catalog.evidence.items():
        kind_entry[name] = ev.entry
        kinds[name] = EvidenceKind(
            name=name,
            what=ev.what,
            subject=tuple(terms(g) for g in ev.subject),
            declined_by=tuple(classes[c] for c in ev.declined_by),
            indirect=tuple(terms(g) for g in ev.indirect),
            not_the_clause=terms(ev.not_the_clause),
            contested=None if ev.contested_tools is None else frozenset(ev.contested_tools),
            transfers_count=ev.transfers_count,
            requested_by=terms([f for t in ev.contested_tools or [] for f in catalog.requests.get(t, [])])
            if ev.grounded_by == "request" else None,
            other_grounds=bool(ev.not_the_clause),
        )
    return Vocabulary(
        decline=classes["decline"],
        condition=classes["condition"],
        conditional=terms(words.conditional),
        negation=re.compile(r"(?:" + "|".join(words.negation) + r")", re.IGNORECASE),
        policy=terms(words.policy),
        transfer_request=terms(words.transfer_request),
        agreement=terms(words.agreement),
        hypothetical=re.compile(r"(?:" + "|".join(words.hypothetical) + r")", re.IGNORECASE),
        tier_claim=_whole(words.tier_claim),
        false_cabin_rule=_whole(words.false_cabin_rule),
        keeps_reservation=terms(words.keeps_reservation),
        question=re.compile(r"(?:" + "|".join(words.question or ["(?!x)x"]) + r")", re.IGNORECASE),
        user_arguments=tuple(words.user_arguments),
        record_arguments=tuple(words.record_arguments),
        reasoning=_whole(words.reasoning),
        aside=_whole([*words.third_person, *words.self_talk]),
        second_person=_whole(words.second_person),
        price_bound=_whole(words.price_bound),
        kinds=kinds,
        offers={
            entry: tuple(Offer(o.what, re.compile(o.pattern, re.IGNORECASE), o.unless_conditioned_in_message,
                          tuple(terms(g) for g in o.proposed_by)) for o in offers)
            for entry, offers in catalog.offers.items()
            if offers
        },
        kind_entry=kind_entry,
        requests={tool: terms(fragments) for tool, fragments in catalog.requests.items()},
        withdrawal=terms(words.withdrawal),
        quote=_whole(words.quote) if words.quote else re.compile(r"(?!x)x"),
        explicit_yes=terms(words.explicit_yes),
        confirmation_request=terms(words.confirmation_request),
        compensation=terms(words.compensation),
        compensation_offer=_whole(words.compensation_offer),
        compensation_request=terms(words.compensation_request),
        alternative=terms(words.alternative),
        refund_option=terms(words.refund_option),
        certificate_option=terms(words.certificate_option),
        payment_means=_whole(words.payment_means),
        payment_use=_whole(words.payment_use),
        pending=re.compile(r"(?:" + "|".join(words.pending or ["(?!x)x"]) + r")", re.IGNORECASE),
    )
