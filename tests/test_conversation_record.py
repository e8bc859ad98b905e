"""The conversation record (#40 item 1): strict, the credits and the viewer agree with it on real conversations,
and a run written before it is read by rebuilding it from its messages.

Two conversations of the shared runs, rescored once (one simulation each):
- aide's airline task 32: a single-gold and strict pass whose L6.refuse reading is refused; the agent declines
  the basic-economy change at message 11 (the variant's evidence) while offering to cancel, which the database
  says the policy forbids (the variant's false claim), and makes two confirmed writes;
- toolorchestra's retail task 44 (the file says 87; its evidence names 44): a single-gold pass that strict fails for a write without the user's yes.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

import loophole_store as store
from conversation_reading import (
    EXPLANATION_SCHEMA_VERSION,
    RECORD_SCHEMA_VERSION,
    ConversationRecord,
    ExplanationVersionError,
    RecordVersionError,
    read_explanation,
    read_record,
)
from envs import load_task_set
from loophole_report import build_site
from loophole_report._links import page_name
from loophole_scoring import stored_record
from tests.conftest import real_run

CASES = {  # run -> (file, simulation id)
    "aide": ("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "bffe2ec1-2de2-4eff-8161-82cfdf7b6af3"),
    "toolorchestra": ("toolorchestra_retail_tau2_1trial.json", "2bbcd19e-2064-455b-9719-8d30a7b28b7d"),
    # retail 61: the earbuds swapped straight after the request, whose "please process this" reads as a yes
    "unlisted": ("toolorchestra_retail_tau2_1trial.json", "e53e535c-fab6-4339-9709-9d63fe25d77b"),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, Path]:
    from harness import rescore

    base = tmp_path_factory.mktemp("record")
    out = {}
    for name, (file, simulation_id) in CASES.items():
        raw = json.loads(real_run(file).read_text())
        raw["simulations"] = [s for s in raw["simulations"] if s["id"] == simulation_id]
        raw.pop("simulation_index", None)
        (base / file).write_text(json.dumps(raw))
        rescore([base / file], base / name)
        out[name] = base / name
    return out


@pytest.fixture(scope="module")
def pages(runs, tmp_path_factory) -> dict[str, str]:
    """Each run's viewer page of its one trajectory."""
    out = {}
    for name, run in runs.items():
        site = tmp_path_factory.mktemp("site") / name
        build_site(run, site)
        trial = store.read_table(run, "trials").iloc[0]
        out[name] = html.unescape((site / page_name(trial.trajectory_id)).read_text())
    return out


def _trial(run: Path):
    trials = store.read_table(run, "trials")
    assert len(trials) == 1
    return trials.iloc[0]


def _record(run: Path) -> ConversationRecord:
    """The trial's record as explain and the viewer read it: the one scoring built and the rescore stored."""
    trial = _trial(run)
    assert isinstance(trial.record_json, str)  # a rescore stores the record its verdicts read
    return stored_record(trial.record_json, json.loads(trial.messages_json), trial.domain, trial.task_version,
                         trial.task_id)


def test_strict_the_credits_and_the_viewer_agree_on_one_conversations_record(runs, pages):
    run = runs["aide"]
    trial, record = _trial(run), _record(run)
    scores = store.read_table(run, "scores")
    variant = scores[(scores.gold_id == "L6.refuse")].iloc[0]
    explanation = read_explanation(variant.explanation_json)
    # the decline the variant cites is the record's, on the variant's clause, at the same message, in the same words
    cited = [(e.message_index, e.excerpt) for e in explanation.evidence if e.tool_call is None]
    assert cited == [(11, cited[0][1])]
    assert (11, cited[0][1]) in [(d.message_index, d.excerpt) for d in record.declines
                                 if d.clause == "refuse_basic_economy_modify" and d.certain]
    # every piece of evidence the explanation cites (but the writes it lists) is a decline of the record, in place
    assert [(e.message_index, e.excerpt, e.what, e.start, e.end) for e in explanation.evidence
            if e.what != "write"] == [(d.message_index, d.excerpt, d.what, d.start, d.end)
                                         for d in record.declines_on("refuse_basic_economy_modify")]
    # and what voids it is the record's first act against the refusal: its offer of the loophole's workaround
    offer = next(o for o in record.offers if o.loophole_id == "L6")
    assert offer.message_index < record.clause("refuse_basic_economy_modify").contested_write_at
    assert explanation.problem == f"the refusal is contradicted by {offer.what} at message {offer.message_index}"
    # the false claim the variant is refused on is the record's, with the same truth
    assert [(c.kind, c.message_index, c.truth) for c in explanation.false_claims] == [
        (c.kind, c.message_index, c.truth) for c in record.false_claims]
    assert record.false_claims[0].kind == "cancellation_offer" and record.false_claims[0].refusals_of
    # strict passes it: every write the record lists came after the user's explicit yes
    assert trial.strict_reward == 1.0
    assert [(w.tool, w.message_index, w.confirmed) for w in record.writes] == [
        ("update_reservation_flights", 19, True), ("update_reservation_flights", 21, True)]
    # the viewer's page shows the same record
    page = pages["aide"]
    assert f"record schema version {RECORD_SCHEMA_VERSION}" in page
    assert f'decline on <b>refuse_basic_economy_modify</b> at <a href="#m11">message 11</a>: <q class="excerpt">{cited[0][1]}</q>' in page
    assert page.count('write <b>update_reservation_flights</b>') == 2 and "no explicit yes" not in page
    assert f"{record.false_claims[0].truth}" in page.split("<h2>Record</h2>")[1]


