"""``_evidence._declines`` read by a loop over the decline classes, a transfer summary's policy words read only where
no class declines and gated first (``scans``), answers as the reading it replaces (#47): every clause, direct and
indirect, in a summary and not, on every unit of the agent's messages and transfer summaries of the real runs, and on
written units (non-ASCII ones, which are searched as they are, and a dotless i, which the gate does not rule on)."""

from __future__ import annotations

import re

from conversation_reading._evidence import _declines, _stated, read_turns
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


def _units() -> tuple[list[str], list[str]]:
    from tau2.data_model.simulation import Results

    said: list[str] = []
    summaries: list[str] = []
    cut = Units()
    for name in RUNS:
        results = Results.model_validate_json(real_run(name).read_text(encoding="utf-8"))
        for sim in results.simulations:
            for t in read_turns(list(sim.messages)):
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
