"""Task reports and cross-version conflicts as catalog data (``catalog.yaml``'s ``reports``).

Every decision rests on facts a reader can check; each is recomputed here from the task data, tau2's database
and the policy text, not taken from the catalog's prose.
"""

from __future__ import annotations

import copy
import hashlib
import json
from importlib import resources

import pytest
import yaml
from pydantic import ValidationError
from tau2.data_model.tasks import Action

from envs import engine_for, load_task_set
from gold_variants import load_catalog, render_report_golds, report_golds_text, variants_for
from gold_variants._model import Catalog, _with_report_golds
from loophole_scoring import do_nothing_verdict
from tests.conftest import TAU_DATA

REPORTS = {r.id: r for r in load_catalog().reports}


def _policy(domain: str) -> str:
    return load_task_set(domain, "tau2").policy


def test_the_issue_s_reports_and_conflicts_are_all_there():
    trackers = {r.tracker for r in REPORTS.values() if r.kind == "task_report"}
    assert trackers >= {f"sierra-research/tau2-bench#{n}" for n in (495, 494, 316, 320, 357)} | {
        "sierra-research/tau-bench#85"}
    conflicts = {(r.domain, t) for r in REPORTS.values() if r.kind == "version_conflict" for t in r.tasks}
    conflicts |= {(r.domain, t) for r in REPORTS.values() for t in r.tasks if r.alternative and r.alternative.gold_from}
    assert conflicts >= {("retail", "18"), ("retail", "91"), ("airline", "35"), ("airline", "33"), ("airline", "21")}
    for r in REPORTS.values():
        assert r.reason.strip() and r.claim.strip()
        if r.status == "defensible_alternative":
            assert r.alternative is not None, r.id  # a defensible alternative is a gold variant


def test_every_policy_quote_is_verbatim():
    for r in REPORTS.values():
        for quote in r.policy:
            assert quote in _policy(r.domain), (r.id, quote)


def test_alternatives_are_variants_on_exactly_their_versions():
    for r in REPORTS.values():
        if r.alternative is None:
            continue
        alt = r.alternative
        for version in ("tau2", "tau3", "verified"):
            for task_id in r.tasks:
                ids = {v.gold_id for v in variants_for(r.domain, version, task_id)}
                wanted = version in alt.versions and task_id in (alt.tasks or r.tasks)
                assert (f"{r.id}.{alt.reading}" in ids) == wanted, (r.id, version, task_id)


def _paid(reservation_id: str) -> int:
    return sum(p.amount for p in engine_for("airline").db.reservations[reservation_id].payment_history)


def test_t495_figures_come_from_the_database():
    """Airline 7: $1,628 is every upcoming reservation of the user; $708 those besides the two cancelled."""
    db = engine_for("airline").db
    user = db.users[db.reservations["XEHM4B"].user_id]
    upcoming = [r for r in user.reservations if max(f.date for f in db.reservations[r].flights) > "2024-05-15"]
    assert sum(_paid(r) for r in upcoming) == 1628
    assert sum(_paid(r) for r in upcoming if r not in ("XEHM4B", "59XX6W")) == 708
    assert load_task_set("airline", "tau2").task("7").evaluation_criteria.communicate_info == ["1628"]
    assert REPORTS["T495"].alternative.communicate_info == ["708"]


def test_tb85_bags_are_free_for_a_gold_member_in_economy():
    db = engine_for("airline").db
    reservation = db.reservations["HXDUBJ"]
    assert db.users[reservation.user_id].membership == "gold" and reservation.cabin == "economy"
    assert "- If the booking user is a gold member:\n  - 2 free checked bag for each basic economy passenger\n" \
           "  - 3 free checked bag for each economy passenger" in _policy("airline")
    bags = {v: next(a for a in load_task_set("airline", v).task("33").evaluation_criteria.actions
                    if a.name == "update_reservation_baggages").arguments["nonfree_baggages"]
            for v in ("tau2", "tau3", "verified")}
    assert bags == {"tau2": 2, "tau3": 0, "verified": 2}  # tau3 right; the variant carries it to the others
    # and task 26's refusal: basic economy, no insurance, booked long before, no airline cancellation
    (res,) = [r for r in db.users["amelia_sanchez_4739"].reservations if db.reservations[r].origin == "MCO"]
    r26 = db.reservations[res]
    assert (r26.cabin, r26.insurance, r26.created_at < "2024-05-14T15:00:00") == ("basic_economy", "no", True)
    assert load_task_set("airline", "tau2").task("26").evaluation_criteria.actions == []


def test_c35_profile_birth_date_is_tau3_s():
    db = engine_for("airline").db
    dob = {v: load_task_set("airline", v).task("35").evaluation_criteria.actions[-1].arguments["passengers"][0]["dob"]
           for v in ("tau2", "tau3", "verified")}
    assert db.users["aarav_ahmed_6699"].dob == dob["tau3"] == "1981-05-26"
    assert dob["tau2"] != dob["tau3"] and dob["verified"] != dob["tau3"]


def test_c21_golds_reach_one_database():
    engine = engine_for("airline")
    a, b = (engine.replay_actions(load_task_set("airline", v).task("21").evaluation_criteria.actions) for v in ("tau3", "verified"))
    assert not a.errors and not b.errors and engine.states_equal(a.state, b.state)
    assert REPORTS["C21"].status == "rejected"


