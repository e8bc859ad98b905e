"""Entry point of the ``harness`` console script.

Light on purpose: Ctrl-C is handled from the first line of ``main`` on, before typer, the verbs or Ray are
imported (``harness._interrupt``); the app itself is in ``harness.cli._app``.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def main() -> None:
    from harness._interrupt import interrupt_line, interrupts_raise, received

    with interrupts_raise():
        try:
            from harness.cli._app import run

            run()
        except SystemExit as exc:
            if exc.code == 130 and received() is not None:  # the interrupt's line is printed (a sweep's count)
                _exit_interrupted()
            raise
        except BaseException as exc:
            line = interrupt_line(exc)
            if line is None:
                raise
            print(f"error: {line}", file=sys.stderr)
            _exit_interrupted()


def _exit_interrupted() -> None:
    """Exit 130 after an interrupt's line, without the interpreter's exit hooks.

    Not sys.exit: an interrupt leaves Ray up (half up, inside its start), and Ray's exit hook then sleeps,
    stops its processes one by one and can crash the process while collecting its objects (SIGSEGV instead
    of 130). Everything finished is written (writes are atomic), and Ray's reaper stops the processes this
    one started."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def __getattr__(name: str) -> Any:
    if name == "app":  # the typer app, for tests and the generated CLI reference
        from harness.cli._app import app

        return app
    raise AttributeError(name)


if __name__ == "__main__":
    main()
