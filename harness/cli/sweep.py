"""``harness sweep CONFIG``: run a sweep on Ray, with progress, and print single- and multi-gold results."""

from __future__ import annotations

from pathlib import Path

import typer


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
    from harness.cli._console import output_console, progress_bar

    config = load_config(config_path)
    console = output_console(160)
    console.print(f"sweep {config.name} ({config.sweep_id()}) → {config.output_dir()}", soft_wrap=True)
    with progress_bar() as bar:

        def note(line: str) -> None:  # first failure of each kind, provenance changes: on stderr, above the bar
            bar.console.print(line, soft_wrap=True, markup=False, highlight=False)

        task = None

        def update(p) -> None:
            nonlocal task
            done = sum(p.per_agent.values())
            agents = " ".join(f"{a} {p.per_agent[a]}/{p.per_agent_total[a]}" for a in sorted(p.per_agent_total))
            desc = (f"{agents} | agent failures {p.agent_errors} infra {p.infra_errors} errors {p.errors} "
                    f"retries {p.retries} | {_pace(p)}")
            if task is None:
                task = bar.add_task(desc, total=p.total, completed=done)
            bar.update(task, completed=done, description=desc)

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


def _pace(p) -> str:
    """Throughput, ETA and cost so far, for the progress line."""
    rate, eta = p.throughput_per_min(), p.eta_s()
    pace = f"{rate:.1f} trials/min" if rate else "- trials/min"
    when = f"ETA {int(eta // 60)}m{int(eta % 60):02d}s" if eta is not None else "ETA -"
    return f"{pace} {when} ${p.cost_usd:.2f}"


def print_summary(console, out: Path) -> None:
    from rich.table import Table

    import loophole_store as store
    from loophole_scoring import Status

    trials = store.read_table(out, "trials")
    table = Table("agent", "domain", "version", "trials", "single-gold", "multi-gold", "agent failures",
                  "infra errors", "errors", "unscored")
    for (agent, domain, version), g in trials.groupby(["agent_name", "domain", "task_version"]):
        scored = g[g.reward.notna()]
        table.add_row(
            str(agent), str(domain), str(version), str(len(g)),
            f"{scored.reward.mean():.3f}" if len(scored) else "n/a",
            f"{scored.multi_gold_reward.mean():.3f}" if len(scored) else "n/a",
            *(str(int((g.status == s).sum())) for s in (Status.AGENT_ERROR, Status.INFRA_ERROR, Status.ERROR)),
            str(int(g.reward.isna().sum())),
        )
    console.print(table)
    console.print(
        "means are over scored trials; agent failures score 0 and are counted; infra errors, errors and "
        "judge errors are left out (unscored) and run again when the sweep is run again.", soft_wrap=True,
    )
    print_loophole_tables(console, trials)


def print_loophole_tables(console, trials) -> None:
    from rich.table import Table

    from analysis import loophole_task_table, success_by_agent

    def pct(x: float) -> str:
        return "n/a" if x != x else f"{100 * x:.1f}%"

    by_agent = success_by_agent(trials)
    if by_agent.empty:
        return
    t = Table("agent", "trials", "single-gold", "multi-gold", "loophole single", "loophole multi",
              "non-loophole single", "non-loophole multi", title="success per agent (loophole tasks from the catalog)")
    for r in by_agent.itertuples():
        t.add_row(r.agent, str(r.trials), pct(r.single_gold), pct(r.multi_gold), pct(r.loophole_single),
                  pct(r.loophole_multi), pct(r.non_loophole_single), pct(r.non_loophole_multi))
    console.print(t)
    per_task = loophole_task_table(trials)
    if per_task.empty:
        return
    agents = sorted(per_task.agent.unique())
    t = Table("task", *[f"{a} single / multi" for a in agents], title="loophole tasks (successes / trials)")
    for (domain, version, task), g in per_task.groupby(["domain", "task_version", "task_id"], sort=False):
        cells = {r.agent: f"{r.single} / {r.multi}" for r in g.itertuples()}
        t.add_row(f"{domain} {version} {task}", *[cells.get(a, "-") for a in agents])
    console.print(t)
