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


def test_the_records_declines_read_over_the_agents_turns_are_those_read_over_every_turn():
    """``_reading._Reading.declines`` passes only the agent's turns to ``_declines_in`` and ``anaphoric_in`` (#47): on
    every conversation of the real runs, each clause's declines (in words, in transfer summaries, anaphoric) are
    those the two read over every turn, and some are found, or the test would show nothing."""
    from tau2.data_model.simulation import Results

    from conversation_reading._evidence import _declines_in
    from conversation_reading._no_write import anaphoric_in
    from conversation_reading._reading import _Reading

    found = 0
    for name in RUNS:
        for sim in Results.model_validate_json(real_run(name).read_text(encoding="utf-8")).simulations:
            messages = list(sim.messages)
            reading = _Reading(messages, "airline", lambda _: False)
            for kind_name, kind in vocabulary().kinds.items():
                declines = reading.declines(kind_name)
                turns = read_turns(messages)
                every = _declines_in(kind, turns, cut=Units())
                said = anaphoric_in(kind_name, turns, Units(), declined={e.message_index for e in every
                                                                         if e.tool_call is None})
                assert [(d.message_index, d.form, d.what, d.excerpt, d.certain, d.tool_call) for d in declines] == [
                    (e.message_index, "words" if e.tool_call is None else "transfer", e.what, e.excerpt, e.certain,
                     e.tool_call) for e in every] + ([] if said is None else [
                    (said.message_index, "anaphoric", said.what, said.excerpt, True, None)])
                found += len(declines)
    assert found >= 100


def _anaphoric_in_before(kind_name: str, turns: list[Turn], units: Units, declined: set[int] | None) -> object:
    """``anaphoric_in`` as it read before: a generator over each turn's transfer calls."""
    from conversation_reading._no_write import TRANSFER_TOOL, Settled, _anaphoric, excerpt_of

    kind = vocabulary().kinds[kind_name]
    for t in turns:
        if t.role != "assistant":
            continue
        may = bool(t.text and (declined is None or t.index in declined) and units.may(
            kind.subject, t.text) and units.may_decline(kind, t.text))
        found = _anaphoric(kind_name, units.of(t.text)) if may else None
        for call in (c for c in t.calls if c.name == TRANSFER_TOOL and found is None) if t.calls else ():
            found = _anaphoric(kind_name, units.of_summary(str(call.arguments.get("summary") or "")))
        if found is not None:
            return Settled(f"declines on {kind.what}, naming it in the sentence before", t.index, excerpt_of(found))
    return None


def test_an_anaphoric_decline_is_read_as_before_in_words_and_in_transfer_summaries():
    """``anaphoric_in``'s loop over a turn's calls answers as the generator it replaces, on every conversation of the
    real runs and on made ones whose anaphoric decline is in a transfer summary (the first or second of two)."""
    from types import SimpleNamespace

    from conversation_reading._no_write import anaphoric_in

    def transfer(summary: str) -> object:
        return SimpleNamespace(name="transfer_to_human_agents", arguments={"summary": summary})

    said = "The user asked to modify a basic economy ticket. This modification is not permitted."
    made = [[Turn(0, "user", "Hello", ()), Turn(1, "assistant", "", (transfer(said),))],
            [Turn(0, "user", "Hello", ()), Turn(1, "assistant", "One moment.",
                                                 (SimpleNamespace(name="get_user_details", arguments={}),
                                                  transfer("Nothing to add."), transfer(said)))],
            [Turn(0, "user", "Hello", ()), Turn(1, "assistant", "", (transfer(said), transfer("Nothing to add.")))]]
    found = 0
    for turns in [*made, *_conversations()]:
        for kind_name in vocabulary().kinds:
            for declined in (None, set()):
                answer = anaphoric_in(kind_name, turns, Units(), declined=declined)
                assert answer == _anaphoric_in_before(kind_name, turns, Units(), declined), kind_name
                found += answer is not None
    assert found >= 10
