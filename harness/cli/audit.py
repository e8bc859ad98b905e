"""``harness audit policy`` (stage 1: clause analysis) and ``harness audit traces`` (stage 2: failing trials)."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from envs import Domain, TaskVersion

app = typer.Typer(help="The paper's two-stage audit.", no_args_is_help=True)


@app.command("policy")
def policy(
    domain: str = typer.Option(..., "--domain", help="airline or retail"),
    policy_file: Path | None = typer.Option(None, "--policy", help="Audit this policy text instead of the pinned one."),
    model: str | None = typer.Option(None, "--model", help="litellm model for the four diagnostic tests."),
    api_base: str | None = typer.Option(None, "--api-base", help="api_base for --model."),
    out: Path | None = typer.Option(None, "--out", help="Write candidates (Parquet, Markdown) and the profile to this new folder."),
) -> None:
    """Split the policy into clauses; print the structural profile (both domains); with --model, run the
    scope, boundary, composition and assumption tests per clause."""
    with contextlib.ExitStack() as stack:
        _policy(domain, policy_file, model, api_base, out, stack)


def _policy(domain: str, policy_file: Path | None, model: str | None, api_base: str | None, out: Path | None,
            stack: contextlib.ExitStack) -> None:
    import pyarrow as pa
    from rich.table import Table

    from analysis import PAPER_PROFILE, llm_audit, split_clauses, structural_profile
    from envs import DOMAINS, check_domain, load_task_set
    from loophole_base import atomic_folder, atomic_write_table, atomic_write_text

    check_domain(domain)
    if out is not None:  # built whole and swapped in at the end; a folder holding a user's files is refused
        out = stack.enter_context(atomic_folder(out, made_by="harness audit policy", label="--out"))
    from harness.cli._console import output_console

    console = output_console(180)
    texts: dict[str, str] = {d: load_task_set(d, "tau2").policy for d in DOMAINS}
    if policy_file is not None:
        if not policy_file.is_file():
            raise typer.BadParameter(f"{policy_file}: no such file", param_hint="--policy")
        texts[domain] = policy_file.read_text(encoding="utf-8")
    profiles = []
    for d in [domain, *[x for x in DOMAINS if x != domain]]:
        prof = structural_profile(d, texts[d]).assign(paper=PAPER_PROFILE[d])
        profiles.append(prof)
        t = Table("measure", "ours", "paper", "how counted", title=f"structural profile: {d}")
        for r in prof.itertuples(index=False):
            t.add_row(r.measure, str(r.count), str(r.paper), r._2)
        console.print(t)
    console.print(
        "Differences from the paper's Table 2 come from counting rules: we count clauses (bullets and sentences) "
        "and guarded 'raise' statements in tau2's toolkit source mechanically; the paper counted by hand.",
        soft_wrap=True,
    )
    clauses = split_clauses(texts[domain])
    console.print(f"{domain}: {len(clauses)} clauses")
    if out is not None:
        import pandas as pd

        atomic_write_table(pa.Table.from_pandas(pd.concat(profiles), preserve_index=False),
                                 out / "structural_profile.parquet")
    if model is None:
        console.print("no --model: the LLM diagnostic tests were not run (structural profile only)")
        return
    args = {"api_base": api_base} if api_base else {}
    result = llm_audit(domain, clauses, model, args)
    for failure in result.failures:
        console.print(f"[yellow]not audited[/]: {failure}", soft_wrap=True)
    console.print(f"{len(result.candidates)} candidate loophole findings in {result.candidates.clause_id.nunique()} clauses; "
                  f"{result.candidates.catalog_entry.notna().sum()} match a catalog entry")
    if out is not None:
        atomic_write_table(pa.Table.from_pandas(result.candidates, preserve_index=False), out / "candidates.parquet")
        atomic_write_text(out / "candidates.md", result.candidates.to_markdown(index=False) if len(result.candidates) else "none\n")


@app.command("traces")
def traces(
    run_dir: Path = typer.Argument(..., help="A run directory (from rescore or sweep)."),
    out: Path | None = typer.Option(None, "--out", help="Write the table here (default: RUN_DIR/audit_traces.parquet)."),
) -> None:
    """For every failing trial: the reading it took, the clause, the three criteria, exclusions, attribution."""
    import pyarrow as pa
    from rich.table import Table

    from analysis import audit_traces
    from harness.app._analyze import load_trials
    from harness.cli._console import output_console
    from loophole_base import atomic_write_table

    console = output_console(180)
    dest = out or run_dir / "audit_traces.parquet"
    _check_replaceable_table(dest)
    table = audit_traces(load_trials(run_dir))
    marked = pa.Table.from_pandas(table, preserve_index=False)
    marked = marked.replace_schema_metadata({**(marked.schema.metadata or {}), _MADE_BY: b"harness audit traces"})
    atomic_write_table(marked, dest)
    summary = table.groupby(["agent", "attribution"]).size().rename("failing trials").reset_index()
    t = Table("agent", "attribution", "failing trials", title=f"stage-2 audit of {run_dir}")
    for r in summary.itertuples(index=False):
        t.add_row(str(r.agent), str(r.attribution), str(r._2))
    console.print(t)
    console.print(f"{len(table)} failing trials; wrote {dest}", soft_wrap=True)


_MADE_BY = b"harness_made_by"


def _check_replaceable_table(dest: Path) -> None:
    """Replace ``dest`` only where it is an audit table this verb wrote (its Parquet metadata says so):
    never a user's file of the same name."""
    import pyarrow.parquet as pq

    from loophole_base import HarnessInputError, shown

    if not (dest.exists() or dest.is_symlink()):
        return
    try:
        ours = not dest.is_symlink() and dest.is_file() and (pq.read_schema(dest).metadata or {}).get(
            _MADE_BY) == b"harness audit traces"
    except Exception:  # noqa: BLE001 - not Parquet at all: a user's file
        ours = False
    if not ours:
        raise HarnessInputError(f"--out {shown(dest)}: exists and is not an audit table `harness audit traces` "
                                "wrote; refusing to replace it: choose a new file")


