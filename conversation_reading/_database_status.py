"""A flight's status in a domain's pristine database (``_claims._status``), the lookup built once a domain: building
it (``db_flight_status`` over the database's flights table, the domain's import) on every status asked cost more
than the lookup itself (#47). Keyed by the domain alone: the pristine database is read-only and the same for every
conversation."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from policy_model import db_flight_status


@lru_cache(maxsize=4)
def database_status(domain: str) -> Callable[[str, str], str | None]:
    """``flight_status(domain_db(domain), ...)`` as one function of (flight number, date)."""
    # imported here, as ``_claims`` did: the package imports no pristine toolkit until a status is asked
    from conversation_reading._domain import domain_db

    return db_flight_status(domain_db(domain))


__all__ = ["database_status"]
