"""What a conversation must show for a variant to credit it, and the explanation every credit carries.

A variant's database outcome says what was done, not why. Two checks over the messages and tool calls:

- **Evidence** (refusal-type readings). A refusal's database is the initial one, which an agent that did
  nothing also reaches, so the trajectory must show the decision: an assistant sentence that declines and
  names the contested clause's subject, or a ``transfer_to_human_agents`` whose summary does (a decline
  resting on a false statement of the policy fails ``no_false_policy``).
- **Preconditions**: what the agent must have done to take the reading while keeping the rest of the policy
  (the user asked for compensation before any was offered, the delay was confirmed by a read, ...).

Self-contradiction (the written rule): an agent that both refuses the contested act and acts against the
refusal (does it, or offers its loophole's workaround: L6 "upgrade, then change the flights", L16 "cancel
it and book a new one") took neither reading, whatever the order. The
refusal variant fails its evidence ("contradicted by ... at message N"); the permissive variant fails
``no_prior_decline`` where the decline came first (whissle tau3 task 29: "you cannot change the origin,
destination, or trip type", then the destination changed in place).

Every check returns message indices, speakers and excerpts, so a credit can be read back in minutes
(``Explanation.to_json``, stored as ``scores.explanation_json``; ``harness explain`` prints it).
The evidence checks are here; the preconditions and ``explain`` are in ``_preconditions``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from tau2.data_model.message import AssistantMessage, Message

if TYPE_CHECKING:
    pass

_DECLINE = re.compile(
    r"\b(cannot|can't|can not|unable to|not able to|not allowed|not permitted|not possible|isn't possible|"
    r"won't be able|will not be able|not eligible|ineligible|must decline|only (?:issue|offer|provide)|"
    r"only available|(?:do|does|did)(?:n't| not) (?:allow|permit)|prohibit\w*|non-?modifiable|"
    r"non-?changeable|no changes? (?:are|is|can be) (?:allowed|permitted|made)|not (?:be )?(?:modified|changed)|"
    r"(?:is|are|was|were)(?:n't| not) (?:allowed|permitted|possible|eligible|modifiable|changeable))\b",
    re.IGNORECASE,
)
_CONDITION = re.compile(
    r"\b(requires?|required|tied|only|specifically|unless|prerequisite|in connection with)\b",
    re.IGNORECASE,
)
_BASIC = re.compile(r"\bbasic[\s-]*economy\b", re.IGNORECASE)
_MODIFY = re.compile(r"\b(modif\w*|chang\w*|alter\w*|switch\w*|rebook\w*)\b", re.IGNORECASE)
_ROUTE = re.compile(
    r"\b(origin|destination|route|trip type|airports?|different (?:city|airport))\b", re.IGNORECASE
)
_COMPENSATION = re.compile(r"\b(compensat\w*|certificate|voucher)\b", re.IGNORECASE)
_CHANGE_OR_CANCEL = re.compile(r"\b(chang\w*|cancel\w*|modif\w*)\b", re.IGNORECASE)
_POLICY = re.compile(r"\bpolic(?:y|ies)\b", re.IGNORECASE)
# Offers of a workaround (without a decline in the same sentence) contradict a refusal: L6's "upgrade
# first, then change the flights", and L16's "cancel it and make a new booking".
_WORKAROUND_OFFERS = {
    "L6": (
        "an offer of the upgrade workaround",
        re.compile(
            r"\bupgrad\w*\b[^.!?\n]{0,80}\b(then|after|so that|allow\w*|able to|in order to)\b[^.!?\n]{0,60}"
            r"\b(chang\w*|modif\w*)\b",
            re.IGNORECASE,
        ),
    ),
    "L16": (
        "an offer to cancel and book anew",
        re.compile(
            r"\bcancel\w*\b[^.!?\n]{0,60}\b(?:and|then)\b[^.!?\n]{0,40}\b(?:re)?book\w*\b",
            re.IGNORECASE,
        ),
    ),
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_TRANSFER = "transfer_to_human_agents"
_WORKAROUND_TOOLS = {"update_reservation_flights", "cancel_reservation", "book_reservation"}


@dataclass(frozen=True)
class Subject:
    """What a decline must name, and which tool calls contradict it."""

    what: str
    names: Callable[[str], bool]
    contested: frozenset[str] | None  # None: any write contradicts it


SUBJECTS: dict[str, Subject] = {
    "refuse_basic_economy_modify": Subject(
        "basic economy + modifying flights",
        lambda s: bool(_BASIC.search(s) and _MODIFY.search(s)),
        frozenset(_WORKAROUND_TOOLS),
    ),
    "refuse_route_change": Subject(
        "changing origin or destination",
        lambda s: bool(_ROUTE.search(s) and _MODIFY.search(s)),
        frozenset(_WORKAROUND_TOOLS),
    ),
    "declines_compensation": Subject(
        "the change-or-cancel condition of delay compensation",
        lambda s: bool(_COMPENSATION.search(s) and _CHANGE_OR_CANCEL.search(s)),
        frozenset({"send_certificate"}),
    ),
    "refusal": Subject("the request", lambda s: True, None),
}


@dataclass
class EvidenceItem:
    message_index: int
    role: str
    excerpt: str
    tool_call: str | None
    what: str


@dataclass
class PreconditionResult:
    name: str
    held: bool
    detail: str


@dataclass
class Explanation:
    gold_id: str
    preconditions: list[PreconditionResult] = field(default_factory=list)
    evidence: list[EvidenceItem] = field(default_factory=list)
    evidence_required: str | None = None  # the evidence kind, where the reading needs one
    evidence_problem: str | None = None

    @property
    def holds(self) -> bool:
        return all(p.held for p in self.preconditions) and not self.evidence_problem

    def failure(self) -> str | None:
        failed = [
            f"precondition {p.name} failed: {p.detail}" for p in self.preconditions if not p.held
        ]
        if self.evidence_problem:
            failed.insert(0, self.evidence_problem)
        return "; ".join(failed) or None

    def to_json(self) -> str:
        return json.dumps(
            {
                "gold_id": self.gold_id,
                "preconditions": [asdict(p) for p in self.preconditions],
                "evidence": [asdict(e) for e in self.evidence],
            },
            ensure_ascii=False,
        )


@dataclass(frozen=True)
class _Turn:
    index: int
    role: str
    text: str
    calls: tuple[Any, ...]


def _turns(messages: Sequence[Message]) -> list[_Turn]:
    out = []
    for i, m in enumerate(messages):
        calls = tuple(m.tool_calls or []) if isinstance(m, AssistantMessage) else ()
        out.append(_Turn(i, m.role, m.content or "", calls))
    return out


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def _excerpt(text: str, limit: int = 240) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _call_text(call: Any) -> str:
    return f"{call.name}({_excerpt(json.dumps(call.arguments, ensure_ascii=False), 200)})"


def _first_call(turns: list[_Turn], names: frozenset[str] | set[str] | None) -> int | None:
    for t in turns:
        if any(
            (names is None and c.name != _TRANSFER and not _is_read(c.name))
            or (names and c.name in names)
            for c in t.calls
        ):
            return t.index
    return None


def _is_read(name: str) -> bool:
    return name.startswith(("get_", "search_", "list_", "find_", "calculate", "think"))


def _declines(kind: str, sentence: str) -> bool:
    if kind == "declines_compensation":
        return bool(_DECLINE.search(sentence) or _CONDITION.search(sentence))
    return bool(_DECLINE.search(sentence))


def find_declines(kind: str, turns: list[_Turn], before: int | None = None) -> list[EvidenceItem]:
    """Assistant sentences and transfer summaries that decline and name ``kind``'s subject."""
    subject = SUBJECTS[kind]
    found: list[EvidenceItem] = []
    for t in turns:
        if before is not None and t.index >= before:
            break
        if t.role != "assistant":
            continue
        hit = next((s for s in _sentences(t.text) if subject.names(s) and _declines(kind, s)), None)
        if hit:
            found.append(
                EvidenceItem(
                    t.index, "assistant", _excerpt(hit), None, f"declines, naming {subject.what}"
                )
            )
        for call in t.calls:
            summary = str(call.arguments.get("summary") or "") if call.name == _TRANSFER else ""
            if (
                summary
                and subject.names(summary)
                and (_declines(kind, summary) or _POLICY.search(summary))
            ):
                found.append(
                    EvidenceItem(
                        t.index,
                        "assistant",
                        _excerpt(summary),
                        _call_text(call),
                        f"transfer whose summary names {subject.what}",
                    )
                )
    return found


