"""``_evidence._declines`` read by loops, each subject, indirect subject and other-grounds pattern gated first
(``scans``), a transfer summary's policy words read only where no class declines and gated first, answers as the
reading it replaces (#47): every clause, direct and indirect, in a summary and not, on every unit of the agent's
messages and transfer summaries of the real runs, and on written units (non-ASCII ones, which are searched as they
are, and a dotless i, which the gate does not rule on). ``Units.may_decline``, returning at once where the scan finds
no decline words, answers as its full test."""

from __future__ import annotations

import re

from conversation_reading._evidence import Turn, _declines, _stated, read_turns
from conversation_reading._lowered_search import ascii_lowered, says
from conversation_reading._units import Units
from conversation_reading._vocabulary import EvidenceKind, vocabulary
from tests.conftest import real_run

RUNS = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json",
        "whissle_airline_tau3_1trial.json", "whissle_retail_tau3_5sims.json"]

WRITTEN = [
    "I cannot change a basic economy reservation, per our policy.",
    "I can\u2019t modify a basic economy booking under the airline\u2019s policy.",
    "Transferred: the user wants a refund, which the rules do not allow.",
    "The user asked to change a basic economy flight; per polıcy this is not possible.",
    "User requests compensation for the delay; I explained the guidelines.",
    "Basic economy flights cannot be modified. The user wants to speak to a supervisor.",
    "Per policy, basic economy reservations are non-modifiable.",
]


def _reference(kind: EvidenceKind, unit: str, *, direct: bool, summary: bool = False) -> bool:
    """``_declines`` as it read before: every class by ``any``, the policy words searched whether a class declined
    or not, and ungated."""
    low = ascii_lowered(unit)
    if direct and not kind.names(unit, low):
        return False
    if not direct and not (kind.indirect and all(says(p, unit, low) for p in kind.indirect)):
        return False
    if not direct:
        unit = vocabulary().payment_means.sub(" ", unit)
        low = ascii_lowered(unit)
    if kind.other_grounds and says(kind.not_the_clause, unit, low):
        return False
    by_class = any(_stated(p, unit, low) for p in kind.declined_by)
    if direct:
        by_policy = summary and vocabulary().decline in kind.declined_by and says(vocabulary().policy, unit, low)
        return bool(by_class or by_policy)
    return bool(by_class or _stated(vocabulary().decline, unit, low))


def _conversations() -> list[list[Turn]]:
    from tau2.data_model.simulation import Results

    return [read_turns(list(sim.messages)) for name in RUNS
            for sim in Results.model_validate_json(real_run(name).read_text(encoding="utf-8")).simulations]


def _units() -> tuple[list[str], list[str]]:
    said: list[str] = []
    summaries: list[str] = []
    cut = Units()
    for turns in _conversations():
        for t in turns:
            if t.role != "assistant":
                continue
            said += cut.of(t.text)
            for c in t.calls:
                if c.name == "transfer_to_human_agents":
                    summaries += cut.of_summary(str(c.arguments.get("summary") or ""))
    return said, summaries


def test_every_clause_declines_as_the_reading_it_replaces():
    said, summaries = _units()
    assert len(summaries) >= 40 and len(said) >= 2000
    kinds = list(vocabulary().kinds.values())
    policy = vocabulary().policy
    cited = 0  # summaries that decline only by citing the policy: where the policy's gate decides
    for units in (said + WRITTEN, summaries + WRITTEN):
        for kind in kinds:
            for direct in (True, False):
                for summary in (True, False):
                    answers = [_declines(kind, u, direct=direct, summary=summary) for u in units]
                    assert answers == [_reference(kind, u, direct=direct, summary=summary) for u in units], \
                        (kind.name, direct, summary)
                    if direct and summary:
                        cited += sum(a and not any(_stated(p, u, ascii_lowered(u)) for p in kind.declined_by)
                                     for a, u in zip(answers, units, strict=True))
    assert cited >= 3
    assert any(policy.search(u) for u in summaries)  # the policy's words occur in real summaries


def test_a_summary_citing_the_policy_in_other_letters_still_declines():
    """A non-ASCII summary is searched as it is (no lowercase, no gate): its policy words still count, dotless i too."""
    refusal = vocabulary().kinds["refusal"]
    unit = "The user asked to change a basic economy flight; per pol\u0131cy this is something we refuse."
    assert re.search(r"pol\u0131cy", unit) and not any(p.search(unit) for p in refusal.declined_by)
    assert _declines(refusal, unit, direct=True, summary=True) is True
    assert _declines(refusal, unit, direct=True, summary=False) is False


def _may_decline_before(cut: Units, kind: EvidenceKind, text: str) -> bool:
    """``Units._may_decline`` as it read before: every test in one expression, the class gate looked up first."""
    from conversation_reading._gate import holds_any, needs

    lowered = cut.gate(text)
    if lowered is None:
        return True
    scanned = -1 if cut._scanned is None or cut._lists[text] else cut._scanned(text)
    decline = vocabulary().decline
    may_class, may_decline = bool(scanned & cut._bits_of(kind.declined_by)), bool(scanned & cut._bits_of((decline,)))
    by_class = holds_any(kind.declined_by)
    if may_class and all(needs(p).check(lowered) for p in kind.subject) and by_class(lowered):
        return True
    return bool(kind.indirect) and (may_class or may_decline) and all(needs(p).check(lowered) for p in kind.indirect) \
        and (may_class and by_class(lowered) or may_decline and needs(decline).check(lowered))


def test_the_decline_gate_answers_as_before_with_the_records_scan():
    """``Units.may_decline``, which returns at once where the record's scan finds neither a class's words nor the
    decline's, answers as the full test on every agent message of the real runs, with the record's scan and without."""
    from functools import partial

    from conversation_reading._message_scan import message_scan

    scan, bits = message_scan("assistant")
    texts = [t.text for turns in _conversations() for t in turns if t.role == "assistant" and t.text]
    texts += ["Note:\n- Unfortunately, I'm unable\n- to make the change you're requesting.",
              "I can\u2019t change a basic economy flight.", "That ıs not possıble for basic economy."]
    outcomes = {True: 0, False: 0}
    for scanned in (partial(lambda s, text: s(text.lower()), scan), None):
        for kind in vocabulary().kinds.values():
            cut = Units(scanned, bits if scanned else None)
            for text in texts:
                answer = cut.may_decline(kind, text)
                assert answer == _may_decline_before(cut, kind, text), (kind.name, text[:120])
                outcomes[answer] += 1
    assert outcomes[True] >= 50 and outcomes[False] >= 1000
