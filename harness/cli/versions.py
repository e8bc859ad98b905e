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
    from envs import check_domain, diff_versions
    from harness.cli._console import output_console
    from harness.cli._tables import Col, print_table

    check_domain(domain)
    _check_versions(old, new)
    if out is not None and out.suffix != ".parquet":
        raise typer.BadParameter(f"{out}: --out must end in .parquet", param_hint="--out")
    result = diff_versions(domain, old, new)
    console = output_console(160)
    changed = result.changed_ids
    console.print(
        f"[bold]{domain}[/]: {len(changed)} of {result.n_old} tasks changed from "
        f"{result.old_version} to {result.new_version} (reward_basis excluded)"
    )
    rows = [[name, str(len(ids)), " ".join(ids)] for name, ids in result.changed_ids_by_field().items()]
    print_table(console, [Col("field"), Col("tasks changed", justify="right"), Col("ids", "wrap")], rows)
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

    from envs import TASK_VERSIONS, check_domain, diff_versions
    from harness.cli._console import output_console
    from harness.cli._tables import Col, print_table

    check_domain(domain)
    rows = []
    for old, new in combinations(TASK_VERSIONS, 2):
        result = diff_versions(domain, old, new)
        by_field = result.changed_ids_by_field()
        criteria = sorted({t for f in ("actions", "nl_assertions", "communicate_info", "env_assertions")
                           for t in by_field.get(f, [])}, key=lambda t: (len(t), t))
        actions = by_field.get("actions", [])
        rows.append([old, new, str(result.n_old), str(len(result.changed_ids)), str(len(actions)),
                     str(len(criteria)), " ".join(actions)])
    cols = [Col("from"), Col("to"), Col("tasks", justify="right", rank=3), Col("tasks edited", justify="right"),
            Col("gold actions changed", justify="right"), Col("evaluation criteria changed", justify="right"),
            Col("gold actions changed (ids)", "wrap")]
    print_table(output_console(160), cols, rows, title=f"{domain}: task versions compared pairwise")


@app.command("readings")
def readings(domain: str = typer.Option(..., "--domain", help="airline or retail")) -> None:
    """For every loophole task, the reading each version's gold enacts, and where versions disagree."""
    from envs import TASK_VERSIONS, check_domain
    from gold_variants import readings_by_version
    from harness.cli._console import output_console
    from harness.cli._tables import Col, print_table

    check_domain(domain)
    rows = readings_by_version(domain)
    cells = [[r["task_id"], r["loophole"], *(r[v] for v in TASK_VERSIONS),
              "agree" if r["agree"] else "DISAGREE: " + " vs ".join(r["readings"])] for r in rows]
    # the verdict first; a narrow terminal leaves out the versions' readings from the last (the verdict names them)
    cols = [Col("task"), Col("loophole"), *(Col(v, rank=i + 1) for i, v in enumerate(TASK_VERSIONS)),
            Col("versions", "wrap")]
    console = output_console(160)
    print_table(console, cols, cells, title=f"{domain}: the reading each version's gold takes")
    split = [r for r in rows if not r["agree"]]
    console.print(
        f"{len(rows)} loophole tasks; the versions' golds agree on {len(rows) - len(split)} and disagree on "
        f"{len(split)}" + (f" ({', '.join(r['task_id'] for r in split)})" if split else "")
        + ". Where they disagree, each version's single gold marks the other's reading as an error, while the "
        "policy text, identical in every version, admits both.",
        soft_wrap=True,
    )
