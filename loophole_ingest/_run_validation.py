"""tau2's ``SimulationRun.model_validate``, with each message validated by the one model its ``role`` can be.

tau2 types a message as a plain union of five models; pydantic tries a dict against each of them (every
member's ``role`` is a different literal, only ``tool`` is shared) and keeps the one that succeeds: about
half of a simulation's validation time (#47). Here the same schema has the union keyed by ``role``
(``tool``: ToolMessage or MultiToolMessage, the plain union as before), so a message is validated by the
member that alone could succeed: the same models, fields and defaults. Anything this validator refuses is
validated again by tau2's own model, whose error (or, where it accepts, whose result) is the answer:
the errors a user sees are tau2's, unchanged. tests/test_run_validation.py checks the two agree."""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

from pydantic import ValidationError
from pydantic_core import SchemaValidator
from tau2.data_model.simulation import SimulationRun


@cache
def _keyed_by_role() -> SchemaValidator | None:
    """SimulationRun's validator with the message union keyed by role; None where tau2's schema is not
    the shape this expects (a newer tau2): then tau2's own validator is used."""
    schema = copy.deepcopy(SimulationRun.__pydantic_core_schema__)
    try:
        items = schema["schema"]["fields"]["messages"]["schema"]["items_schema"]
        members: dict[str, list[Any]] = {}
        for choice in items["choices"]:
            model = choice[0] if isinstance(choice, tuple) else choice
            role = model["cls"].model_fields["role"].annotation.__args__[0]  # Literal["assistant"]
            members.setdefault(role, []).append(choice)
    except (KeyError, TypeError, AttributeError, IndexError):
        return None
    if items.get("type") != "union" or set(items) != {"type", "choices"}:
        return None
    tagged = {role: (found[0] if len(found) == 1 else {"type": "union", "choices": found})
              for role, found in members.items()}
    schema["schema"]["fields"]["messages"]["schema"]["items_schema"] = {
        "type": "tagged-union", "choices": tagged, "discriminator": "role"}
    # pydantic-core reuses a complete model's own validator for its schema, whatever the schema now says:
    # SimulationRun is marked incomplete while this one is built (its message models stay as built)
    complete = SimulationRun.__dict__.get("__pydantic_complete__", True)
    SimulationRun.__pydantic_complete__ = False
    try:
        return SchemaValidator(schema, schema.get("config"))
    finally:
        SimulationRun.__pydantic_complete__ = complete


def validate_run(payload: object) -> SimulationRun:
    """``SimulationRun.model_validate(payload)``: the same model, or tau2's own ``ValidationError``."""
    keyed = _keyed_by_role()
    if keyed is not None:
        try:
            return keyed.validate_python(payload)
        except ValidationError:
            pass
    return SimulationRun.model_validate(payload)
