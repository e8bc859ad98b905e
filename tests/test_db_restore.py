"""Live and replay databases come back pristine: after an exception mid-trial, and after many replays."""

from __future__ import annotations

import pytest
from tau2.data_model.message import ToolCall, ToolMessage

from envs import DatabasePool, ReplayEngine, environment_constructor, load_task_set


def _dump(db) -> str:
    return db.model_dump_json()


@pytest.fixture(scope="module")
def pristine() -> str:
    return _dump(environment_constructor("airline")().tools.db)


def _write_actions():
    task = load_task_set("airline", "tau2").task("32")  # reads, a cancellation, a booking
    return [a for a in task.evaluation_criteria.actions]


def test_pool_restores_the_database_after_an_exception_mid_trial(pristine):
    pool = DatabasePool()
    with pytest.raises(RuntimeError, match="mid-trial"):
        with pool.database("airline") as db:
            env = environment_constructor("airline")(db=db)
            for action in _write_actions():
                env.make_tool_call(tool_name=action.name, requestor="assistant", **action.arguments)
            assert _dump(db) != pristine  # the trial did write
            raise RuntimeError("mid-trial")
    with pool.database("airline") as again:  # the same slot, handed to the next trial
        assert again is db and _dump(again) == pristine


def test_replay_engine_restores_after_an_exception_mid_replay(pristine):
    engine = ReplayEngine("airline")
    action = next(a for a in _write_actions() if a.name.startswith(("cancel", "book", "update")))

    def pairs():
        call = ToolCall(
            id="c1", name=action.name, arguments=action.arguments, requestor="assistant"
        )
        yield call, ToolMessage(id="c1", role="tool", content="{}", requestor="assistant")
        assert _dump(engine.db) != pristine
        raise RuntimeError("trajectory broke off")

    with pytest.raises(RuntimeError, match="broke off"):
        engine.replay_trajectory(pairs())
    assert _dump(engine.db) == pristine


def test_replay_engine_is_pristine_after_every_gold_of_the_domain(pristine):
    engine = ReplayEngine("airline")
    tasks = load_task_set("airline", "tau2").tasks
    changed = 0
    for task in tasks:
        result = engine.replay_actions(task.evaluation_criteria.actions or [])
        changed += not engine.states_equal(result.state, {})
    assert changed >= 20  # the golds really wrote
    assert _dump(engine.db) == pristine


def _recorded(path: str):
    from loophole_ingest import import_results_file

    run = import_results_file(path)
    return run.domain, [item.sim for item in run.iter_simulations() if item.sim is not None]


@pytest.mark.parametrize("name", ["whissle_airline_tau3_1trial.json", "*retail*"])
def test_leaving_unchanged_records_in_place_replays_as_putting_every_record_back(name, monkeypatch):
    """A replay puts back only the touched records whose JSON changed (a record a write tool only read stays
    where it stands). On the real runs of both domains every replay, in both modes, and the database after
    them, are what they are when every touched record is put back (a fresh copy of its pristine record)."""
    import glob

    from envs import ReplayMode, tool_call_pairs
    from tests.conftest import SHARED

    path = sorted(glob.glob(str(SHARED / "real-runs" / name)))[0]
    domain, sims = _recorded(path)
    lazy, every = ReplayEngine(domain), ReplayEngine(domain)
    # no JSON equals the pristine stand-in, and no marshal bytes are known: every touched record is put back
    monkeypatch.setattr(every, "_pristine_of", lambda *_: (object(), None))
    pristine = _dump(environment_constructor(domain)().tools.db)
    left = 0
    for _ in range(2):  # the second pass replays on records the first left in place
        for sim in sims[:40]:
            for mode in (ReplayMode.LENIENT, ReplayMode.STRICT):
                pairs = tool_call_pairs(sim.messages)
                a, b = lazy.replay_trajectory(pairs, mode), every.replay_trajectory(pairs, mode)
                assert (a.state, a.mismatches, a.normalised, a.flags) == (b.state, b.mismatches, b.normalised, b.flags)
                left += sum(lazy._pristine.get(k) == v for k, v in a.state.items())
    assert left > 0  # some touched records were left in place
    assert _dump(lazy.db) == _dump(every.db) == pristine
