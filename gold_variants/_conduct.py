"""The policy's conduct, checked for every non-gold credit and by strict (#40 item 2, class 5; item 4).

A variant's database outcome says what was done; a reading of the policy, or a task report's alternative, is
defensible only where the rest of the policy was kept on the way there. These checks read the whole
conversation, after the decision and after the write too, and any one that fails voids the credit
(``not_credited``), whichever kind the variant is (``UNIVERSAL_CHECKS``):

- ``claims_true`` (``_preconditions._check_claims``): no false claim the user acted on, anywhere;
- ``writes_confirmed``: every write follows the user's explicit yes (``_no_write.writes_without_yes``, the
  one reading of the conduct rule, shared with strict);
- ``compensation_asked``: no compensation offered (the catalog's ``compensation_offer``) or sent before the
  user asked for it, and no certificate sent after the agent itself declined it on the change-or-cancel
  condition (the policy: do not proactively offer compensation);
- ``no_forbidden_cancellation``: no reservation cancelled that the cancellation rules forbid
  (``policy_model.AirlinePolicy.may_cancel``, as the conversation had read it: booked over 24 hours ago, not business, no insurance, no flight cancelled
  by the airline, or a flight already flown), unless the reading itself cancels it; an offer of such a
  cancellation that the user took is a false claim (``cancellation_offer``) acted on, unless the agent took it
  back before any cancellation (``Claim.withdrawn_at``: the final handling is then a decline);
- ``no_unwarranted_transfer``: where a loophole's clause says to decline the request (a refusal reading; for
  strict, the clause that governs the task), no transfer to a human agent, where the task's gold makes none,
  that the user did not ask for and that hands off the request without declining it (no decline before it or in
  its summary): the policy transfers only what cannot be handled, and a request to decline can be.

``conduct_violations`` gives strict the same checks on the task's gold (strict already fails a write without
a yes).
"""

from __future__ import annotations

from collections.abc import Sequence

from tau2.data_model.tasks import Action

from conversation_reading import (
    TRANSFER_TOOL,
    Check,
    ConversationRecord,
    PreconditionResult,
    Violation,
    excerpt_of,
)
from gold_variants._model import GoldVariant, ReadingKind
from policy_model import CANCEL_TOOL

# Which universal checks each kind of variant applies; a string says why a kind does not use one. A refusal
# keeps the gold's independent writes (a bag) and may cancel or transfer on the way; a reading that acts, and a
# task report's alternative (which changes what counts as the outcome, never the conduct the policy asks for),
# reach their outcome through the same conversation.
_NO_TRANSFER_CHECK = ("its reading handles the request within the agent's actions and its writes were made; a "
                      "transfer besides hands off something else, which the text cannot tell from a request the "
                      "policy sends to a human (one it cannot handle)")
UNIVERSAL_CHECKS: dict[ReadingKind, dict[Check, str | None]] = {
    "refusal": {"writes_confirmed": None, "compensation_asked": None, "no_forbidden_cancellation": None,
                "no_unwarranted_transfer": None},
    "action_reading": {"writes_confirmed": None, "compensation_asked": None, "no_forbidden_cancellation": None,
                       "no_unwarranted_transfer": _NO_TRANSFER_CHECK},
    "task_report": {"writes_confirmed": None, "compensation_asked": None, "no_forbidden_cancellation": None,
                    "no_unwarranted_transfer": _NO_TRANSFER_CHECK},
}
# The clause-free refusal (any decline, or any transfer): a request outside the agent's actions is transferred,
# so no transfer there is unwarranted by what the text shows.
GENERIC_REFUSAL = "refusal"
def forbidden_cancellation(record: ConversationRecord, allowed: set[str]) -> Violation | None:
    """A reservation cancelled that the cancellation rules forbid, as the conversation had read it (a
    reservation in ``allowed``, which the reading or the gold cancels itself, excepted)."""
    for c in record.cancellations:
        if c.reservation_id not in allowed and c.forbidden is not None:
            return Violation("no_forbidden_cancellation", c.message_index, f"cancel_reservation({c.reservation_id}): "
                             f"{c.forbidden}")
    return None


