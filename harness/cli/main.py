"""Entry point of the ``harness`` console script.

Light on purpose: Ctrl-C is handled from the first line of ``main`` on, before typer, the verbs or Ray are
imported (``harness._interrupt``); the app itself is in ``harness.cli._app``.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def main() -> None:
    from harness._interrupt import interrupt_line, interrupts_raise

    with interrupts_raise():
        try:
            from harness.cli._app import run

            run()
        except SystemExit:
            raise
        except BaseException as exc:
            line = interrupt_line(exc)
            if line is None:
                raise
            print(f"error: {line}", file=sys.stderr)
            sys.stdout.flush()
            sys.stderr.flush()
            # Not sys.exit: an interrupt inside Ray's start leaves Ray half up, and its exit hook can crash
            # the process (SIGSEGV instead of 130). Everything finished is written (writes are atomic), and
            # Ray's reaper stops the processes this one started.
            os._exit(130)


def __getattr__(name: str) -> Any:
    if name == "app":  # the typer app, for tests and the generated CLI reference
        from harness.cli._app import app

        return app
    raise AttributeError(name)


if __name__ == "__main__":
    main()
