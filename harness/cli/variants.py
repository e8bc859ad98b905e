"""``harness variants check``: validate the gold variants and show which tasks each reading reaches."""

from __future__ import annotations

import typer

app = typer.Typer(help="Gold variants: one per defensible reading of each loophole.", no_args_is_help=True)


@app.command("check")
def check(
    policy_fix: list[str] = typer.Option([], "--policy-fix", help="Report which readings this fix rules out."),
) -> None:
    """Replay every variant, check outcomes are distinct, print the clause-level view."""
    from rich.table import Table

    from gold_variants import check_variants
    from harness.cli._console import output_console

    console = output_console(160)
    if policy_fix:
        _check_fixes(console, policy_fix)
        return
    report = check_variants()
    from envs import TASK_VERSIONS

    table = Table("loophole", "reading", *(f"{v} tasks" for v in TASK_VERSIONS))
    for (loophole, reading), per in sorted(report.applies.items()):
        table.add_row(loophole, reading, *(" ".join(per.get(v, [])) for v in TASK_VERSIONS))
    console.print(table)
    for note in report.notes:
        console.print(f"note: {note}", soft_wrap=True)
    for line in report.unreviewed:
        console.print(f"unreviewed: {line}", soft_wrap=True, markup=False)
    for problem in report.problems:
        console.print(f"[red]problem[/]: {problem}", soft_wrap=True)
    verdict = "ok" if report.ok else f"{len(report.problems)} problems"
    console.print(f"{report.n_variants} variants checked: {verdict}")
    if not report.ok:
        raise typer.Exit(1)


def _check_fixes(console, names: list[str]) -> None:
    from rich.table import Table

    from envs import TASK_VERSIONS, load_task_set
    from gold_variants import policy_fixes, readings_offered
    from loophole_base import HarnessInputError

    fixes = policy_fixes()
    problems = 0
    for name in names:
        if name not in fixes:
            raise HarnessInputError(f"--policy-fix: unknown fix {name!r}; known: {sorted(fixes)}")
        fix = fixes[name]
        fix.apply(load_task_set(fix.domain, "tau2").policy)  # the anchor must be verbatim in the policy
        table = Table("version", "task", "readings offered", "ruled out", "stays", title=f"policy fix {name} ({fix.loophole_id})")
        for version in TASK_VERSIONS:
            for task_id in load_task_set(fix.domain, version).task_ids():
                keep = fix.allowed_reading(fix.domain, version, task_id)
                if keep is None:
                    continue
                offered = readings_offered(fix.domain, version, task_id, fix.loophole_id)
                out = [r for r in offered if r != keep]
                problems += keep not in offered
                table.add_row(version, task_id, ", ".join(offered), ", ".join(out), keep if keep in offered else f"{keep} (not offered!)")
        console.print(table)
        console.print(f"added after: {fix.anchor!r}\n  {fix.add}", soft_wrap=True)
    if problems:
        raise typer.Exit(1)
