"""The facts under each consequential sentence (#46 item 2, ``_sentences``): the figures the database as the
conversation had read it and the policy model give (fares, fare differences for every itinerary named, refunds,
balances, the fixed fees), the payment limits of a plan, the figures the model computes otherwise in a typed
context (a refund, compensation, an upgrade for all passengers), and the model's verdict on cancelling or
changing a reservation the sentence names. The vocabulary of what a sentence is about lives here too."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property, partial
from itertools import combinations
from typing import Any

from conversation_reading._bag_fees import bag_fee
from conversation_reading._claims import _not_cancellable, _offered, _status
from conversation_reading._conversation_state import _State
from conversation_reading._flights_named import flights_lead, said_numbers
from conversation_reading._itinerary_figures import Itineraries
from conversation_reading._known_figures import NUMBERS, KnownFigures, _amounts_held, _cents, cent
from conversation_reading._lowered_search import ascii_lowered, scans
from policy_model import (
    COMPENSATION_PER_PASSENGER,
    PAYMENT_LIMITS,
    AirlinePolicy,
)

_MONEY = re.compile(r"\$\s?(\d[\d,]*(?:\.\d{1,2})?)")
# "let you" and "allow you to" spelt whole (not "lets? you"): the gate (``_gate``) then needs those words, not " you"
_RULE = re.compile(r"\b(?:allowed|permitted|possible|impossible|eligible|ineligible|entitled|qualif\w+|required|"
                   r"requires?|must|policy|policies|waive\w*|covered|exception|non-?refundable|not able|unable|"
                   r"cannot|can't|can not|you can|you could|you may|you're able to|you are able to|allow you to|"
                   r"allows you to|let you|lets you)\b", re.IGNORECASE)
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
_PLANNED = (("certificate_", "certificate"), ("gift_card_", "gift_card"))  # what each id a plan may use holds
_PLAN = re.compile(r"\b(?:pay|paying|paid|payment breakdown|apply|applied|applying|charged?|remaining|split)\b", re.IGNORECASE)
_COMPENSATION_CONTEXT = re.compile(r"\b(?:compensat\w*|gesture|goodwill|inconvenience|for the (?:delay|cancellation))\b",
                                   re.IGNORECASE)
_ARITHMETIC = re.compile(r"\$\s?\d[\d,]*(?:\.\d+)?(?:\s*(?:/\s*\w+)?\s*[-+×x*\u2212]\s*\$?\s?\d[\d,]*(?:\.\d+)?)+\s*=\s*\**\$\s?\d[\d,]*(?:\.\d+)?")
_ALTERNATIVE = re.compile(r"\b(?:or|either|instead)\b", re.IGNORECASE)
# what a sentence says of the payment methods it names: paid with them, or held ("you have two certificates")
_USES = re.compile(r"\b(?:use|using|apply|applied|applying|charg\w*|pay(?:ing)? with|cover\w*|redeem\w*|"
                   r"payment (?:plan|breakdown)|split)\b", re.IGNORECASE)
_HELD = re.compile(r"\b(?:have|has|available|on file|in your (?:profile|account)|balances?)\b", re.IGNORECASE)


_CLAUSE_END = re.compile(r"(?<=[.!?:])\s+")


def _planned(text: str, kinds: tuple[re.Pattern[str], ...]) -> list[set[str]]:
    """The ids of each of ``kinds`` in ``text`` a payment plan uses: named in a sentence that pays with them, or
    listed under one (a table's or a list's rows take the cue of the last sentence before them that has one); a
    sentence or list of what the user holds ("You have two certificates available:") plans nothing. No cue at
    all: a plan. (Every kind in one reading of the text.)"""
    used: list[set[str]] = [set() for _ in kinds]
    cue = True
    for line in text.splitlines():
        for sentence in _CLAUSE_END.split(line):
            low = ascii_lowered(sentence)  # each scan over it (``_lowered_search``)
            if scans(_USES, sentence, low):
                cue = True
            elif scans(_HELD, sentence, low):
                cue = False
            if cue:
                for found, ids in zip(used, kinds, strict=True):
                    found |= set(ids.findall(sentence))
    return used
_CABINS = {"business": re.compile(r"\bbusiness\b", re.I), "economy": re.compile(r"(?<!basic )\beconomy\b", re.I),
           "basic_economy": re.compile(r"\bbasic[\s-]*economy\b", re.I)}
_UPGRADE = re.compile(r"\b(?:upgrad\w*|downgrad\w*|cabin (?:change|upgrade))\b", re.IGNORECASE)


def _amounts(sentence: str) -> list[float]:
    out = []
    for m in _MONEY.finditer(sentence):
        try:
            out.append(float(m.group(1).replace(",", "")))
        except ValueError:
            continue
    return out


def _near(x: float, values: Iterable[float]) -> bool:
    """``x`` is one of ``values`` to the cent (a set of figures is held rounded to cents: a lookup)."""
    if isinstance(values, set | frozenset):
        return cent(x) in values
    return any(abs(x - v) < 0.01 for v in values)


class _Checker:
    """The policy model over what the conversation had read before one message."""

    def __init__(self, state: Callable[[], _State], text: str, flights_db: Any, written: bool = False,
                 shared: dict[Any, Any] | None = None) -> None:
        self._state_of, self.text, self.written, self._db = state, text, written, flights_db
        self.shared = shared if shared is not None else {}  # ``known`` by state, across one conversation's messages
        self._known: KnownFigures | None = None
        self._itineraries: Itineraries | None = None
        self._plan: tuple[str, str] | None = None
        self._plan_read = False
        self._about: dict[str, dict[str, Any] | None] = {}
        self._verdicts: dict[tuple[str, int], tuple[dict[str, Any], tuple[str, str, str] | None]] = {}
        self.stated: list[float] = []  # the figures of the message's true sentences so far
        self.bag_write: tuple[str, dict[str, Any]] | None = None  # the bag write the message's confirmation leads to

    @cached_property
    def state(self) -> _State:
        """The database as read before the message: built only for a sentence whose check reads it."""
        return self._state_of()

    @cached_property
    def policy(self) -> AirlinePolicy | None:
        state = self.state
        # a function over the state, not a bound method: the policy held by the checker holds no checker (a cycle
        # the collector would have to find, once a record)
        return AirlinePolicy(self._db or {}, state.now, partial(_status, state)) if state.now is not None else None

    @cached_property
    def database(self) -> AirlinePolicy:
        """The model over the domain's database alone, no state read (what is true whatever was read: a
        reservation's record)."""
        return AirlinePolicy(self._db or {})

    def reservation(self, sentence: str) -> dict[str, Any] | None:
        """The reservation the sentence is about (``_offered``: by the sentence and its message, over the state;
        asked once a sentence, whichever checks ask it)."""
        if sentence not in self._about:
            self._about[sentence] = _offered(sentence, self.text, self.state)
        return self._about[sentence]

    def named_reservation(self, sentence: str) -> dict[str, Any] | None:
        """The reservation a statement of a rule is about: the one the sentence names, else the one its message
        names, else the only one read (None: several, none named)."""
        for scope in (sentence, self.text):
            named = [r for rid, r in self.state.reservations.items() if rid in scope]
            if len(named) == 1:
                return named[0]
            if named:
                return None
        return next(iter(self.state.reservations.values())) if len(self.state.reservations) == 1 else None

    # --- figures ------------------------------------------------------------------------------------------
    def known(self, amount: float) -> bool:
        """``amount`` is, to the cent, a figure the database as read gives or the model's over it (``KnownFigures``:
        fares, fare differences, refunds, balances, the fixed fees per passenger), or one a true sentence gave."""
        return amount in self.known_figures()

    def given(self, amount: float) -> bool:
        """``known(amount) or itinerary_figure(amount)``, the cheaper reckonings first: the plain figures, then the
        itineraries' (most figures the plain ones miss are fares of flights named), then the model's (each test
        pure: the same answer in any order)."""
        figures = self.known_figures()
        return figures.plain(amount) or self.itinerary_figure(amount) or figures.modelled(amount)

    def known_figures(self) -> KnownFigures:
        if self._known is None:
            s = self.state
            # the same records as read give the same figures: one reckoning per state of the database as read
            key = (id(s.user), id(s.reservations), id(s.flights))  # shared until a tool result changes them
            self._known = self.shared.get(key)
            if self._known is None:
                self._known = self.shared[key] = KnownFigures(s, self.policy, self.shared.setdefault("model figures", {}))
        return self._known

    def plan(self) -> tuple[str, str] | None:
        """A payment plan in the message using more certificates or gift cards than one reservation may (read once
        a message: it reads the message's text alone)."""
        if not self._plan_read:
            self._plan, self._plan_read = self._read_plan(), True
        return self._plan

    def _read_plan(self) -> tuple[str, str] | None:
        # the ids a plan uses are among those its text names (each sentence's a part of it), each holding its prefix:
        # a text holding no more of each than one reservation may use plans within the limit, read no further (the
        # ids' patterns open with ``\b``, no literal: a scan tries every position, #47)
        if all(self.text.count(prefix) <= PAYMENT_LIMITS[source] for prefix, source in _PLANNED):
            return None
        return self._plan_over_limit()

    def _plan_over_limit(self) -> tuple[str, str] | None:
        if _ALTERNATIVE.search(" ".join(line for line in self.text.splitlines() if "certificate_" in line)):
            return None
        if not scans(_PLAN, self.text, ascii_lowered(self.text)):
            return None  # balances listed, no payment planned
        planned = _planned(self.text, (_CERTIFICATE_ID, _GIFT_CARD_ID))
        for ids, source in zip(planned, ("certificate", "gift_card"), strict=True):
            if len(ids) > PAYMENT_LIMITS[source] and _MONEY.search(self.text):
                return (source, f"the plan uses {len(ids)} {source.replace('_', ' ')}s ({', '.join(sorted(ids))}); "
                        f"the policy allows at most {PAYMENT_LIMITS[source]} per reservation")
        return None

    def typed_figure(self, sentence: str, amount: float) -> tuple[str, str] | None:
        """A figure the model computes otherwise in the sentence's context (a refund, an upgrade's cost for all
        passengers, compensation, bags); None where it agrees or the context names no such figure."""
        low = ascii_lowered(sentence)  # each case-insensitive scan over it (``_lowered_search``)
        if scans(_BAGS, sentence, low) and not (self.written and self.bag_write is None):  # not a report of a write
            named = [r for rid, r in self.state.reservations.items() if rid in sentence or rid in self.text]
            fee = bag_fee(sentence, amount, self.text, self.state, self.bag_write,
                          named[0] if len(named) == 1 and not self.written else None)
            if fee is not None:
                return fee
        if self.written:
            return None  # a write since the records were read: the figures may be of the records as changed
        res = self.reservation(sentence)
        if self.policy is None or res is None:
            return None
        n = len(res.get("passengers") or [])
        refunds, cancels = scans(_REFUND, sentence, low), scans(_CANCEL, sentence, low)  # each asked once
        if refunds and cancels and not scans(_COMPENSATION, sentence, low):
            refund = self.policy.cancellation_refund(res)
            allowed = {refund.total, *(-t.amount for t in refund.transfers)}
            if refund.verdict and refund.total > 0 and not _near(amount, allowed) and not self.known(amount):
                return ("cancel.refund", f"cancelling {res.get('reservation_id')} refunds {refund.total:g} (its whole payment "
                        "history, insurance included)")
        if scans(_COMPENSATION_CONTEXT, sentence, low) and not refunds and n:
            per = set(COMPENSATION_PER_PASSENGER.values())
            if not _near(amount, {p * k for p in per for k in range(1, n + 1)}) and not _near(amount, self.balances()):
                return ("compensation.cancelled", f"the policy's certificate is ${min(per)} or ${max(per)} per passenger "
                        f"({n} passengers on {res.get('reservation_id')})")
        if refunds and not cancels and res.get("insurance") == "yes":
            counted = self.insurance_as_fare(res, amount)
            if counted is not None:
                return "cabin.difference", counted
        cabin = next((c for c, p in _CABINS.items() if scans(p, sentence, low)), None)
        if scans(_CABIN, sentence, low) and cabin is not None and cabin != res.get("cabin"):
            diff = self.policy.fare_difference(res, cabin, self.policy.legs(res))
            costs = (f"the {cabin} upgrade of {res.get('reservation_id')} costs {diff.total:g} for its {n} passenger(s) "
                     f"({diff.per_passenger:g} each)")
            if diff.verdict and n > 1 and _near(amount, {diff.per_passenger}) and not _near(amount, {diff.total}) \
                    and not scans(_PER_PASSENGER, sentence, low):
                return "cabin.difference", costs
            # an upgrade's cost no price of the flights gives (another flight's fare, say), of the one reservation
            # the message is about; not a figure the user said (a budget) or one the database gives
            if diff.verdict and scans(_UPGRADE, sentence, low) and self.named_reservation(sentence) is res \
                    and not self.given(amount) and not self.said(amount):
                return "cabin.difference", f"{costs}: no fare of its flights gives {amount:g}"
        return None

    def said(self, amount: float) -> bool:
        """The figure was said before the message: a budget the user named, or a figure the agent gave earlier
        (one the records as read may no longer give: a flight's fare on another date), judged there if at all."""
        return any(_near(amount, {a}) for a in _amounts(self.state.said))

    def insurance_as_fare(self, res: dict[str, Any], amount: float) -> str | None:
        """Where ``amount`` is a change's refund or charge only with the reservation's insurance counted as fare
        (its whole payment against the new fares): what the fare difference is; else None."""
        n = len(res.get("passengers") or []) or 1
        old = sum(float(f.get("price", 0)) for f in res.get("flights") or [] if isinstance(f, dict))
        paid = sum(float(p.get("amount", 0)) for p in res.get("payment_history") or [] if isinstance(p, dict))
        if abs(paid - old * n) < 0.01 or self.known(amount):
            return None  # the payment is the fares: nothing to tell apart
        said = self.state.said + "\n" + self.text
        named = [f for f in dict.fromkeys(self._flight_numbers(said)) if f in self.state.flights][:10]
        prices = [float(p) for f in named if isinstance(p := (self.state.flights[f].get("prices") or {}).get(res.get("cabin")),
                                                           NUMBERS)]
        sums = {0.0}
        for price in prices:
            sums |= {x + price for x in sums}
        wrong = _cents(abs(x * n - paid) for x in sums if x)
        right = _cents(abs(x * n - old * n) for x in sums if x) | _cents(abs(x - old) for x in sums if x)
        if not _near(amount, wrong) or _near(amount, right):
            return None
        new = next(x for x in sums if x and _near(amount, {round(abs(x * n - paid), 2)}))
        return (f"the fare difference is the new fares {new * n:g} against the fares paid {old * n:g}: "
                f"{abs(new * n - old * n):g}; the payment of {paid:g} includes the travel insurance, which is no fare")

    def itinerary_figure(self, amount: float) -> bool:
        """``amount`` is a fare of a new itinerary or its difference against a reservation read (``Itineraries``:
        over the flights the conversation named, the last ten). Asked only of a figure the others do not give."""
        if self._itineraries is None:
            said = self.state.said + "\n" + self.text
            named = [n for n in dict.fromkeys(reversed(self._flight_numbers(said))) if n in self.state.flights][:10]
            # the same flights over the same records give the same figures: one reckoning per conversation
            key = ("itineraries", tuple(named), id(self.state.flights), id(self.state.reservations))
            found = self.shared.get(key)
            if found is None:
                found = self.shared[key] = Itineraries(named, self.state.flights,
                                                       [*self.state.reservations.values(), *self.state.earlier])
            self._itineraries = found
        return self._itineraries.holds(amount)

    def _flight_numbers(self, said: str) -> list[str]:
        """The flight numbers ``said`` names, in order, less those no key of the state's flights may be (each reader
        keeps the keys): ``_flights_named``, read on from an earlier message's."""
        return said_numbers(self.shared, said, flights_lead(self.shared, self.state.flights))

    def derive(self, amounts: Iterable[float]) -> None:
        """Figures a true sentence gave: later sentences of the message may multiply them by the passengers,
        subtract what was paid, or add them up."""
        known = self.known_figures().derived
        passengers = {len(r.get("passengers") or []) for r in self.state.reservations.values()} | {1}
        for a in amounts:
            known |= _cents(a * n for n in passengers)
            known |= _cents(a - float(p.get("amount", 0)) for r in self.state.reservations.values()
                            for p in r.get("payment_history") or [] if isinstance(p, dict))
            self.stated.append(a)
        recent = self.stated[-6:]
        known |= _cents(sum(c) for k in (2, 3) for c in combinations(recent, k))

    def balances(self) -> set[float]:
        return set(_amounts_held(self.state))

    # --- rules ----------------------------------------------------------------------------------------------
    def rule(self, topic: str, sentence: str, negative: bool, named: bool = False) -> tuple[str, str, bool] | None:
        """(clause, what the model says, whether the sentence is true) for a sentence saying that the reservation
        may (``negative``: may not) be cancelled, change flights or change cabin; None: the model cannot decide
        from what was read, or a claim kind reads it (a denial of what the rules allow: ``cabin_rule``, the
        declines)."""
        res = self.named_reservation(sentence) if named else self.reservation(sentence)
        if self.policy is None or res is None:
            return None
        held = self._verdicts.get((topic, id(res)))
        if held is None or held[0] is not res:  # the record itself is held: its id is not another's
            held = self._verdicts[(topic, id(res))] = (res, self._verdict(self.policy, topic, res))
        if held[1] is None:
            return None
        clause, why, outcome = held[1]
        if outcome == "forbidden":
            return clause, why, negative
        if outcome == "allowed" and not negative:
            return clause, why, True
        return None

    def _verdict(self, policy: AirlinePolicy, topic: str, res: dict[str, Any]) -> tuple[str, str, str] | None:
        """(clause, why, outcome) of the model on ``topic`` for ``res`` over the state read (one per message and
        record: the message's sentences ask it alike)."""
        if topic == "cancel":
            flights = res.get("flights")
            if isinstance(flights, list) and all(f.__class__ is dict for f in flights):
                # ``_not_cancellable`` reads the same record over the same statuses: its verdict is this one
                verdict = policy.may_cancel(res)
                return verdict.clause.id, verdict.why, verdict.outcome
        return model_verdict(policy, self.state, topic, res)


def model_verdict(policy: AirlinePolicy, state: _State, topic: str, res: dict[str, Any]) -> tuple[str, str, str] | None:
    """(clause, why, outcome) of the model on ``topic`` for ``res``; a cancellation ``_not_cancellable`` forbids in
    ``state`` is forbidden for its reason."""
    if topic == "cancel":
        forbidden = _not_cancellable(res, state)
        if forbidden is not None:
            return policy.may_cancel(res).clause.id, forbidden, "forbidden"
        verdict = policy.may_cancel(res)
    elif topic == "cabin":
        verdict = policy.may_change_cabin(res)
    elif topic == "flights":
        verdict = policy.may_change_flights(res)
    else:
        return None
    return verdict.clause.id, verdict.why, verdict.outcome


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
        if not all(checker.known(x) or x < 10 for x in numbers):
            return False
        found = True
    return found


