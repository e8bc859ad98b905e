"""An origin index for tau2's airline flight search, which scans every flight on every call.

``AirlineTools._search_direct_flight`` (behind ``search_direct_flight`` and, several times a call,
``search_onestop_flight``) walks all of ``db.flights`` and keeps a flight only if, first of all,
``origin is None or flight.origin == origin``, then ``destination is None or flight.destination ==
destination``: a third of a replay. Where ``origin`` is a ``str``, the flights that pass the first test are
exactly those of that origin (and where ``destination`` is one too, those that pass both are exactly those of
that route; the date, which can raise, is read only after both), so tau2's own function is run on a table of
just those (in the database's order, the records the table holds now): same results, same order, and the
same exception from the same first flight where an argument is bad. Any other ``origin`` takes the full scan.
No tool changes a flight's origin or adds or removes a flight; the index checks the table and its size anyway.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


class _FlightsByOrigin:
    """The toolkit's ``_search_direct_flight``, over the flights of the asked origin only."""

    def __init__(self, tools: Any, flights: dict) -> None:
        self._search = type(tools)._search_direct_flight  # tau2's function itself
        self._tools = tools
        self._flights = flights
        self._count = len(flights)
        self._by_origin: dict[str, list[Any]] = {}
        self._by_route: dict[tuple[str, str], list[Any]] = {}
        for key, flight in dict.items(flights):
            origin, destination = flight.origin, flight.destination
            if type(origin) is not str or type(destination) is not str:
                raise TypeError(f"flight {key!r} has a non-string origin or destination")
            self._by_origin.setdefault(origin, []).append(key)
            self._by_route.setdefault((origin, destination), []).append(key)

    def __call__(
        self, date: Any, origin: Any = None, destination: Any = None, leave_after: Any = None
    ) -> list[Any]:
        flights = self._flights
        if type(origin) is not str or self._tools.db.flights is not flights or len(flights) != self._count:
            return self._search(self._tools, date, origin, destination, leave_after)
        # dict's own reads, as the scan's ``values()``: a read touches (copies) no record
        keys = self._by_route.get((origin, destination), ()) if type(destination) is str else self._by_origin.get(origin, ())
        subset = {key: dict.__getitem__(flights, key) for key in keys}
        return self._search(SimpleNamespace(db=SimpleNamespace(flights=subset)), date, origin, destination, leave_after)


def index_flight_search(tools: Any, tables: dict[str, Any]) -> bool:
    """Give an airline toolkit its indexed flight search (an instance attribute over the class's method, which
    ``search_onestop_flight`` calls through ``self``); False where the toolkit has no such search."""
    if not hasattr(type(tools), "_search_direct_flight") or "flights" not in tables:
        return False
    tools._search_direct_flight = _FlightsByOrigin(tools, tables["flights"])
    return True
