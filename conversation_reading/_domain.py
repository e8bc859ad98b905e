"""A domain's pristine tau2 toolkit, read-only: its write tools (by tau2's own tool types), its database and a
flight's status in it. Claims of fact are checked against it here, and ``gold_variants``' rules inspect it."""

from __future__ import annotations

from typing import Any

from tau2.environment.toolkit import ToolType

from envs import locked_cache, pristine_toolkit
from policy_model import db_flight_status


@locked_cache(maxsize=2)
def domain_tools(domain: str) -> Any:
    """A pristine tau2 toolkit of the domain, read-only: rules inspect its database and tool types. The replay
    engine's (its database is loaded once per process, by whichever of them asks first, even when a worker's
    threads all ask at the same time)."""
    return pristine_toolkit(domain)


@locked_cache(maxsize=2)
def write_tools(domain: str) -> frozenset[str]:
    """The domain's write tools, by tau2's own tool types."""
    tools = domain_tools(domain)
    return frozenset(name for name in tools.tools if tools.tool_type(name) == ToolType.WRITE)


def domain_db(domain: str) -> Any:
    """The domain's pristine database, read-only (shared with the rules; loaded once)."""
    return domain_tools(domain).db


def flight_status(db: Any, flight_number: str, date: str) -> str | None:
    return db_flight_status(db)(flight_number, date)
