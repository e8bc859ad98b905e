"""``replay_steps``: each gold action's kind, error and whether it changed the database, with a record's JSON written
only where its ``marshal`` bytes moved since the snapshot before (#47), answer as writing every touched record's JSON
after every step does, on every pinned task's gold of both domains at every task version here."""

from __future__ import annotations

import copy

import pytest

from envs import TASK_VERSIONS, engine_for, load_task_set, replay_steps
from envs import _records as records_module
from envs._records import record_json
from envs._steps import GoldStep
from envs._tracked import _MISSING


def _every_json(engine, actions) -> tuple[list[GoldStep], dict]:
    """``replay_steps`` as it was: every touched record's JSON after each step, compared with the step before's."""

    def snapshot() -> dict:
        return {(name, key): record_json(dict.get(table, key, _MISSING))
                for name, table in engine.tables.items() for key in table.touched()}

    steps: list[GoldStep] = []
    try:
        before = snapshot()
        for index, action in enumerate(actions):
            error = None
            try:
                engine.env.make_tool_call(tool_name=action.name, requestor=action.requestor,
                                          **copy.deepcopy(action.arguments))
            except Exception as exc:  # noqa: BLE001 - as replay_steps keeps a gold's error
                error = f"{type(exc).__name__}: {exc}"
            after = snapshot()
            changed = any(value != (before[key] if key in before else
                                    record_json(engine.tables[key[0]]._undo[key[1]])) for key, value in after.items())
            steps.append(GoldStep(index, action.action_id, action.name, engine.tool_kind(action.name), error, changed))
            before = after
    finally:
        state = engine._collect_and_restore()
    return steps, state


def _golds(domain: str) -> list[list]:
    found = []
    for version in TASK_VERSIONS:
        try:
            tasks = load_task_set(domain, version).tasks
        except Exception:  # noqa: BLE001 - a version whose data is not here
            continue
        found += [list(t.evaluation_criteria.actions or []) for t in tasks if t.evaluation_criteria is not None]
    return [g for g in found if g]


@pytest.mark.parametrize("refused", [False, True], ids=["bytes", "marshal refuses"])
@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_gold_steps_answer_as_writing_every_records_json_after_every_step(domain, refused, monkeypatch):
    if refused:  # every dump refused by marshal (``shot_of``): every JSON written, as before
        monkeypatch.setattr(records_module, "marshal_of", lambda dumped: None)
    engine = engine_for(domain)
    golds = _golds(domain)
    assert len(golds) > 100
    kinds = {"changed": 0, "unchanged write": 0, "error": 0}
    for actions in golds:
        ours = replay_steps(engine, actions)
        assert ours == _every_json(engine, actions), [a.action_id for a in actions]
        for step in ours[0]:
            kinds["changed"] += step.changed_db
            kinds["unchanged write"] += step.is_write and not step.changed_db and not step.error
            kinds["error"] += step.error is not None
    # each answer met, not only "changed": retail's golds hold writes that change nothing and writes that raise
    assert kinds["changed"] > 100 and (domain != "retail" or all(kinds.values())), kinds


def test_a_step_that_puts_a_record_back_as_it_was_changed_nothing():
    """A write that moves a user's address, one that puts it back, and the same again: the first two change the
    database against the step before each (the second back to its pristine JSON), the third changes nothing."""
    from tau2.data_model.tasks import Action

    engine = engine_for("retail")
    user_id = next(iter(engine.pristine_tools.db.users))
    address = engine.pristine_tools.db.users[user_id].address.model_dump()
    moved = {**address, "city": "Elsewhere"}
    actions = [Action(action_id=str(i), name="modify_user_address", arguments={"user_id": user_id, **where})
               for i, where in enumerate([moved, address, address])]
    steps, _ = replay_steps(engine, actions)
    assert [s.changed_db for s in steps] == [True, True, False]
    assert (steps, _) == _every_json(engine, actions)


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_gold_steps_replay_answers_as_the_gold_replay(domain):
    """``gold_steps``' replay (what scoring compares a trajectory with, and strict's gold writes read) is what
    ``replay_actions`` gives, state and errors, on every pinned gold of both domains; its steps are ``replay_steps``'."""
    from envs import ReplayEngine, gold_steps

    engine = ReplayEngine(domain)  # a fresh engine: nothing cached from another test
    errors = 0
    for actions in _golds(domain):
        steps, ours = gold_steps(engine, actions)
        theirs = engine.replay_actions(actions)
        assert (ours.state, ours.errors) == (theirs.state, theirs.errors), [a.action_id for a in actions]
        assert steps == replay_steps(engine, actions)[0]
        assert gold_steps(engine, list(actions))[1] is ours and engine.gold_outcome(actions) is ours  # one replay
        errors += bool(ours.errors)
    assert errors > 0 or domain == "airline"
