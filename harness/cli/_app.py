"""The typer app of the ``harness`` console script and its error handling (``harness.cli.main`` runs it).

Verb modules import tau2 lazily inside their commands, so ``harness --help`` stays fast.
"""

from __future__ import annotations

import inspect
import sys
from typing import Any

import typer

from harness._quiet import quiet_imports, set_log_level
from harness.cli import analyze as analyze_cmd
from harness.cli import audit as audit_cmd
from harness.cli import explain as explain_cmd
from harness.cli import leaderboard as leaderboard_cmd
from harness.cli import report as report_cmd
from harness.cli import rescore as rescore_cmd
from harness.cli import sweep as sweep_cmd
from harness.cli import variants as variants_cmd
from harness.cli import versions as versions_cmd
from harness.cli import view as view_cmd

quiet_imports()


def _readable_types() -> None:
    """Help shows a value's kind as click does (TEXT, INTEGER, PATH; ``...`` when repeatable) and nothing for
    a flag, instead of typer's ``<bool>`` and ``<list[str]>``."""
    from typer import core

    names = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT", "path": "PATH", "bool": "BOOLEAN"}

    def shown(kind: str | None) -> str | None:
        if kind is None or not (kind.startswith("<") and ">" in kind):
            return kind
        inner, rest = kind[1:kind.index(">")], kind[kind.index(">") + 1:]
        many = inner.startswith("list[") or rest == "..."
        inner = inner.removeprefix("list[").removesuffix("]").removesuffix(" range")
        return names.get(inner, inner.upper()) + ("..." if many else "")

    option_type, argument_type = core.TyperOption.display_type_rich, core.TyperArgument.display_type_rich

    def option(self: core.TyperOption, ctx: Any) -> str | None:
        return None if self.is_flag else shown(option_type(self, ctx))

    def argument(self: core.TyperArgument, ctx: Any) -> str | None:
        return shown(argument_type(self, ctx))

    core.TyperOption.display_type_rich = option  # type: ignore[method-assign]
    core.TyperArgument.display_type_rich = argument  # type: ignore[method-assign,assignment]


_readable_types()

app = typer.Typer(
    name="harness",
    help="Run and score tau2-bench agents single-gold and multi-gold (policy loopholes).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(asked: bool) -> None:
    """``harness --version``: the installed package's version and the checkout's git revision, then exit."""
    if not asked:
        return
    from importlib.metadata import version

    from loophole_store import git_revision

    revision = git_revision()
    print(f"harness {version('tau-loophole-harness')}" + (f" (git {revision})" if revision else ""))
    raise typer.Exit(0)


@app.callback()
def _root(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Show tau2's DEBUG logging and Ray's own log lines."),
    version: bool = typer.Option(False, "--version", is_eager=True, callback=_print_version,
                                 help="Print the harness's version and exit."),
) -> None:
    set_log_level(verbose)


app.add_typer(versions_cmd.app, name="versions")
app.add_typer(variants_cmd.app, name="variants")
app.add_typer(audit_cmd.app, name="audit")
rescore_cmd.register(app)
analyze_cmd.register(app)
report_cmd.register(app)
leaderboard_cmd.register(app)
sweep_cmd.register(app)
explain_cmd.register(app)
view_cmd.register(app)


def _reflowed(text: str) -> str:
    """Each paragraph of a docstring on one line: the help screen wraps it at the terminal's width, instead of
    keeping the source's line breaks mid-sentence (a blank line still starts a paragraph)."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(text).split("\n\n"))


def _reflow_help(group: typer.Typer) -> None:
    """Every verb's help, and its verbs' (``versions diff``), reflowed (``_reflowed``)."""
    for info in group.registered_commands:
        doc = info.help if isinstance(info.help, str) else (info.callback.__doc__ if info.callback else None)
        if doc:
            info.help = _reflowed(doc)
    for sub in group.registered_groups:
        if sub.typer_instance is not None:
            _reflow_help(sub.typer_instance)


_reflow_help(app)


def run() -> None:
    """Run the app on ``sys.argv``; every known error is one line and its exit code."""
    # Before anything imports tau2: its import-time warnings go through loguru.
    set_log_level(any(a in ("-v", "--verbose") for a in sys.argv[1:]))
    from envs import TauDataError, UnknownTaskError
    from loophole_base import HarnessError, cut

    try:  # typer >= 0.26 vendors click; older typer uses click itself
        from typer._click import exceptions as cx
    except ImportError:
        from click import exceptions as cx  # type: ignore[no-redef]  # the same module, unvendored

    try:
        # Not standalone: a bad flag is our one-line error, not click's usage box; help and exit codes as usual.
        code = app(standalone_mode=False, prog_name="harness")
    except cx.NoArgsIsHelpError:
        app([*sys.argv[1:], "--help"], prog_name="harness")
    except cx.UsageError as exc:
        where = exc.ctx.command_path if exc.ctx else "harness"
        print(f"error: {where}: {cut(exc.format_message(), 2000)}", file=sys.stderr)
        sys.exit(2)
    except cx.ClickException as exc:
        print(f"error: {cut(exc.format_message(), 2000)}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except typer.Abort:
        print("aborted", file=sys.stderr)
        sys.exit(130)
    except HarnessError as exc:
        print(f"error: {cut(str(exc), 2000)}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except (TauDataError, UnknownTaskError) as exc:  # envs' own errors (envs does not import harness)
        print(f"error: {cut(str(exc), 2000)}", file=sys.stderr)
        sys.exit(2)
    except OSError as exc:  # a full disk in a command that does not say more (rescore and sweep do)
        from loophole_base import DiskFull

        if not DiskFull.matches(exc):
            raise
        full = DiskFull.of(exc, "the output", "a file being replaced keeps its old content (writes are atomic)")
        print(f"error: {full}", file=sys.stderr)
        sys.exit(full.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
