"""The replay engine's pristine toolkit (``envs.pristine_toolkit``, what the readers and the clause rules read as
``domain_tools`` / ``domain_db``) shares the records the engine's database was loaded with: it must stay the
database as tau2 loads it while replays write to the engine's tables, and the replays must still start from it."""

from __future__ import annotations

from tau2.data_model.tasks import Action

from envs import ReplayEngine, environment_constructor


def _dump(db) -> dict:  # noqa: ANN001 - a tau2 database
    return db.model_dump(mode="json")


def test_replays_write_to_the_engine_but_never_to_its_pristine_toolkit():
    engine = ReplayEngine("airline")
    loaded = _dump(environment_constructor("airline")().tools.db)
    pristine = engine.pristine_tools.db
    booked = next(r for r in pristine.reservations.values() if r.status != "cancelled")
    user = pristine.users[booked.user_id]
    actions = [
        Action(action_id="a0", name="cancel_reservation", arguments={"reservation_id": booked.reservation_id}),
        Action(action_id="a1", name="update_reservation_baggages", arguments={
            "reservation_id": booked.reservation_id, "total_baggages": 9, "nonfree_baggages": 9,
            "payment_id": next(iter(user.payment_methods))}),
    ]
    first = engine.replay_actions(actions)
    cancelled = first.state[("reservations", booked.reservation_id)]
    assert cancelled is not None and '"cancelled"' in cancelled  # the replay wrote to the engine's table
    assert _dump(pristine) == loaded  # ...and not to the records the pristine toolkit shares
    assert pristine.reservations[booked.reservation_id].status == booked.status
    second = engine.replay_actions(actions)  # the engine's tables were put back: the same replay, the same state
    assert second.state == first.state and second.errors == first.errors
    assert _dump(pristine) == loaded
    assert _dump(engine.db) == loaded  # between replays the engine's own tables are pristine too
