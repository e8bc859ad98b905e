"""One way to keep a generated file in the tree: write it, or with ``--check`` exit 1 where it differs from what
its generator prints now (``python -m harness.cli.docs``, ``python -m harness.cli.report_golds``)."""

from __future__ import annotations

import sys
from pathlib import Path


def write_or_check(target: Path, text: str, source: str, module: str) -> None:
    """``text`` into ``target`` atomically; with ``--check`` on the command line, only compare (``source``: what
    the file is generated from, named in the error; ``module``: the generator to run again)."""
    if "--check" in sys.argv[1:]:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            print(f"error: {target} differs from {source}: run python -m {module}", file=sys.stderr)
            sys.exit(1)
        return
    from loophole_base import atomic_write_text

    atomic_write_text(target, text)
    print(f"wrote {target}")
