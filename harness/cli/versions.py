"""``harness versions diff``: what tau3 changed against tau2."""

from __future__ import annotations

from pathlib import Path

import typer

app = typer.Typer(help="Compare task versions (tau2 against tau3).", no_args_is_help=True)


@app.command("diff")
def diff(
    domain: str = typer.Option(..., "--domain", help="airline or retail"),
    out: Path | None = typer.Option(None, "--out", help="Write one row per task and field (.parquet)."),
) -> None:
    """Count the tasks tau3 changed, per field, and check policy.md and db.json are identical."""
    from rich.console import Console
    from rich.table import Table

    from envs import check_domain
    from envs.versions import diff_versions

    check_domain(domain)
    if out is not None and out.suffix != ".parquet":
        raise typer.BadParameter(f"{out}: --out must end in .parquet", param_hint="--out")
    result = diff_versions(domain)
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