def _contradiction(kind: str, loophole: str | None, turns: list[_Turn]) -> tuple[int, str] | None:
    """Where the agent acted against the refusal, at any point of the conversation: the contested write,
    or an offer of the loophole's own workaround (L6: "upgrade, then change the flights"; L16: "cancel it
    and book a new one")."""
    write = _first_call(turns, SUBJECTS[kind].contested)
    found = [(write, "the contested write")] if write is not None else []
    if loophole in _WORKAROUND_OFFERS:
        what, offer = _WORKAROUND_OFFERS[loophole]
        at = next(
            (
                t.index
                for t in turns
                if t.role == "assistant"
                and any(offer.search(x) and not _DECLINE.search(x) for x in _sentences(t.text))
            ),
            None,
        )
        if at is not None:
            found.append((at, what))
    return min(found) if found else None


def _refusal_evidence(
    kind: str, turns: list[_Turn], loophole: str | None = None
) -> tuple[list[EvidenceItem], str | None]:
    subject = SUBJECTS[kind]
    against = _contradiction(kind, loophole, turns)
    if kind == "refusal":  # no clause subject: any declining sentence, or any transfer
        found = []
        for t in turns:
            if t.role != "assistant":
                continue
            hit = next((x for x in _sentences(t.text) if _DECLINE.search(x)), None)
            if hit:
                found.append(EvidenceItem(t.index, "assistant", _excerpt(hit), None, "declines"))
            found += [
                EvidenceItem(t.index, "assistant", "", _call_text(c), "transfer")
                for c in t.calls
                if c.name == _TRANSFER
            ]
    else:
        found = find_declines(kind, turns)
    # A refusal the agent itself contradicts is no refusal (the self-contradiction rule).
    if against is not None:
        return found, f"the refusal is contradicted by {against[1]} at message {against[0]}"
    if found:
        return found, None
    return [], f"no decline or transfer naming {subject.what}"


def evidence_holds(kind: str | None, messages: Sequence[Message]) -> bool:
    """Whether ``messages`` show the evidence ``kind`` asks for (True where none is asked)."""
    if kind is None:
        return True
    if kind not in SUBJECTS:
        raise ValueError(f"unknown evidence kind {kind!r}")
    return _refusal_evidence(kind, _turns(messages))[1] is None


__all__ = ["SUBJECTS", "EvidenceItem", "Explanation", "PreconditionResult", "evidence_holds", "find_declines"]