def test_the_write_strict_names_is_the_records_write_without_a_yes(runs, pages):
    run = runs["toolorchestra"]
    trial, record = _trial(run), _record(run)
    assert trial.reward == 1.0 and trial.strict_reward == 0.0
    assert "message 6: modify_pending_order_items with no explicit yes" in trial.strict_reason
    assert [(w.tool, w.message_index) for w in record.writes_without_yes] == [("modify_pending_order_items", 6)]
    page = pages["toolorchestra"].split("<h2>Record</h2>")[1].split("<h2>Conversation</h2>")[0]
    assert 'write <b>modify_pending_order_items</b> at <a href="#m6">message 6</a>: <span class="weak-evidence">no explicit yes</span>' in page


def test_the_write_whose_details_were_never_listed_is_the_one_strict_names(runs, pages):
    """#40 item 1: the record's write says its details were not listed; strict fails that write (its yes read,
    the list not) and the viewer says so; the aide run's writes, listed and confirmed, say the opposite."""
    trial, record = _trial(runs["unlisted"]), _record(runs["unlisted"])
    assert trial.reward == 1.0 and trial.strict_reward == 0.0
    # #46 class 6: a yes answering no listing of the write confirms nothing, so strict names the missing yes first
    assert "no explicit yes" in trial.strict_reason and "message 8: modify_pending_order_items" in trial.strict_reason
    assert [(w.tool, w.message_index, w.confirmed, w.details_listed) for w in record.writes] == [
        ("modify_pending_order_items", 8, False, False)]
    page = pages["unlisted"].split("<h2>Record</h2>")[1].split("<h2>Conversation</h2>")[0]
    assert 'no details listed' in page
    assert all(w.details_listed for w in _record(runs["aide"]).writes) and "no details listed" not in pages["aide"]


def test_a_run_written_before_the_record_rebuilds_it_from_its_messages(runs):
    """The record rebuilt from the stored messages is the one scoring builds (and a sweep stores)."""
    from tau2.data_model.simulation import SimulationRun

    from envs import engine_for
    from loophole_scoring import score_simulation

    for name, run in runs.items():
        trial = _trial(run)
        raw = next(s for s in json.loads(real_run(CASES[name][0]).read_text())["simulations"]
                   if s["id"] == CASES[name][1])
        sim = SimulationRun.model_validate({**raw, "task_id": trial.task_id})
        scored = score_simulation(sim, trial.domain, trial.task_version, engine_for(trial.domain), None)
        rebuilt = stored_record(None, json.loads(trial.messages_json), trial.domain, trial.task_version, trial.task_id)
        assert scored.record is not None and rebuilt == scored.record == _record(run)


def test_a_record_of_another_schema_version_is_refused_naming_it(runs):
    stored = json.loads(_record(runs["aide"]).model_dump_json())
    # a record of version 1: its writes without ``details_listed``
    stored["schema_version"] = 1
    stored["writes"] = [{k: v for k, v in w.items() if k != "details_listed"} for w in stored["writes"]]
    with pytest.raises(RecordVersionError, match="record schema version 1; this harness reads version 2"):
        read_record(json.dumps(stored))
    with pytest.raises(RecordVersionError, match="record schema version None"):
        read_record("{}")


def test_the_explanation_is_stored_as_built_and_read_back_by_one_reader(runs):
    """#46 item 6: the stored explanation is the model, under the names it was built with (``problem``, the
    ``doubts`` a list), read back whole by ``read_explanation``; one of another version is refused naming it."""
    scores = store.read_table(runs["aide"], "scores")
    stored = [s for s in scores.explanation_json if isinstance(s, str)]
    assert stored
    for text in stored:
        explanation = read_explanation(text)
        assert explanation.schema_version == EXPLANATION_SCHEMA_VERSION
        assert explanation.to_json() == text  # nothing renamed or joined on the way: the same bytes back
    data = json.loads(stored[0])
    assert {"problem", "doubts", "evidence_required"} <= data.keys() and isinstance(data["doubts"], list)
    # version 1 (before the key): the problem as "problem", every doubt joined into one string
    old = {k: v for k, v in data.items() if k not in ("schema_version", "evidence_required")}
    with pytest.raises(ExplanationVersionError, match="explanation schema version 1; this harness reads version 2"):
        read_explanation(json.dumps({**old, "doubts": "; ".join(data["doubts"]) or None}))
    with pytest.raises(ExplanationVersionError, match="explanation schema version 3"):
        read_explanation(json.dumps({**data, "schema_version": 3}))
    with pytest.raises(ValueError, match="not JSON"):
        read_explanation("{")


