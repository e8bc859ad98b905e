"""The table of what each of the program's own patterns needs (``_gate.needs``), written as Python source.

Reading a pattern's needs parses it again with ``re._parser``, walks the parse and compiles its gate: about 30 ms of
CPU a process for the ~110 patterns a rescore reads, a once-a-process cost that a short rescore feels (#47). The
answers depend on nothing but each pattern's source and flags, so ``_gate_needs.py`` holds them, keyed on those:
each pattern's requirements and its gate as a ``lambda`` (compiled with the module, cached as bytecode by Python).
A pattern not in it (a source edited since, a pattern built at run time) is read as before; ``tests/test_gate_table.py``
fails where the table is not what this module writes now. To write it: ``python -m conversation_reading._gate_tabulate``.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import pkgutil
import re
import sys
from pathlib import Path
from typing import Any

import conversation_reading
from conversation_reading import _gate

TABLE = Path(__file__).with_name("_gate_needs.py")

_HEADER = '''"""What each of the program's own patterns needs (``_gate.needs``), by (source, flags): its requirements and its gate,
None where the gate holds an automaton (built at run time). Written by ``python -m conversation_reading._gate_tabulate``;
do not edit (``tests/test_gate_table.py``)."""

# Over 400 lines: one entry per line, written by a program.
# ruff: noqa
from typing import Any

NEEDS: dict[tuple[str, int], tuple[list[Any], Any]] = {
'''


def _walk(value: Any, found: set[tuple[str, int]], depth: int = 0) -> None:
    """Every compiled pattern held in ``value`` (containers, dataclasses, the package's own objects)."""
    if depth > 6:
        return
    if isinstance(value, re.Pattern):
        if isinstance(value.pattern, str):
            found.add((value.pattern, value.flags))
    elif isinstance(value, list | tuple | set | frozenset):
        for item in value:
            _walk(item, found, depth + 1)
    elif isinstance(value, dict):
        for item in value.values():
            _walk(item, found, depth + 1)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            _walk(getattr(value, f.name), found, depth + 1)
    elif not isinstance(value, type) and type(value).__module__.startswith("conversation_reading"):
        _walk(getattr(value, "__dict__", {}), found, depth + 1)


def catalog() -> list[tuple[str, int]]:
    """The (source, flags) of every pattern the package holds: its modules' globals, the vocabulary, the claim kinds
    and the message scans' patterns (in a fresh process: later, its caches hold patterns made at run time too)."""
    from conversation_reading._claims import claim_kinds
    from conversation_reading._message_scan import gated_patterns
    from conversation_reading._vocabulary import vocabulary

    for module in pkgutil.iter_modules(conversation_reading.__path__):
        if module.name != TABLE.stem:
            importlib.import_module(f"conversation_reading.{module.name}")
    found: set[tuple[str, int]] = set()
    for name, loaded in list(sys.modules.items()):
        if name.startswith("conversation_reading.") and name != f"conversation_reading.{TABLE.stem}":
            for value in list(vars(loaded).values()):
                _walk(value, found)
    for value in (vocabulary(), claim_kinds(), gated_patterns("assistant"), gated_patterns("user")):
        _walk(value, found)
    return sorted(found)


def _literal(requirement: Any) -> str:
    """A requirement (or a list of them) as Python source; a group's words sorted, so the text is the same each run."""
    if isinstance(requirement, frozenset):
        return f"frozenset({{{', '.join(map(repr, sorted(requirement)))}}})" if requirement else "frozenset()"
    if isinstance(requirement, list):
        return f"[{', '.join(map(_literal, requirement))}]"
    return f"({''.join(_literal(alternative) + ', ' for alternative in requirement)})"


def _entry(source: str, flags: int) -> str:
    try:
        found = _gate._requirements(list(_gate._p.parse(source, flags)))
    except Exception:  # noqa: BLE001 - as ``_gate._needs``: no gate, always scan
        found = []
    scans: dict[str, Any] = {}
    check: str | None = "lambda s: " + ast.unparse(_gate._expression(found, scans))
    try:
        compile(check or "", "<gate>", "eval")
    except (SyntaxError, RecursionError, MemoryError):  # as ``_gate._needs``: walked at run time
        check = None
    return f"    ({source!r}, {flags}): ({_literal(found)}, {None if scans else check}),\n"


def render() -> str:
    """The table's source, as ``_gate_needs.py`` must hold it."""
    return _HEADER + "".join(_entry(source, flags) for source, flags in catalog()) + "}\n"


if __name__ == "__main__":  # in a fresh process: a long-lived one's caches hold patterns made at run time
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if render() == TABLE.read_text(encoding="utf-8") else f"{TABLE} is stale: run {__spec__.name}")
    TABLE.write_text(render(), encoding="utf-8")
    print(f"wrote {TABLE}")
