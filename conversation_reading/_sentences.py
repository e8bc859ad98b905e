"""Every consequential agent sentence, accounted for (#46 item 2).

An agent sentence is consequential when it states a money figure, states what is allowed, possible, eligible or
required, or offers, promises or asks for a decision. Each one before the user's decision is classified (decline,
offer, promise, figure, rule claim, fact claim, question, confirmation request) and checked against the policy
model (``policy_model.AirlinePolicy``) over the database as the conversation had read it before its message
(``_conversation_state``) and the domain's flights: true, false, or not checkable. A sentence another part of the
record reads (a claim kind's checker, a decline, a question or a request for confirmation) is ``read_elsewhere``.

The rules are the policy model's; this module only finds which question of the model a sentence answers: what it
is about (cancelling, changing flights, the cabin, bags, compensation, insurance, a payment plan, a figure) and
whether it says yes or no. A figure is true when the model (or the database as read) gives it; a figure in a
typed context (a refund, an upgrade's cost, compensation, a bag fee) the model computes otherwise is false."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any

from conversation_reading._claims import _not_cancellable, _offered
from conversation_reading._conversation_state import _State
from conversation_reading._evidence import Turn, negated
from conversation_reading._record import Claim, ConsequentialSentence
from conversation_reading._units import split_sentences
from conversation_reading._vocabulary import vocabulary
from policy_model import (
    BAG_ALLOWANCE,
    COMPENSATION_PER_PASSENGER,
    EXTRA_BAG_FEE,
    INSURANCE_PER_PASSENGER,
    PAYMENT_LIMITS,
    AirlinePolicy,
)

_MONEY = re.compile(r"\$\s?(\d[\d,]*(?:\.\d{1,2})?)")
_RULE = re.compile(r"\b(?:allowed|permitted|possible|impossible|eligible|ineligible|entitled|qualif\w+|required|"
                   r"requires?|must|policy|policies|waive\w*|covered|exception|non-?refundable|not able|unable|"
                   r"cannot|can't|can not)\b", re.IGNORECASE)
_OFFER = re.compile(r"\b(?:I can|I could|we can|we could|I'd be happy to|would you like|do you want|would you prefer|"
                    r"option|I'll|I will|I'm going to|I am going to|I would)\b", re.IGNORECASE)
_PROMISE = re.compile(r"\b(?:I'll|I will|I'm going to|I am going to|we will|we'll)\b", re.IGNORECASE)
_CONFIRM = re.compile(r"\b(?:confirm|proceed|go ahead|shall I|should I)\b", re.IGNORECASE)
_HEDGED = re.compile(r"\b(?:may|might|could|possibly|perhaps)\b", re.IGNORECASE)

# what a sentence is about: the question of the policy model it answers
_INSURANCE_WAIVER = re.compile(
    r"\binsurance\b[^.!?\n]{0,120}?\b(?:waiv\w*|cover\w*|exempt\w*|no (?:additional |extra )?(?:charges?|fees?|cost))\b"
    r"|\b(?:waiv\w*|cover\w*|exempt\w*)\b[^.!?\n]{0,80}?\binsurance\b", re.IGNORECASE)
_CHANGE_COSTS = re.compile(r"\b(?:change fees?|fare differences?|price differences?|differences? in (?:the )?(?:fare|price)"
                           r"|fees? for chang\w*|chang\w* (?:fees?|flights?|the flights?)|upgrad\w*|modification\w*|"
                           r"additional charges?|charges?)\b", re.IGNORECASE)
_EXCEPTION = re.compile(r"\b(?:make|grant|approve|allow)\w* (?:an |any )?exceptions?\b|\bexceptions? (?:can|could|may|might)\b"
                        r"|\b(?:override|bypass) (?:the |this )?(?:policy|rule)", re.IGNORECASE)
_TIER_TEAM = re.compile(r"\b(?:membership|loyalty|rewards|status|elite)[- ](?:team|department|desk|services)\b", re.IGNORECASE)
_TIER = re.compile(r"\b(?:gold|silver|regular)\b", re.IGNORECASE)
_CANCEL = re.compile(r"\bcancel\w*", re.IGNORECASE)
_CABIN = re.compile(r"\b(?:upgrad\w*|downgrad\w*|cabin)\b", re.IGNORECASE)
_FLIGHTS = re.compile(r"\b(?:chang\w*|modif\w*|rebook\w*|switch\w*)\b[^.!?\n]{0,40}\b(?:flights?|dates?|itinerary|reservation)\b",
                      re.IGNORECASE)
_COMPENSATION = re.compile(r"\b(?:compensat\w*|certificates?|vouchers?)\b", re.IGNORECASE)
_BAGS = re.compile(r"\b(?:bags?|baggage|luggage)\b", re.IGNORECASE)
_REFUND = re.compile(r"\brefund\w*\b", re.IGNORECASE)
_PER_PASSENGER = re.compile(r"\bper (?:passenger|person|traveler|traveller|ticket|adult)\b|/person|/passenger|\beach\b",
                            re.IGNORECASE)
_CERTIFICATE_ID = re.compile(r"\bcertificate_\d+\b")
_GIFT_CARD_ID = re.compile(r"\bgift_card_\d+\b")
_PLAN = re.compile(r"\b(?:pay|paying|paid|payment breakdown|apply|applied|applying|charged?|remaining|split)\b", re.IGNORECASE)
_COMPENSATION_CONTEXT = re.compile(r"\b(?:compensat\w*|gesture|goodwill|inconvenience|for the (?:delay|cancellation))\b",
                                   re.IGNORECASE)
_ARITHMETIC = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?(?:\s*(?:/\s*\w+)?\s*[-+×x*\u2212]\s*\$?\s?\d[\d,]*(?:\.\d+)?)+\s*=\s*\**\$\s?\d[\d,]*(?:\.\d+)?")
_ALTERNATIVE = re.compile(r"\b(?:or|either|instead)\b", re.IGNORECASE)
_CABINS = {"business": re.compile(r"\bbusiness\b", re.I), "economy": re.compile(r"(?<!basic )\beconomy\b", re.I),
           "basic_economy": re.compile(r"\bbasic[\s-]*economy\b", re.I)}
_FLIGHT_NO = re.compile(r"\b[A-Z]{3}\d{3}\b")


def _amounts(sentence: str) -> list[float]:
    out = []
    for m in _MONEY.finditer(sentence):
        try:
            out.append(float(m.group(1).replace(",", "")))
        except ValueError:
            continue
    return out


def _near(x: float, values: Iterable[float]) -> bool:
    return any(abs(x - v) < 0.01 for v in values)


class _Checker:
    """The policy model over what the conversation had read before one message."""

    def __init__(self, state: _State, text: str, flights_db: Any) -> None:
        self.state, self.text = state, text
        self.policy = AirlinePolicy(flights_db or {}, state.now, self._status) if state.now is not None else None
        self._known: set[float] | None = None
        self._itineraries: set[float] | None = None
        self.stated: list[float] = []  # the figures of the message's true sentences so far

    def _status(self, number: str, date: str) -> str | None:
        from conversation_reading._claims import _status

        return _status(self.state, number, date)

    def reservation(self, sentence: str) -> dict[str, Any] | None:
        return _offered(sentence, self.text, self.state)

    # --- figures ------------------------------------------------------------------------------------------
    def known(self) -> set[float]:
        """Every figure the database as read gives, and the model's figures over it: fares (per passenger and
        for all passengers, any subset of the flights named), fare differences, refunds, balances, and the
        fixed fees (bags, insurance, compensation) per passenger."""
        if self._known is not None:
            return self._known
        s = self.state
        found: set[float] = set()
        passengers = {len(r.get("passengers") or []) for r in s.reservations.values()} | {1}
        most = max(passengers) if passengers else 1
        for n in range(1, max(most, 1) + 6):
            found |= {EXTRA_BAG_FEE * n, INSURANCE_PER_PASSENGER * n, *(v * n for v in COMPENSATION_PER_PASSENGER.values())}
        balances = []
        for method in ((s.user or {}).get("payment_methods") or {}).values():
            if isinstance(method, dict) and isinstance(method.get("amount"), int | float):
                balances.append(float(method["amount"]))
        found |= set(balances)
        for r in s.reservations.values():
            found |= {float(p.get("amount", 0)) for p in r.get("payment_history") or [] if isinstance(p, dict)}
            found |= {float(f.get("price", 0)) for f in r.get("flights") or [] if isinstance(f, dict)}
            if self.policy is not None:
                refund = self.policy.cancellation_refund(r)
                found |= {refund.total, refund.fare, refund.insurance}
                for cabin in ("basic_economy", "economy", "business"):
                    diff = self.policy.fare_difference(r, cabin, self.policy.legs(r))
                    if diff.verdict:
                        found |= {diff.total, abs(diff.total), diff.per_passenger, abs(diff.per_passenger)}
        named = list(dict.fromkeys(_FLIGHT_NO.findall(self.text)))[:6]
        legs = [s.flights[n] for n in named if n in s.flights and isinstance(s.flights[n].get("prices"), dict)]
        paid = {sum(float(p.get("amount", 0)) for p in r.get("payment_history") or [] if isinstance(p, dict))
                for r in s.reservations.values()}
        for leg in s.flights.values():
            found |= {float(v) for v in (leg.get("prices") or {}).values() if isinstance(v, int | float)}
        for cabin in ("basic_economy", "economy", "business"):
            prices = [float(leg["prices"][cabin]) for leg in legs if isinstance(leg["prices"].get(cabin), int | float)]
            sums = {0.0}
            for p in prices:
                sums |= {x + p for x in sums}
            for x in sums:
                for n in passengers:
                    total = x * n
                    found |= {total, total + INSURANCE_PER_PASSENGER * n, *(total - p for p in paid),
                              *(abs(total - p) for p in paid)}
        # what is left to pay after one certificate and up to three gift cards (the payment limits)
        top = sorted(found)[-200:]
        certificates = [float(m["amount"]) for m in ((s.user or {}).get("payment_methods") or {}).values()
                        if isinstance(m, dict) and m.get("source") == "certificate" and isinstance(m.get("amount"), int | float)]
        cards = [float(m["amount"]) for m in ((s.user or {}).get("payment_methods") or {}).values()
                 if isinstance(m, dict) and m.get("source") == "gift_card" and isinstance(m.get("amount"), int | float)]
        applied = {0.0, *certificates}
        for k in range(1, min(len(cards), PAYMENT_LIMITS["gift_card"]) + 1):
            applied |= {a + sum(c) for a in list(applied) for c in combinations(cards, k)}
        found |= {t - a for t in top for a in applied if t - a > 0}
        found |= {sum(c) for k in range(2, len(balances) + 1) for c in combinations(balances, k)} if len(balances) <= 8 else set()
        self._known = found
        return found

    def plan(self) -> tuple[str, str] | None:
        """A payment plan in the message using more certificates or gift cards than one reservation may."""
        if _ALTERNATIVE.search(" ".join(line for line in self.text.splitlines() if "certificate_" in line)):
            return None
        if not _PLAN.search(self.text):
            return None  # balances listed, no payment planned
        for pattern, source in ((_CERTIFICATE_ID, "certificate"), (_GIFT_CARD_ID, "gift_card")):
            ids = set(pattern.findall(self.text))
            if len(ids) > PAYMENT_LIMITS[source] and _MONEY.search(self.text):
                return (source, f"the plan uses {len(ids)} {source.replace('_', ' ')}s ({', '.join(sorted(ids))}); "
                        f"the policy allows at most {PAYMENT_LIMITS[source]} per reservation")
        return None

    def typed_figure(self, sentence: str, amount: float) -> tuple[str, str] | None:
        """A figure the model computes otherwise in the sentence's context (a refund, an upgrade's cost for all
        passengers, compensation); None where it agrees or the context names no such figure."""
        res = self.reservation(sentence)
        if self.policy is None or res is None:
            return None
        n = len(res.get("passengers") or [])
        if _REFUND.search(sentence) and _CANCEL.search(self.text) and not _COMPENSATION.search(sentence):
            refund = self.policy.cancellation_refund(res)
            allowed = {refund.total, *(-t.amount for t in refund.transfers)}
            if refund.verdict and refund.total > 0 and not _near(amount, allowed) and not _near(amount, self.known()):
                return ("cancel.refund", f"cancelling {res.get('reservation_id')} refunds {refund.total:g} (its whole payment "
                        "history, insurance included)")
        if _COMPENSATION_CONTEXT.search(sentence) and not _REFUND.search(sentence) and n:
            per = set(COMPENSATION_PER_PASSENGER.values())
            if not _near(amount, {p * k for p in per for k in range(1, n + 1)}) and not _near(amount, self.balances()):
                return ("compensation.cancelled", f"the policy's certificate is ${min(per)} or ${max(per)} per passenger "
                        f"({n} passengers on {res.get('reservation_id')})")
        cabin = next((c for c, p in _CABINS.items() if p.search(sentence)), None)
        if _CABIN.search(sentence) and cabin is not None and cabin != res.get("cabin") and not _PER_PASSENGER.search(sentence):
            diff = self.policy.fare_difference(res, cabin, self.policy.legs(res))
            if diff.verdict and n > 1 and _near(amount, {diff.per_passenger}) and not _near(amount, {diff.total}):
                return ("cabin.difference", f"the {cabin} upgrade of {res.get('reservation_id')} costs {diff.total:g} for its "
                        f"{n} passengers ({diff.per_passenger:g} each)")
        return None

    def itineraries(self) -> set[float]:
        """The fares of new itineraries and their differences against each reservation read (the model's
        ``fare_difference`` and ``booking_price`` over flights the conversation named, any subset of them with
        any subset of the reservation's own flights, for each cabin, per passenger and for all of them, with
        the insurance). Computed only for a figure the other figures do not give."""
        if self._itineraries is not None:
            return self._itineraries
        said = self.state.said + "\n" + self.text
        named = [n for n in dict.fromkeys(reversed(_FLIGHT_NO.findall(said))) if n in self.state.flights][:10]
        found: set[float] = set()
        reservations = list(self.state.reservations.values()) or [{}]
        for cabin in ("basic_economy", "economy", "business"):
            prices = [float(p) for n in named if isinstance(p := (self.state.flights[n].get("prices") or {}).get(cabin), int | float)]
            sums = {0.0}
            for price in prices:
                sums |= {x + price for x in sums}
            for res in reservations:
                n = len(res.get("passengers") or []) or 1
                old = [float(f.get("price", 0)) for f in res.get("flights") or [] if isinstance(f, dict)]
                kept = {0.0}
                for price in old if res.get("cabin") == cabin else []:
                    kept |= {x + price for x in kept}
                for x in sums:
                    for k in kept:
                        diff = x + k - sum(old)
                        found |= {x, x * n, x * n + INSURANCE_PER_PASSENGER * n, diff, abs(diff), diff * n, abs(diff) * n}
        self._itineraries = found
        return found

    def derive(self, amounts: Iterable[float]) -> None:
        """Figures a true sentence gave: later sentences of the message may multiply them by the passengers,
        subtract what was paid, or add them up."""
        known = self.known()
        passengers = {len(r.get("passengers") or []) for r in self.state.reservations.values()} | {1}
        for a in amounts:
            known |= {a * n for n in passengers}
            known |= {a - float(p.get("amount", 0)) for r in self.state.reservations.values()
                      for p in r.get("payment_history") or [] if isinstance(p, dict)}
            self.stated.append(a)
        recent = self.stated[-6:]
        known |= {sum(c) for k in (2, 3) for c in combinations(recent, k)}

    def balances(self) -> set[float]:
        methods = (self.state.user or {}).get("payment_methods") or {}
        return {float(m["amount"]) for m in methods.values() if isinstance(m, dict) and isinstance(m.get("amount"), int | float)}

    # --- rules ----------------------------------------------------------------------------------------------
    def rule(self, topic: str, sentence: str, negative: bool) -> tuple[str, str, bool] | None:
        """(clause, what the model says, whether the sentence is true) for a sentence saying that the reservation
        may (``negative``: may not) be cancelled, change flights or change cabin; None: the model cannot decide
        from what was read, or a claim kind reads it (a denial of what the rules allow: ``cabin_rule``, the
        declines)."""
        res = self.reservation(sentence)
        if self.policy is None or res is None:
            return None
        if topic == "cancel":
            forbidden = _not_cancellable(res, self.state)
            if forbidden is not None:
                return self.policy.may_cancel(res).clause.id, forbidden, negative
            verdict = self.policy.may_cancel(res)
        elif topic == "cabin":
            verdict = self.policy.may_change_cabin(res)
        elif topic == "flights":
            verdict = self.policy.may_change_flights(res)
        else:
            return None
        if verdict.outcome == "forbidden":
            return verdict.clause.id, verdict.why, negative
        if verdict.outcome == "allowed" and not negative:
            return verdict.clause.id, verdict.why, True
        return None


def _sums_up(sentence: str, checker: _Checker) -> bool:
    """The sentence's arithmetic ("$248 + $453 + $364 = $1,065") is right and its operands are known."""
    found = False
    for m in _ARITHMETIC.finditer(sentence):
        expr, result = m.group(0).rsplit("=", 1)
        numbers = [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", expr)]
        ops = re.findall(r"[-+×x*\u2212](?=\s*\$?\s?\d)", re.sub(r"/\s*\w+", "", expr))
        if len(ops) != len(numbers) - 1:
            return False
        total = numbers[0]
        for op, x in zip(ops, numbers[1:], strict=True):
            total = total + x if op == "+" else total - x if op in "-\u2212" else total * x
        if not _near(total, {float(result.strip(" *$").replace(",", ""))}):
            return False
        if not all(_near(x, checker.known()) or x < 10 for x in numbers):
            return False
        found = True
    return found


def _kind(sentence: str, decline: re.Pattern[str]) -> str | None:
    if decline.search(sentence):
        return "decline"
    if _MONEY.search(sentence):
        return "figure"
    if sentence.rstrip().endswith("?"):
        return "confirmation_request" if _CONFIRM.search(sentence) else ("offer" if _OFFER.search(sentence) else "question")
    if _PROMISE.search(sentence) and (_COMPENSATION.search(sentence) or _CANCEL.search(sentence) or _REFUND.search(sentence)):
        return "promise"
    if _OFFER.search(sentence) and (_CANCEL.search(sentence) or _CABIN.search(sentence) or _FLIGHTS.search(sentence)
                                    or _COMPENSATION.search(sentence)):
        return "offer"
    if _RULE.search(sentence):
        return "rule_claim"
    if _CONFIRM.search(sentence):
        return "confirmation_request"
    return None


def _invented(sentence: str) -> tuple[str, str] | None:
    """Policy no clause states: an exception a human may make, a team that changes a tier, a compensation amount
    set by the tier."""
    if _EXCEPTION.search(sentence) and not negated(sentence, _EXCEPTION.search(sentence).start()):  # type: ignore[union-attr]
        return "transfer", "the policy makes no exceptions: a transfer is for what the agent cannot handle"
    if _TIER_TEAM.search(sentence) and _TIER.search(sentence) or _TIER_TEAM.search(sentence) and re.search(
            r"\b(?:tier|status|membership)\b", sentence, re.I):
        return "compensation.eligible", "the membership tier is a fact of the profile; no team changes it"
    if _COMPENSATION.search(sentence) and _MONEY.search(sentence) and re.search(
            r"\bfor (?:gold|silver|regular)(?: members?)?\b|\b(?:gold|silver) members? (?:get|receive|are entitled)", sentence, re.I):
        return "compensation.eligible", ("the certificate's amount does not depend on the tier: $100 per passenger for a "
                                         "cancelled flight, $50 for a delayed one")
    return None


def _insurance_waiver(sentence: str) -> tuple[str, str] | None:
    m = _INSURANCE_WAIVER.search(sentence)
    if m is None or not _CHANGE_COSTS.search(sentence) or negated(sentence, m.start()):
        return None
    if re.search(r"\b(?:does not|doesn't|do not|don't|won't|will not|isn't|is not|not)\b[^.!?\n]{0,30}\b(?:waiv|cover)",
                 sentence, re.I):
        return None
    return ("insurance.covers", "travel insurance gives a full refund on a cancellation for health or weather; it "
            "waives no change fee, fare difference or upgrade cost")


def consequential_sentences(turns: list[Turn], states: list[_State], domain: str, claims: list[Claim],
                            until: int | None, decisions: set[int], is_write: Callable[[str], bool],
                            flights_db: Any) -> list[ConsequentialSentence]:
    """Every consequential agent sentence before message ``until`` (the user's final decision; None: all), with
    its verdict. A claim kind's sentence takes its checker's verdict (``claims``). The user relied on a sentence
    when their decision followed it: the next user message is the final decision or the yes to a write
    (``decisions``), or the agent wrote before the user spoke again."""
    if domain != "airline":
        return []
    decline = vocabulary().decline
    false_claims = {(c.message_index, c.excerpt[:60]) for c in claims if c.false}
    out: list[ConsequentialSentence] = []
    for t in turns:
        if t.role != "assistant" or not t.text or (until is not None and t.index >= until):
            continue
        checker: _Checker | None = None
        relied: bool | None = None
        for sentence in split_sentences(t.text):
            kind = _kind(sentence, decline)
            if kind is None:
                continue
            checker = checker or _Checker(states[t.index], t.text, flights_db)
            verdict, clause, why = _judge(kind, sentence, checker)
            excerpt, _start, _end = t.excerpt(sentence)
            relied_here = _taken(turns, t.index, sentence) if kind == "offer" else None
            if verdict != "false" and any(i == t.index and e[:40] in excerpt for i, e in false_claims):
                verdict, clause, why = "false", "claim", "a claim kind's checker finds it false"
            if relied is None:
                relied = _relied(turns, t.index, decisions, is_write)
                asked = relied or _asked_to_confirm(turns, t.index)
            out.append(ConsequentialSentence(kind=kind, verdict=verdict, clause=clause, why=why,  # type: ignore[arg-type]
                                             message_index=t.index, excerpt=excerpt,
                                             relied_on=relied_here if relied_here is not None else
                                             relied or (asked and kind == "rule_claim")))
    return out


_OFFERED_TOOLS = (("cancel", "cancel_reservation"), ("chang|modif|rebook|switch|mov|upgrad", "update_reservation_flights"),
                  ("transfer|escalat", "transfer_to_human_agents"), ("issu|send|refund|process", "send_certificate"),
                  ("add", "update_reservation_baggages"), ("book", "book_reservation"))


def _taken(turns: list[Turn], index: int, sentence: str) -> bool | None:
    """An offer is relied on when it is taken: a call of the tool it offers follows (None: it offers no act)."""
    act = _ACT.search(sentence)
    if act is None:
        return None
    verb = act.group(1).lower()
    tool = next((tool for stems, tool in _OFFERED_TOOLS if re.match(stems, verb)), None)
    return tool is not None and any(c.name == tool for t in turns[index:] for c in t.calls)


_CONFIRM_ASKED = re.compile(r"\b(?:confirm|is (?:that|this|it) (?:right|correct|true)|be honou?red|am I right)\b[^?]*\?",
                            re.IGNORECASE)


def _asked_to_confirm(turns: list[Turn], index: int) -> bool:
    """The user's message before ``index`` asks the agent to confirm what they believe: the answer is what they
    go on with."""
    before = next((t for t in reversed(turns[:index]) if t.role == "user" and t.text.strip()), None)
    return before is not None and bool(_CONFIRM_ASKED.search(before.text))


def _relied(turns: list[Turn], index: int, decisions: set[int], is_write: Callable[[str], bool]) -> bool:
    for t in turns[index:]:
        if t.role == "user" and t.text.strip():
            return t.index in decisions
        if t.role == "assistant" and any(is_write(c.name) for c in t.calls):
            return True
    return False


def _judge(kind: str, sentence: str, checker: _Checker) -> tuple[str, str, str]:
    invented = _invented(sentence) or _insurance_waiver(sentence)
    if invented is not None and not (_HEDGED.search(sentence) and kind == "decline"):
        return "false", invented[0], invented[1]
    plan = checker.plan() if (_CERTIFICATE_ID.search(sentence) or _GIFT_CARD_ID.search(sentence)) else None
    if plan is not None and (_CERTIFICATE_ID if plan[0] == "certificate" else _GIFT_CARD_ID).search(sentence):
        return "false", "payment.limits", plan[1]
    conditional = _conditional_promise(sentence, checker) if kind != "question" else None
    if conditional is not None:
        return conditional
    if kind == "figure":
        for amount in _amounts(sentence):
            typed = checker.typed_figure(sentence, amount)
            if typed is not None:
                return "false", typed[0], typed[1]
        amounts = _amounts(sentence)
        if _sums_up(sentence, checker) or all(_near(a, checker.known()) or _near(a, checker.itineraries())
                                              for a in amounts):
            checker.derive(amounts)
            return "true", "figures", "each figure is one the database as read or the policy model gives"
        return "not_checkable", "", "a figure neither the database as read nor the policy model gives"
    if kind in ("rule_claim", "decline", "offer", "promise"):
        act = _ACT.search(sentence) if kind in ("offer", "promise") else None
        if kind in ("offer", "promise") and act is None:
            return "read_elsewhere", "", f"the record's {kind}s read it"
        if act is not None:
            topic = _topic(act.group(1))
            negative = negated(sentence, act.start(1)) or bool(vocabulary().decline.search(sentence))
        else:
            topic = _topic(sentence)
            if _words(sentence, vocabulary().hypothetical):
                return "read_elsewhere", "", "a conditional statement of the rule, about no record"
            negative = kind == "decline" or bool(vocabulary().decline.search(sentence)) or bool(
                re.search(r"\b(?:not|no|never|isn't|aren't|cannot|can't)\b", sentence, re.I))
        ruled = checker.rule(topic, sentence, negative) if topic else None
        if ruled is not None:
            clause, why, true = ruled
            return ("true" if true else "false"), clause, why
        if kind == "rule_claim":
            return _rule_table(sentence)
        return "read_elsewhere", "", f"the record's {kind}s read it"
    return "read_elsewhere", "", f"the record's {kind}s read it"


_ACT = re.compile(r"\b(?:I|we)(?:'ll| will| can| could| would be happy to| am able to| are able to| may)\s+(?:\w+\s+){0,2}?"
                  r"(cancel\w*|chang\w*|modif\w*|upgrad\w*|rebook\w*|switch\w*|mov\w*|transfer\w*|issu\w*|send\w*|"
                  r"refund\w*|add\w*|book\w*|escalat\w*|process\w*)", re.IGNORECASE)


def _topic(text: str) -> str | None:
    if _CANCEL.search(text):
        return "cancel"
    if _CABIN.search(text) and not _BAGS.search(text):
        return "cabin"
    if re.search(r"\b(?:chang\w*|modif\w*|rebook\w*|switch\w*)", text, re.I) and (
            text.split()[0:1] != [text] or _FLIGHTS.search(text)):
        return "flights" if _FLIGHTS.search(text) or len(text.split()) == 1 else None
    return None


def _words(text: str, markers: re.Pattern[str]) -> bool:
    return any(markers.fullmatch(w.strip(".,!?\"'*()").lower()) for w in text.split())


_IF_ACT = re.compile(r"\b(?:if|once|when|should)\b[^.!?\n]{0,60}?\b(modif\w*|chang\w*|cancel\w*)\b"
                     r"(?:[^.!?\n]{0,20}?\bor\b[^.!?\n]{0,10}?\b(modif\w*|chang\w*|cancel\w*))?", re.IGNORECASE)


def _conditional_promise(sentence: str, checker: _Checker) -> tuple[str, str, str] | None:
    """A promise of compensation or a refund on a condition the user may meet ("if you later decide to modify or
    cancel, I'll issue the certificate"): false where the rules forbid every act the condition names."""
    m = _IF_ACT.search(sentence)
    if m is None or not (_COMPENSATION.search(sentence) or _REFUND.search(sentence)):
        return None
    res = checker.reservation(sentence)
    if checker.policy is None or res is None:
        return None
    acts = [a for a in m.groups() if a]
    found = []
    for act in acts:
        topic = "cancel" if _CANCEL.search(act) else "flights"
        ruled = checker.rule(topic, sentence, negative=False)
        if ruled is None or ruled[2]:
            return None  # an act the rules allow (or that cannot be decided): the promise can be kept
        found.append(ruled)
    cabin = checker.policy.may_change_cabin(res)
    if any("flights" == ("cancel" if _CANCEL.search(a) else "flights") for a in acts) and cabin.outcome != "forbidden":
        return None  # a modification of the cabin stays possible
    return "false", found[0][0], "; ".join(f[1] for f in found) + ": the condition cannot be met"


def _rule_table(sentence: str) -> tuple[str, str, str]:
    """A rule claim about a clause the model states as a table (bags) is read by its claim kind; one about no
    clause the model checks is not checkable."""
    if _BAGS.search(sentence) and any(tier in sentence.lower() for tier in BAG_ALLOWANCE):
        return "read_elsewhere", "bags.allowance", "the bag allowance claim kind reads it"
    if _CANCEL.search(sentence) or _CABIN.search(sentence) or _FLIGHTS.search(sentence) or _COMPENSATION.search(sentence):
        return "not_checkable", "", "a rule claim on a record the conversation never read"
    return "read_elsewhere", "", "a statement of the policy's general rules, no figure or record"


__all__ = ["consequential_sentences"]
