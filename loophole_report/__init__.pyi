"""The HTML for readers: the run report and the static trial viewer."""

from ._report import (
    REPORT_MARK,
    check_report_out,
    figure_data,
    write_report,
)
from ._serve import (
    serve,
)
from ._viewer import (
    VIEWER_MADE_BY,
    SiteStats,
    build_site,
    check_site_out,
)

__all__ = [
    "build_site",
    "check_report_out",
    "check_site_out",
    "figure_data",
    "REPORT_MARK",
    "serve",
    "SiteStats",
    "VIEWER_MADE_BY",
    "write_report",
]
