"""``harness sweep CONFIG``: run a sweep on Ray, with progress, and print single- and multi-gold results."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.cli._tables import Col, percent, print_table, shorten_middle


def register(app: typer.Typer) -> None:
    app.command("sweep")(sweep)


def sweep(
    config_path: Path = typer.Argument(..., help="A sweep config (YAML)."),
    workers: int | None = typer.Option(
        None, "--workers", help="Ray worker actors (default: from cores)."
    ),
) -> None:
    """Run (or resume) the trials of a sweep config; the output directory is its Parquet store."""
    from harness import sweep as run_sweep
    from harness.app._sweep import load_config
    from harness.cli._console import output_console, stderr_console
    from harness.cli._progress import phase_bar

    config = load_config(config_path)
    console = output_console(160)
    console.print(f"sweep {config.name} ({config.sweep_id()}) → {config.output_dir()}", soft_wrap=True)
    with phase_bar(stderr_console()) as bar:

        def note(line: str) -> None:  # first failure of each kind, provenance changes: on stderr, above the bar
            bar.console.print(line, soft_wrap=True, markup=False, highlight=False)

        task = None

        def update(p) -> None:
            nonlocal task
            if task is None:
                task = bar.add_task("sweep", total=p.total, phase=p.phase)
                if p.done_before:
                    note(f"resuming: {p.done_before} of {p.total} trials kept from {config.output_dir()}; "
                         f"{p.total - p.done_before} to run")
            bar.update(task, completed=sum(p.per_agent.values()), phase=p.phase, details=_details(p))
            if p.phase == "done":
                bar.stop_task(task)  # the time stops: the finished line shows how long the sweep took

        result = run_sweep(config_path, workers=workers, on_progress=update, on_note=note, config=config)
    progress = result.progress
    print_summary(console, result.out)
    _stop_ray()
    if progress.stopped:
        left = progress.total - progress.done_before - progress.statuses.total()
        console.print(
            f"stopped: {progress.stopped}: ${progress.cost_usd:.4f} spent of max_cost_usd ${config.max_cost_usd:g}; "
            f"{left} trials not run; raise max_cost_usd and run the sweep again to continue", soft_wrap=True,
        )
        raise typer.Exit(4)


def _stop_ray() -> None:
    """Stop Ray once the results are printed: its exit hook would do it too, but after sleeping half a
    second for worker log lines that a sweep never forwards (``log_to_driver=False``)."""
    import sys

    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()


def _details(p) -> list[str]:
    """The progress line's details, most important first (a narrow terminal leaves out the last ones); none
    before the trials start (Ray's start says its phase, the counts and the time)."""
    if p.phase not in ("running", "writing", "done"):
        return []
    rate, eta = p.throughput_per_min(), p.eta_s()
    failures = f"failures: agent {p.agent_errors}, infra {p.infra_errors}, other {p.errors}"
    when = f"ETA {int(eta // 60)}m{int(eta % 60):02d}s" if eta is not None else "ETA -"
    pace = f"{rate:.1f} trials/min" if rate else "- trials/min"
    agents = " ".join(f"{a} {p.per_agent[a]}/{p.per_agent_total[a]}" for a in sorted(p.per_agent_total))
    if p.phase != "running":  # what is left to do: nothing to wait for
        return [failures, f"${p.cost_usd:.2f}", pace, f"retries {p.retries}", agents]
    return [when, failures, f"${p.cost_usd:.2f}", pace, f"retries {p.retries}", agents]


def print_summary(console, out: Path) -> None:
    import loophole_store as store
    from loophole_scoring import Status

    trials = store.read_table(out, "trials")
    rows = []
    for (agent, domain, version), g in trials.groupby(["agent_name", "domain", "task_version"]):
        scored = g[g.reward.notna()]
        rows.append([
            str(agent), str(domain), str(version), str(len(g)),
            percent(scored.reward.mean()) if len(scored) else "n/a",
            percent(scored.multi_gold_reward.mean()) if len(scored) else "n/a",
            *(str(int((g.status == s).sum())) for s in (Status.AGENT_ERROR, Status.INFRA_ERROR, Status.ERROR)),
            str(int(g.reward.isna().sum())),
        ])
    print_table(console, SUMMARY_COLUMNS, rows)
    console.print(
        "means are over scored trials; agent failures score 0 and are counted; infra errors, errors and "
        "judge errors are left out (unscored) and run again when the sweep is run again."
    )
    print_loophole_tables(console, trials)


# The sweep's tables in the order a reader needs them; a narrow terminal leaves out the highest rank first.
SUMMARY_COLUMNS = (
    Col("agent", "middle", rank=0), Col("domain", rank=0), Col("version", rank=0),
    Col("trials", rank=3, justify="right"), Col("single-gold", rank=0, justify="right"),
    Col("multi-gold", rank=0, justify="right"), Col("agent failures", rank=4, justify="right"),
    Col("infra errors", rank=5, justify="right"), Col("errors", rank=6, justify="right"),
    Col("unscored", rank=2, justify="right"),
)
BY_AGENT_COLUMNS = (
    Col("agent", "middle", rank=0), Col("trials", rank=5, justify="right"),
    Col("single-gold", rank=0, justify="right"), Col("multi-gold", rank=0, justify="right"),
    Col("loophole single", rank=1, justify="right"), Col("loophole multi", rank=1, justify="right"),
    Col("non-loophole single", rank=2, justify="right"), Col("non-loophole multi", rank=2, justify="right"),
)


def print_loophole_tables(console, trials) -> None:
    from analysis import loophole_task_table, success_by_agent

    by_agent = success_by_agent(trials)
    if by_agent.empty:
        return
    rows = [[r.agent, str(r.trials), percent(r.single_gold), percent(r.multi_gold), percent(r.loophole_single),
             percent(r.loophole_multi), percent(r.non_loophole_single), percent(r.non_loophole_multi)]
            for r in by_agent.itertuples()]
    print_table(console, BY_AGENT_COLUMNS, rows, title="success per agent (loophole tasks from the catalog)")
    per_task = loophole_task_table(trials)
    if per_task.empty:
        return
    agents = sorted(per_task.agent.unique())
    # one column per agent, in the agents' order: with many agents, the later ones are left out (and named)
    cols = [Col("task", rank=0), *[Col(f"{shorten_middle(a, 20)} single / multi", rank=1 + n, justify="right") for n, a in enumerate(agents)]]
    rows = []
    for (domain, version, task), g in per_task.groupby(["domain", "task_version", "task_id"], sort=False):
        cells = {r.agent: f"{r.single} / {r.multi}" for r in g.itertuples()}
        rows.append([f"{domain} {version} {task}", *[cells.get(a, "-") for a in agents]])
    print_table(console, cols, rows, title="loophole tasks (successes / trials)")
