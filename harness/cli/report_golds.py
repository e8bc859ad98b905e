"""``python -m harness.cli.report_golds [--check]``: ``gold_variants/report_golds.yaml``, the gold actions the
task reports' alternatives borrow from another task version, generated from the pinned ``tasks.json`` files.

With no argument it rewrites the file; ``--check`` exits 1 where the file differs from what the pinned files
give (``tests/test_task_reports.py`` runs the same check). Needs every ``gold_from`` version's data
(``$HARNESS_TAU_DATA``); scoring does not.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    from envs import TauDataError
    from gold_variants import render_report_golds
    from harness.cli._generated import write_or_check

    target = Path(__file__).resolve().parents[2] / "gold_variants" / "report_golds.yaml"
    try:
        text = render_report_golds()
    except TauDataError as exc:  # the generator, unlike scoring, needs each gold_from version's file
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)
    write_or_check(target, text, "the pinned files", "harness.cli.report_golds")


if __name__ == "__main__":
    main()
