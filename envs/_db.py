"""A domain's tau2 database as tau2's ``DB.load`` gives it, read faster.

``DB.load`` is ``cls.model_validate(json.load(file))``. Here the file's bytes are decoded by msgspec, about twice
as fast as ``json`` (airline's 7 MB: 38 -> 20 ms, once per process that builds an environment: #47), from a
read-only mapping of the file (``_decoded``), and validated by the same model the same way; a file msgspec refuses (``NaN``, ``Infinity``, which ``json`` takes) is
read by ``DB.load`` itself. ``tests/test_db_load.py`` checks that both pinned databases come out equal, type for type.

Airline's flights hold 9,000 dated statuses, each a union of six models that tau2's ``Flight`` validates in pydantic's
smart mode: every member is tried in turn, and all but one fail on their ``status`` literal (26 of the load's 44 ms).
Each status literal names exactly one member, so the member the smart union settles on is the one its ``status``
names: the dates are validated by that discriminator (11 ms) and set on flights validated without them. Where the
union is not of that shape, or anything fails, the whole file goes through the model as before (its own error).
"""

from __future__ import annotations

import mmap
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Union, get_args

import msgspec
from pydantic import Field, PydanticUserError, TypeAdapter, ValidationError


def _db_of(domain: str) -> tuple[Any, Path]:
    """tau2's database model for ``domain`` and the file its ``get_environment`` loads."""
    if domain == "airline":
        from tau2.domains.airline.data_model import FlightDB
        from tau2.domains.airline.utils import AIRLINE_DB_PATH

        return FlightDB, Path(AIRLINE_DB_PATH)
    from tau2.domains.retail.data_model import RetailDB
    from tau2.domains.retail.utils import RETAIL_DB_PATH

    return RetailDB, Path(RETAIL_DB_PATH)


def load_db(domain: str) -> Any:
    """``domain``'s database, equal to ``DB.load`` of the file tau2's environment reads."""
    model, path = _db_of(domain)
    try:
        data = _decoded(path)
    except msgspec.DecodeError:  # JSON msgspec refuses but ``json`` reads: tau2's own loader
        return model.load(str(path))
    if domain == "airline":
        return _flights_dated_by_status(model, data)
    return model.model_validate(data)


def _decoded(path: Path) -> Any:
    """The JSON in ``path``, decoded from a read-only mapping of the file: its pages are the page cache's, where a read
    copies the 7 MB into as many fresh pages (1,600 page faults: 24 -> 20.7 ms of CPU once a process, #47). msgspec
    copies every string out, so nothing holds the mapping after (closing it would raise if anything did)."""
    with path.open("rb") as file:
        try:
            view = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except (ValueError, OSError):  # an empty file, or one that cannot be mapped: read as before
            return msgspec.json.decode(file.read())
        with view:
            return msgspec.json.decode(view)


def _flights_dated_by_status(model: Any, data: Any) -> Any:
    """``model.model_validate(data)`` for airline, each flight's dates validated by their status (module docstring)."""
    flights = data.get("flights") if isinstance(data, dict) else None
    by_status = _dates_by_status(model)
    if (by_status is None or not isinstance(flights, dict)
            or not all(isinstance(f, dict) and isinstance(f.get("dates"), dict) for f in flights.values())):
        return model.model_validate(data)
    try:
        dates = [by_status.validate_python(f["dates"]) for f in flights.values()]
        db = model.model_validate({**data, "flights": {n: {**f, "dates": {}} for n, f in flights.items()}})
    except ValidationError:
        return model.model_validate(data)  # the error tau2's own validation raises
    for flight, dated in zip(db.flights.values(), dates, strict=True):
        flight.__dict__["dates"] = dated  # as validated (the field is set: it was given), not validated again
    return db


@lru_cache(maxsize=4)
def _dates_by_status(model: Any) -> TypeAdapter | None:
    """A validator of a flight's ``dates`` whose union is told apart by ``status``, or None where the model's
    ``Flight.dates`` is not a dict of a union of models each with its own ``status`` literal (pydantic refuses it)."""
    try:
        flight = get_args(model.model_fields["flights"].annotation)[1]
        _, union = get_args(flight.model_fields["dates"].annotation)
        members = get_args(union)
        if len(members) < 2:
            return None
        by_status = Annotated[Union[members], Field(discriminator="status")]  # type: ignore[valid-type]  # noqa: UP007
        return TypeAdapter(dict[str, by_status])
    except (AttributeError, KeyError, IndexError, TypeError, ValueError, PydanticUserError):
        return None


__all__ = ["load_db"]
