"""Names and links shared by the report and the viewer: a trial's page, the index filtered by the URL
hash, and counts as links to it."""

from __future__ import annotations

import hashlib
from urllib.parse import quote, urlencode

FILTERS = (
    "agent",
    "domain",
    "version",
    "task",
    "status",
    "strict",
    "single",
    "multi",
    "upper",
    "reading",
    "flips",
    "loophole",
)


def page_name(trajectory_id: str) -> str:
    """The trial page's path inside the site (a hash: trajectory ids hold slashes and colons)."""
    return f"t/{hashlib.sha256(trajectory_id.encode()).hexdigest()[:20]}.html"


def index_link(**filters: str | None) -> str:
    """``index.html#agent=...``: the index reads its filters from the hash."""
    unknown = set(filters) - set(FILTERS)
    if unknown:
        raise ValueError(f"unknown viewer filters: {sorted(unknown)}")
    query = urlencode({k: v for k, v in filters.items() if v not in (None, "")}, quote_via=quote)
    return "index.html" + (f"#{query}" if query else "")


def link(text: object, href: str | None) -> dict[str, str | None]:
    """A link as the templates take it (``macros.html`` ``piece``); ``href`` None: plain text."""
    return {"text": "" if text is None else str(text), "href": href}


class Links:
    """Counts as links to the viewer's index, filtered to the trials counted (plain text without a viewer)."""

    def __init__(self, viewer_href: str | None) -> None:
        self.base = viewer_href

    def count(self, n: object, **filters: str | None) -> dict[str, str | None]:
        return link(n, None if self.base is None else f"{self.base}/{index_link(**filters)}")

    def page(self, text: str, page: str) -> dict[str, str | None]:
        return link(text, None if self.base is None else f"{self.base}/{page}")
