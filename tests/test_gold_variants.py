"""Every gold variant, enacted as a trajectory through tau2's real environment.

A trajectory that enacts the gold scores 1 under both; a plausible wrong trajectory scores 0 under both.
That each variant credits its reading is tested against readings written by hand, not against the
variant's own action list (tests/test_variant_readings_by_hand.py).
"""

from __future__ import annotations

import pytest

from envs import load_task_set
from gold_variants import all_variants, check_variants, variants_for, witness
from tests.conftest import enacted as _trajectory
from tests.conftest import score_in as _score

LOOPHOLE_TASKS = ["2", "5", "13", "27", "29", "32", "45"]


def _predicate_calls(variant) -> list[tuple[str, dict]]:
    """Concrete tool calls that enact a predicate variant's reading."""
    return [(a.name, a.arguments) for a in witness(variant)]


def _variant_cases():
    for version in ("tau2", "tau3"):
        for task_id, variants in all_variants("airline", version).items():
            for v in variants:
                yield pytest.param(version, task_id, v, id=f"{version}-{task_id}-{v.gold_id}")


@pytest.mark.parametrize(("version", "task_id", "variant"), list(_variant_cases()))
def test_negative_trajectory_still_scores_zero(version, task_id, variant):
    """A plausible wrong trajectory: the refusal without saying so, or the workaround done wrong."""
    if variant.evidence is not None:
        calls = [(a.name, a.arguments) for a in variant.actions]
        sim = _trajectory("airline", task_id, calls, "Okay.", version)  # did the reads, never declined
    elif variant.actions is not None:
        calls = [(a.name, a.arguments) for a in variant.actions]
        # the reading's writes, but a certificate / update for the wrong amount or reservation
        wrong = [(n, {**a, "amount": a["amount"] * 2}) if n == "send_certificate" else (n, a) for n, a in calls]
        if wrong == calls:
            wrong = calls[:-1]  # drop the final write
        sim = _trajectory("airline", task_id, wrong, version=version)
    else:
        calls = _predicate_calls(variant)
        sim = _trajectory("airline", task_id, calls[:-1], version=version)  # stop before the last step
    result = _score("airline", version, sim)
    assert variant.gold_id not in result.matched_gold_ids


@pytest.mark.parametrize("version", ["tau2", "tau3"])
@pytest.mark.parametrize("task_id", LOOPHOLE_TASKS)
def test_enacting_the_gold_scores_one_under_both(version, task_id):
    task = load_task_set("airline", version).task(task_id)
    calls = [(a.name, a.arguments) for a in task.evaluation_criteria.actions]
    result = _score("airline", version, _trajectory("airline", task_id, calls, version=version))
    assert result.single_gold.reward == 1.0 and result.multi_gold_reward == 1.0


@pytest.mark.parametrize("version", ["tau2", "tau3"])
def test_every_loophole_task_has_a_variant(version):
    for task_id in LOOPHOLE_TASKS:
        assert variants_for("airline", version, task_id), (version, task_id)


def test_tau3_gold_of_29_enacts_the_tau2_cancel_and_rebook_reading():
    """The rule derives the tau2 variant from the clause; tau3's maintainers wrote that reading as gold."""
    tau3_gold = load_task_set("airline", "tau3").task("29").evaluation_criteria.actions
    sim = _trajectory("airline", "29", [(a.name, a.arguments) for a in tau3_gold])
    result = _score("airline", "tau2", sim)
    assert result.single_gold.reward == 0.0
    assert "L16.cancel_and_rebook" in result.matched_gold_ids


def test_tau2_gold_of_29_is_the_tau3_modify_in_place_variant():
    tau2_gold = load_task_set("airline", "tau2").task("29").evaluation_criteria.actions
    sim = _trajectory("airline", "29", [(a.name, a.arguments) for a in tau2_gold], version="tau3")
    result = _score("airline", "tau3", sim)
    assert result.single_gold.reward == 0.0 and "L16.modify_in_place" in result.matched_gold_ids


def test_certificate_amounts_follow_the_database():
    """The lenient tau3 variants price the certificate from the data; tau2's gold agrees."""
    for task_id in ("2", "27"):
        (lenient,) = [v for v in variants_for("airline", "tau3", task_id) if v.reading == "lenient"]
        gold_cert = next(
            a for a in load_task_set("airline", "tau2").task(task_id).evaluation_criteria.actions
            if a.name == "send_certificate"
        )
        assert lenient.actions[-1].arguments == gold_cert.arguments


def test_variants_check_passes():
    report = check_variants()
    assert report.ok, report.problems
    assert any("R1: no retail task" in n for n in report.notes)
    assert any("R2: no retail task" in n for n in report.notes)


def test_clause_rules_load_the_pristine_database_once_under_concurrent_first_calls(monkeypatch):
    """A sweep worker's threads score at once: the rules' first database load must happen once, not per thread."""
    import threading

    import conversation_reading._domain as _base  # the toolkit the rules and the claims read
    import envs._replay as replay  # whose engine's database it is

    loads: list[str] = []
    real = replay.environment_constructor

    def counting(domain, *args):
        loads.append(domain)
        return real(domain, *args)

    monkeypatch.setattr(replay, "environment_constructor", counting)
    monkeypatch.setattr(replay, "_ENGINES", {})  # as in a fresh worker: no engine yet (later tests get theirs back)
    _base.domain_tools.cache_clear()
    try:
        start = threading.Barrier(4)

        def first_call() -> None:
            start.wait()
            _base.domain_tools("airline")

        threads = [threading.Thread(target=first_call) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert loads == ["airline"]
    finally:
        _base.domain_tools.cache_clear()  # later tests load the real, unpatched toolkit again
