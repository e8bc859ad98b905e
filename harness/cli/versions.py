"""``harness versions diff`` and ``harness versions counts``: what each task version changed against another."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(help="Compare task versions (any pair of tau2, tau3, verified).", no_args_is_help=True)


@app.command("diff")
def diff(
    domain: str = typer.Option(..., "--domain", help="airline or retail"),
    out: Path | None = typer.Option(None, "--out", help="Write one row per task and field (.parquet)."),
    old: str = typer.Option("tau2", "--from", help="The earlier task version: tau2, tau3 or verified."),
    new: str = typer.Option("tau3", "--to", help="The later task version: tau2, tau3 or verified."),
) -> None:
    """Count the tasks changed from --from to --to, per field, and check policy.md and db.json are identical."""
    from rich.console import Console
    from rich.table import Table

    from envs import check_domain, diff_versions

    check_domain(domain)
    _check_versions(old, new)
    if out is not None and out.suffix != ".parquet":
        raise typer.BadParameter(f"{out}: --out must end in .parquet", param_hint="--out")
    result = diff_versions(domain, old, new)
    console = Console()
    changed = result.changed_ids
    console.print(
        f"[bold]{domain}[/]: {len(changed)} of {result.n_old} tasks changed from "
        f"{result.old_version} to {result.new_version} (reward_basis excluded)"
    )
    table = Table("field", "tasks changed", "ids")
    for name, ids in result.changed_ids_by_field().items():
        table.add_row(name, str(len(ids)), " ".join(ids))
    console.print(table)
    console.print(f"changed ids: {' '.join(changed)}", soft_wrap=True)
    for check in result.files:
        verdict = "byte-identical" if check.identical else "DIFFERENT"
        console.print(f"{check.name}: {verdict} across versions ({check.detail})", soft_wrap=True)
    if out is not None:
        from loophole_store import write_versions_diff

        write_versions_diff(result, out)
        console.print(f"wrote {len(result.rows)} rows to {out}")


def _check_versions(*versions: str) -> None:
    from envs import TASK_VERSIONS

    for flag, version in zip(("--from", "--to"), versions, strict=False):
        if version not in TASK_VERSIONS:
            raise typer.BadParameter(f"{version!r} is not one of {list(TASK_VERSIONS)}", param_hint=flag)
    if len(versions) == 2 and versions[0] == versions[1]:
        raise typer.BadParameter(f"--from and --to are both {versions[0]!r}; nothing to compare", param_hint="--to")


@app.command("counts")
def counts(domain: str = typer.Option(..., "--domain", help="airline or retail")) -> None:
    """The three-way count table: for every pair of task versions, the tasks edited and the golds changed."""
    from itertools import combinations

    from rich.console import Console
    from rich.table import Table

    from envs import TASK_VERSIONS, check_domain, diff_versions

    check_domain(domain)
    table = Table("from", "to", "tasks", "tasks edited", "gold actions changed", "evaluation criteria changed",
                  "gold actions changed (ids)", title=f"{domain}: task versions compared pairwise")
    for old, new in combinations(TASK_VERSIONS, 2):
        result = diff_versions(domain, old, new)
        by_field = result.changed_ids_by_field()
        criteria = sorted({t for f in ("actions", "nl_assertions", "communicate_info", "env_assertions")
                           for t in by_field.get(f, [])}, key=lambda t: (len(t), t))
        actions = by_field.get("actions", [])
        table.add_row(old, new, str(result.n_old), str(len(result.changed_ids)), str(len(actions)),
                      str(len(criteria)), " ".join(actions))
    Console(width=160).print(table)


@app.command("readings")
def readings(domain: str = typer.Option(..., "--domain", help="airline or retail")) -> None:
    """For every loophole task, the reading each version's gold enacts, and where versions disagree."""
    from rich.console import Console
    from rich.table import Table

    from envs import TASK_VERSIONS, check_domain
    from gold_variants import readings_by_version

    check_domain(domain)
    rows = readings_by_version(domain)
    table = Table("task", "loophole", *TASK_VERSIONS, "versions", title=f"{domain}: the reading each version's gold takes")
    for r in rows:
        table.add_row(r["task_id"], r["loophole"], *(r[v] for v in TASK_VERSIONS),
                      "agree" if r["agree"] else "DISAGREE: " + " vs ".join(r["readings"]))
    console = Console(width=160)
    console.print(table)
    split = [r for r in rows if not r["agree"]]
    console.print(
        f"{len(rows)} loophole tasks; the versions' golds agree on {len(rows) - len(split)} and disagree on "
        f"{len(split)}" + (f" ({', '.join(r['task_id'] for r in split)})" if split else "")
        + ". Where they disagree, each version's single gold marks the other's reading as an error, while the "
        "policy text, identical in every version, admits both.",
        soft_wrap=True,
    )