@app.command("golds")
def golds(
    domain: list[str] = typer.Option([], "--domain", help="airline or retail (repeat; default both)."),
    task_version: list[str] = typer.Option([], "--task-version", help="tau2, tau3 or verified (repeat; default all)."),
    out: Path | None = typer.Option(None, "--out", help="Write golds.parquet and version_conflicts.parquet here."),
    judge: str | None = typer.Option(None, "--judge", help="litellm model for NL assertions (else: 'needs judge')."),
    judge_api_base: str | None = typer.Option(None, "--judge-api-base", help="api_base for --judge."),
    judge_api_key_env: str | None = typer.Option(None, "--judge-api-key-env", help="Variable holding the judge's key."),
) -> None:
    """The reward contract of every task: gold writes that raise on replay (broken golds), whether doing
    nothing passes, the reward basis, the gold actions the reward cannot see, and golds that differ
    between versions on the same instructions."""
    from analysis import audit_golds
    from envs import DOMAINS, TASK_VERSIONS, check_domain, check_version
    from harness.cli._console import output_console
    from loophole_scoring import JudgeSpec

    domains = [check_domain(d) for d in dict.fromkeys(domain)] or list(DOMAINS)
    versions = [check_version(v) for v in dict.fromkeys(task_version)]
    absent: dict[str, str] = {}
    if not versions:  # every version whose data is here; the others are named, never left out silently
        versions, absent = _versions_present(domains, TASK_VERSIONS)
    built = None
    if judge == "recorded":
        raise typer.BadParameter("'recorded' needs a results file; name a litellm model", param_hint="--judge")
    if judge:
        args = (("api_base", judge_api_base),) if judge_api_base else ()
        built = JudgeSpec(judge, args, judge_api_key_env).build()
    console = output_console(200)
    result = audit_golds(domains, versions, judge=built)
    for line in result.summary_lines():
        console.print(line, soft_wrap=True, markup=False, highlight=False)
    for version, why in absent.items():
        console.print(f"not audited: {version} ({why})", soft_wrap=True, markup=False, highlight=False)
    conflicts = result.conflict_lines()
    console.print(f"{len(conflicts)} tasks whose golds differ between versions on the same instructions",
                  soft_wrap=True, highlight=False)
    for line in conflicts:
        console.print(f"  {line}", soft_wrap=True, markup=False, highlight=False)
    if out is not None:
        import pyarrow.parquet as pq

        from loophole_base import atomic_folder

        with atomic_folder(out, made_by="harness audit golds", label="--out") as tmp:  # a user's folder is refused
            pq.write_table(result.golds_table(), tmp / "golds.parquet")
            pq.write_table(result.conflicts_table(), tmp / "version_conflicts.parquet")
        console.print(f"wrote {out / 'golds.parquet'} ({len(result.golds)} rows) and {out / 'version_conflicts.parquet'}",
                      soft_wrap=True, markup=False, highlight=False)


def _versions_present(domains: Sequence[Domain], versions: Sequence[TaskVersion]
                      ) -> tuple[list[TaskVersion], dict[str, str]]:
    """The versions whose task data every domain asked for has here (τ² always: the package ships it), and
    for each other version how to supply its data."""
    from envs import TauDataError, load_task_set

    present: list[TaskVersion] = []
    absent: dict[str, str] = {}
    for version in versions:
        try:
            for d in domains:
                load_task_set(d, version)
        except TauDataError:
            files = " and ".join(f"DIR/{version}/{d}/tasks.json" for d in domains)
            absent[version] = (f"its data is not available here: set HARNESS_TAU_DATA=DIR holding {files}, "
                               "or let the harness download them into its cache once (online, HARNESS_OFFLINE unset)")
            continue
        present.append(version)
    return present, absent
