"""``python -m harness.cli.docs [--check]``: the CLI reference, ``docs/cli.md``, generated from the typer app.

Every verb, its summary, its arguments and options (kind, default, help) as the app declares them, so the
reference cannot drift from the code: ``tests/test_cli_docs.py`` fails when ``docs/cli.md`` differs from what
this prints. Run it with no argument to rewrite the file.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HEADER = """# CLI reference

Generated from the typer app by `python -m harness.cli.docs`; do not edit by hand (a test fails when this
file and the app differ). `harness --help` and `harness VERB --help` print the same text in the terminal.

"""


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _commands(group: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    """(path, command) of every leaf command, depth first, in the app's order."""
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            yield from _commands(command, [*path, name])
        else:
            yield [*path, name], command


def _param_row(param: Any, ctx: Any) -> list[str]:
    names = ", ".join(f"`{o}`" for o in [*param.opts, *param.secondary_opts]) if param.param_type_name == "option" \
        else f"`{param.name.upper()}`"
    kind = param.display_type_rich(ctx) if hasattr(param, "display_type_rich") else ""
    default = ""
    if param.param_type_name == "option" and not param.required and param.default not in (None, False, (), []):
        default = f"`{param.default}`"
    help_text = getattr(param, "help", None) or ""
    return [names, _cell(kind or ""), "yes" if param.required else "", default, _cell(help_text)]


def reference() -> str:
    import typer

    from harness.cli._app import app

    root = typer.main.get_command(app)
    out = [HEADER, f"`harness`: {_cell(inspect.cleandoc(root.help or ''))}\n\n"]
    for p in root.params:
        if p.name != "help":
            out.append(f"Global option, before the verb: {', '.join(f'`{o}`' for o in p.opts)}: {_cell(getattr(p, 'help', ''))}\n\n")
    for path, command in _commands(root, []):
        ctx = typer.Context(command, info_name=" ".join(path))
        out.append(f"## `harness {' '.join(path)}`\n\n")
        out.append(inspect.cleandoc(command.help or "") + "\n\n")
        params = [p for p in command.params if p.name != "help"]
        if params:
            out.append("| argument / option | kind | required | default | help |\n| --- | --- | --- | --- | --- |\n")
            for p in params:
                out.append("| " + " | ".join(_param_row(p, ctx)) + " |\n")
            out.append("\n")
    return "".join(out).rstrip() + "\n"


def main() -> None:
    target = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
    from harness.cli._generated import write_or_check

    write_or_check(target, reference(), "the app", "harness.cli.docs")


if __name__ == "__main__":
    main()