def unwarranted_transfer(record: ConversationRecord, gold_transfers: bool, clause: str | None) -> Violation | None:
    """Where a loophole's clause (``clause``, an evidence kind) says the request is to be declined: a transfer
    the task's gold does not make, which the user did not ask for, of a request the agent never declined (before
    it, or in its summary)."""
    if gold_transfers or clause is None or clause == GENERIC_REFUSAL:
        return None
    for t in record.transfers:
        if t.how != "tool_call" or t.asked_by_user:
            continue
        if not t.declined_before:
            return Violation("no_unwarranted_transfer", t.message_index, "a transfer the user did not ask for, of a "
                             f"request the agent never declined ({excerpt_of(t.summary, 100)!r})")
    return None


def _unconfirmed(record: ConversationRecord) -> Violation | None:
    found = record.writes_without_yes
    return Violation("writes_confirmed", found[0].message_index, found[0].no_yes) if found else None


def _unlisted(record: ConversationRecord) -> Violation | None:
    found = record.writes_without_details
    return Violation("writes_confirmed", found[0].message_index, found[0].no_details) if found else None


def _cancelled_by(actions: Sequence[Action]) -> set[str]:
    return {str(a.arguments.get("reservation_id")) for a in actions if a.name == CANCEL_TOOL}


def _gold_actions(variant: GoldVariant) -> list[Action]:
    from envs import TauDataError, UnknownTaskError, load_task_set

    try:
        task = load_task_set(variant.domain, variant.task_version).task(variant.task_id)
    except (TauDataError, UnknownTaskError, KeyError):
        return []
    return list((task.evaluation_criteria.actions or []) if task.evaluation_criteria else [])


def universal_checks(variant: GoldVariant, record: ConversationRecord) -> list[PreconditionResult]:
    """The conduct checks ``variant``'s kind applies (``UNIVERSAL_CHECKS``), each a precondition result, on the
    conversation's record."""
    gold = _gold_actions(variant)
    allowed = _cancelled_by([*gold, *(variant.actions or [])])
    predicate = variant.predicate
    if predicate is not None and getattr(predicate, "original", None) == "cancelled":
        allowed.add(str(getattr(predicate, "reservation_id", "")))
    found = {
        "writes_confirmed": lambda: _unconfirmed(record) or _unlisted(record),
        "compensation_asked": lambda: _compensation(record),
        "no_forbidden_cancellation": lambda: forbidden_cancellation(record, allowed),
        "no_unwarranted_transfer": lambda: unwarranted_transfer(record, any(a.name == TRANSFER_TOOL for a in gold),
                                                                variant.evidence),
    }
    out = []
    for check, why_not in UNIVERSAL_CHECKS[variant.reading_kind].items():
        if why_not is not None:
            continue
        violation = found[check]()
        if violation is None:
            out.append(PreconditionResult(check, True, "kept"))
        else:
            out.append(PreconditionResult(check, False, f"message {violation.message_index}: {violation.detail}"))
    return out


def _compensation(record: ConversationRecord) -> Violation | None:
    found = record.unasked_compensation
    return None if found is None else Violation("compensation_asked", found.message_index, found.detail)


def conduct_violations(
    record: ConversationRecord, gold: Sequence[Action], clause: str | None
) -> list[Violation]:
    """What strict fails beside a write without a yes (#40 item 4): compensation offered unasked, a forbidden
    cancellation made or offered and taken, an unwarranted transfer where ``clause`` (the evidence kind that
    governs the task) says to decline, each as the variants read it, from the conversation's record."""
    found = [
        _compensation(record),
        forbidden_cancellation(record, _cancelled_by(gold)),
        unwarranted_transfer(record, any(a.name == TRANSFER_TOOL for a in gold), clause),
    ]
    taken = [c for c in record.false_claims if c.kind == "cancellation_offer" and c.relied_on]
    if taken:
        found.append(Violation("no_forbidden_cancellation", taken[0].message_index,
                               f"an offer the user took of {taken[0].what}: {taken[0].truth}"))
    return [v for v in found if v is not None]


__all__ = ["UNIVERSAL_CHECKS", "Violation", "conduct_violations", "universal_checks"]