def test_t316_user_has_no_gift_card():
    db = engine_for("retail").db
    assert not [p for p in db.users["mia_garcia_4516"].payment_methods if p.startswith("gift_card")]


@pytest.mark.parametrize(("domain", "task_id"), [("airline", "6"), ("retail", "10"), ("retail", "50")])
def test_the_reward_cannot_see_the_decline_or_the_handoff(domain, task_id):
    """What T494, T316 and T320 point at: doing nothing passes these tasks on every version."""
    for version in ("tau2", "tau3", "verified"):
        task = load_task_set(domain, version).task(task_id)
        verdict, _ = do_nothing_verdict(domain, version, task, engine_for(domain))
        assert verdict == "passes", (version, domain, task_id)


def test_c18_verified_golds_exchange_into_unavailable_items():
    engine = engine_for("retail")
    for task_id in ("18", "91"):
        replay = engine.replay_actions(load_task_set("retail", "verified").task(task_id).evaluation_criteria.actions)
        assert any("not found or available" in e for e in replay.errors), task_id


# --- another version's gold is catalog data (#42) ---------------------------------------------------------------

BORROWED = {r.id: r for r in REPORTS.values() if r.alternative is not None and r.alternative.gold_from is not None}


def _pinned_gold(version: str, domain: str, task_id: str) -> list[Action]:
    """The gold actions of one task, read from the shared pinned file itself (its sha256 checked against
    ../shared/tau-data/MANIFEST.json), not through the loader the catalog's generator uses."""
    path = TAU_DATA / version / domain / "tasks.json"
    pins = json.loads((TAU_DATA / "MANIFEST.json").read_text())["files"]
    assert pins[f"{version}/{domain}/tasks.json"] == hashlib.sha256(path.read_bytes()).hexdigest()
    (task,) = [t for t in json.loads(path.read_text()) if str(t["id"]) == task_id]
    return [Action.model_validate(a) for a in (task.get("evaluation_criteria") or {}).get("actions") or []]


def test_the_borrowed_golds_equal_their_versions_pinned_files():
    """What the catalog carries for TB85 and C35 is exactly tau3's gold of the task: scoring reads the catalog,
    never tau3's tasks.json, so a τ²-only machine offers the same variants."""
    assert {"TB85", "C35"} <= set(BORROWED)
    for r in BORROWED.values():
        alt = r.alternative
        for task_id in alt.tasks or r.tasks:
            carried = alt.gold.actions[task_id]
            assert carried == _pinned_gold(alt.gold_from, r.domain, task_id), (r.id, task_id)
            for version in alt.versions:  # the variant credits them, on every version it names
                (variant,) = [v for v in variants_for(r.domain, version, task_id) if v.loophole_id == r.id]
                assert variant.actions == carried, (r.id, version, task_id)
    # and they are what the variant adds: the tau2 gold differs (bags charged, another birth date)
    assert BORROWED["TB85"].alternative.gold.actions["33"] != _pinned_gold("tau2", "airline", "33")
    assert BORROWED["C35"].alternative.gold.actions["35"] != _pinned_gold("tau2", "airline", "35")


def test_report_golds_yaml_is_what_the_generator_writes():
    assert report_golds_text() == render_report_golds(), "regenerate it: python -m harness.cli.report_golds"


def _raw() -> tuple[dict, dict]:
    folder = resources.files("gold_variants")
    return (yaml.safe_load(folder.joinpath("catalog.yaml").read_text()),
            yaml.safe_load(folder.joinpath("report_golds.yaml").read_text()))


def _load(raw: dict, golds: dict) -> Catalog:
    return Catalog.model_validate(_with_report_golds(copy.deepcopy(raw), copy.deepcopy(golds)))


def test_the_catalog_refuses_a_borrowed_gold_it_does_not_carry_whole():
    raw, golds = _raw()
    assert _load(raw, golds).report("C35").alternative.gold is not None  # as shipped: loads
    without = {k: v for k, v in golds.items() if k != "C35"}
    with pytest.raises(ValidationError, match="gold_from 'tau3' needs its actions in report_golds.yaml"):
        _load(raw, without)
    stale = copy.deepcopy(golds)
    stale["C35"]["tasks_sha256"] = "0" * 64  # derived from another tasks.json than the pinned one
    with pytest.raises(ValidationError, match="report C35: report_golds.yaml was derived from tau3"):
        _load(raw, stale)
    extra = copy.deepcopy(golds)
    extra["TB85"]["actions"]["26"] = []  # a task the alternative does not apply to
    with pytest.raises(ValidationError, match="report TB85: report_golds.yaml has tasks"):
        _load(raw, extra)
    with pytest.raises(ValueError, match="T494: no report with an alternative"):
        _load(raw, {**golds, "T494": golds["C35"]})
    inline = copy.deepcopy(raw)
    next(r for r in inline["reports"] if r["id"] == "C35")["alternative"]["gold"] = golds["C35"]
    with pytest.raises(ValueError, match="alternative.gold is generated into report_golds.yaml"):
        _load(inline, golds)