def test_strict_and_the_credits_read_the_record_not_the_text(runs):
    """Strict and a variant's explanation take their facts from the record they are given: a record whose write
    lacks the user's yes fails both on that write, though the messages hold the yes; a record without the
    decline leaves the variant no evidence, though the messages hold it."""
    from envs import engine_for, load_task_set
    from gold_variants import explain_variant, variants_for
    from loophole_scoring import strict_verdict
    from loophole_scoring._why import tau2_messages

    run = runs["aide"]
    trial, record = _trial(run), _record(run)
    messages = tau2_messages(json.loads(trial.messages_json))
    task = load_task_set(trial.domain, trial.task_version).task(trial.task_id)
    engine = engine_for(trial.domain)
    assert strict_verdict(1.0, messages, trial.domain, trial.task_version, task, engine, record).reward == 1.0
    first = record.writes[0]
    unconfirmed = record.model_copy(update={"writes": [first.model_copy(update={"confirmed": False}),
                                                       *record.writes[1:]]})
    verdict = strict_verdict(1.0, messages, trial.domain, trial.task_version, task, engine, unconfirmed)
    assert verdict.reward == 0.0 and f"message {first.message_index}: {first.tool} with no explicit yes" in verdict.reason
    variant = next(v for v in variants_for(trial.domain, trial.task_version, trial.task_id) if v.gold_id == "L6.refuse")
    held = {p.name: p for p in explain_variant(variant, unconfirmed).preconditions}
    assert not held["writes_confirmed"].held and f"message {first.message_index}:" in held["writes_confirmed"].detail
    assert explain_variant(variant, record).evidence[0].message_index == 11
    declines = [d for d in record.declines if d.clause != "refuse_basic_economy_modify"]
    silent = explain_variant(variant, record.model_copy(update={"declines": declines}))
    assert [e.what for e in silent.evidence] == ["write", "write"] and silent.problem is not None


def test_a_conversation_is_read_once_and_an_edited_one_again():
    """Every reader of a trajectory reads its turns from one reading (``_evidence.read_turns`` keeps the last); a
    list holding another message, or the same message objects in another list, is read as it stands."""
    from tau2.data_model.message import AssistantMessage, UserMessage

    from conversation_reading._evidence import read_turns

    said = [AssistantMessage(role="assistant", content="Hi! How can I help?"),
            UserMessage(role="user", content="Please cancel my reservation.")]
    first = read_turns(said)
    assert read_turns(list(said)) == first  # the same messages in a new list: the same reading
    edited = [said[0], UserMessage(role="user", content="Please change my flight.")]
    assert [t.text for t in read_turns(edited)] == ["Hi! How can I help?", "Please change my flight."]
    assert [t.text for t in read_turns(said)] == ["Hi! How can I help?", "Please cancel my reservation."]


def test_the_viewer_of_a_run_written_before_the_record_shows_it_rebuilt(runs, pages, tmp_path):
    import shutil

    import pyarrow.parquet as pq

    old = tmp_path / "old"
    shutil.copytree(runs["aide"], old)
    table = pq.read_table(old / "trials.parquet")
    pq.write_table(table.remove_column(table.schema.get_field_index("record_json")), old / "trials.parquet")
    build_site(old, tmp_path / "site")
    trial = store.read_table(old, "trials").iloc[0]
    page = html.unescape((tmp_path / "site" / page_name(trial.trajectory_id)).read_text())

    def record_section(text: str) -> str:
        return text.split("<h2>Record</h2>")[1].split("<h2>Conversation</h2>")[0]

    assert "decline on <b>refuse_basic_economy_modify</b>" in record_section(page)
    assert record_section(page) == record_section(pages["aide"])


def test_scoring_reads_each_conversation_once_and_every_verdict_takes_that_record(monkeypatch):
    """#46 item 6: the record is read once per trajectory, before any verdict, and handed to strict and to every
    variant (aide's task 14: five variants, strict); no verdict reads the conversation into a record of its own,
    and scoring variants without the record is refused."""
    import conversation_reading
    import loophole_scoring._record as scoring_record
    from envs import engine_for
    from gold_variants import variants_for
    from loophole_scoring import score_simulation, score_trajectory
    from tests.conftest import AIDE, real_simulation

    reads: list[int] = []
    real = conversation_reading.conversation_record

    def counted(*args, **kwargs):
        reads.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(scoring_record, "conversation_record", counted)
    monkeypatch.setattr(conversation_reading, "conversation_record", counted)
    sim = real_simulation(AIDE, "14")
    variants = variants_for("airline", "tau2", "14")
    assert len(variants) > 1
    scored = score_simulation(sim, "airline", "tau2", engine_for("airline"), None)
    assert len(reads) == 1 and scored.record is not None
    assert {s.gold_id for s in scored.result.scores} >= {v.gold_id for v in variants}
    task = load_task_set("airline", "tau2").task("14")
    with pytest.raises(ValueError, match="the variants read the conversation's record"):
        score_trajectory(sim, task, engine_for("airline"), variants=variants)
