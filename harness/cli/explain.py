"""``harness explain RUN_DIR TRAJECTORY_ID``: a trajectory's record, and its conversation with each variant's
evidence marked.

Prints the conversation's record (``trials.record_json``, #40: requests, declines, transfers, offers, writes
with their confirmations, claims with their truth, the user's decision; rebuilt from the messages in a run
written before the column, refused in one line where its schema version is another), strict's verdict, why
the single gold fails (``harness.app._explain.single_gold_failure``: the viewer's ``WhyGoldFails``), and
``scores.explanation_json`` (read back by the application layer as the typed ``Explanation``, refused in one
line where its schema version is another: preconditions held or failed, evidence as message index, speaker,
excerpt or tool call), so a reviewer can check a credit, or a refused one, without the scorer.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command("explain")(explain)


def _print_record(console, record) -> None:
    def say(text: str) -> None:  # the record's text is data: printed as it is, never read as markup
        console.print(text, soft_wrap=True, markup=False, highlight=False)

    console.print(f"\n[bold]record[/] (schema version {record.schema_version})")
    say("  requests: " + ("; ".join(f"{r.tool} at message {r.message_index}" for r in record.requests) or "none"))
    say("  clauses read: " + ("; ".join(c.clause + (f" (contested write at message {c.contested_write_at})"
                                                   if c.contested_write_at is not None else "")
                                         for c in record.clauses_read) or "none"))
    for d in record.declines:
        form = "" if d.form == "words" else f" ({'in a transfer summary' if d.form == 'transfer' else d.form})"
        say(f"  decline at message {d.message_index} on {d.clause}{form}{'' if d.certain else ' (indirect)'}: "
            f"{d.excerpt!r}")
    for t in record.transfers:
        on = f" on {', '.join(t.clauses)}" if t.clauses else ""
        say(f"  transfer ({t.how.replace('_', ' ')}) at message {t.message_index}{on}: {t.excerpt!r}")
    for o in record.offers:
        say(f"  offer at message {o.message_index} ({o.loophole_id}: {o.what}): {o.excerpt!r}")
    for w in record.writes:
        yes = ("confirmed" if w.confirmed else "NO explicit yes") + ("" if w.details_listed else ", NO details listed")
        said = f" (user at message {w.confirmation_index}: {w.confirmation!r})" if w.confirmation_index is not None else ""
        args = json.dumps(w.arguments, ensure_ascii=False)[:200]
        failed = "; a tool error stopped it" if w.failed else ""
        say(f"  write at message {w.message_index}: {w.tool}({args}): {yes}{said}{failed}")
    for x in record.cancellations:
        say(f"  cancellation at message {x.message_index} of {x.reservation_id}: "
            f"{'FORBIDDEN: ' + x.forbidden if x.forbidden else 'allowed (or undecidable) by the rules as read'}")
    if record.unasked_compensation is not None:
        say(f"  compensation unasked at message {record.unasked_compensation.message_index}: "
            f"{record.unasked_compensation.detail}")
    for c in record.claims:
        truth = f"FALSE: {c.truth}" if c.false else "not contradicted by what was read"
        acted = "; the user acted on it" if c.acted_on else ""
        scope = f" (checked for refusals of {', '.join(c.refusals_of)})" if c.refusals_of else ""
        say(f"  claim at message {c.message_index} of {c.what}{scope}: {c.excerpt!r}: {truth}{acted}")
    for a in record.answers:
        say(f"  informational answer at message {a.message_index}: {a.what}")
    if record.withdrawal is not None:
        say(f"  withdrawal at message {record.withdrawal.message_index}: {record.withdrawal.what}")
    for read in record.status_reads:
        say(f"  flight status read at message {read.message_index}: {read.call} -> {read.result or 'no result'}")
    for tier in record.tier_reads:
        say(f"  membership read at message {tier.message_index}: {tier.membership or 'none'}")
    for stated in record.tier_claims:
        say(f"  the agent states tier {stated.tier!r} at message {stated.message_index}")
    for want in record.stated_wants:
        wants = "asks for compensation" if want.want == "compensation" else "says what they want of the reservation"
        say(f"  the user {wants} at message {want.message_index}: {want.excerpt!r}")
    if record.pending_ending is not None:
        say(f"  a request may be pending: {record.pending_ending.why}")
    f = record.final_decision
    where = f" at message {f.message_index}" if f.message_index is not None else ""
    say(f"  the user's decision: {f.decision}{where}, resting on {f.basis}")


def _print_single_gold_failure(console, failure, reward) -> None:  # failure: loophole_scoring.GoldFailure | None
    """Why the single gold fails, as the viewer's trial page shows it (``harness.app._explain``)."""
    from loophole_base import cut

    if failure is None:
        return

    def say(text: str) -> None:
        console.print(cut(text, 2000), soft_wrap=True, markup=False, highlight=False)

    console.print()
    say(f"why the single gold fails (reward {reward}):")
    if failure.note:
        say(f"  {failure.note}")
    for diff in failure.records:
        say(f"  database record {diff.record} differs from the gold's:")
        for name, mine, gold in diff.fields:
            say(f"    {name}: trajectory {mine}, gold {gold}")
    for item in failure.communicate:
        say(f"  never said (communicate_info): {item}")
    for assertion, state in failure.nl:
        say(f"  NL assertion ({state}): {assertion}")
    if not (failure.note or failure.records or failure.communicate or failure.nl):
        say("  no database, communicate or NL difference found: see the reason and the conversation below")


def explain(
    run_dir: Path = typer.Argument(..., help="A run directory (from rescore or sweep)."),
    trajectory_id: str = typer.Argument(
        ..., help="The trial's trajectory_id (or a unique part of it): the viewer's index shows it, and "
        "trials.parquet's trajectory_id column."
    ),
    width: int = typer.Option(400, "--width", min=40, help="Characters of each message to print."),
) -> None:
    """Print the conversation's record (requests, declines, writes with their confirmations, claims with their
    truth), strict's verdict, why the single gold fails (as the viewer shows it), and the conversation with every
    variant's preconditions and evidence marked. An id several trajectories share is refused with them listed."""
    from rich.text import Text

    from harness import explain as explain_trajectory
    from harness.cli._console import output_console

    console = output_console(160)
    result = explain_trajectory(run_dir, trajectory_id)
    trial, messages, rows = result.trial, result.messages, result.variants
    # every value is data (a file's ids, a model's words): styled as rich Text, never parsed as markup
    console.print(Text.assemble(
        (str(trial.trajectory_id), "bold"),
        f"  {trial.domain} {trial.task_version} task {trial.task_id}  "
        f"single-gold {trial.reward}  multi-gold {trial.multi_gold_reward}  "
        f"matched: {', '.join(trial.matched_gold_ids) if trial.matched_gold_ids is not None else '-'}",
    ), soft_wrap=True)
    strict = getattr(trial, "strict_reward", None)
    if strict is not None and strict == strict:
        reason = getattr(trial, "strict_reason", None)
        console.print(f"strict {strict}" + (f": {reason}" if isinstance(reason, str) else ""), soft_wrap=True,
                      markup=False)
    _print_single_gold_failure(console, result.single_gold_failure, trial.reward)
    _print_record(console, result.record)
    marks: dict[int, list[str]] = {}
    for row in rows.itertuples(index=False):
        verdict = ("credits", "green") if row.reward == 1.0 else ("does not credit", "red")
        console.print(Text.assemble("\n", (str(row.gold_id), "bold"), " ", verdict, f" (reward {row.reward})"),
                      soft_wrap=True)
        if isinstance(row.reason, str) and row.reason:
            console.print(f"  reason: {row.reason}", soft_wrap=True, markup=False)
        explanation = result.explanations.get(str(row.gold_id))
        if explanation is None:
            console.print(
                "  (no explanation stored: the run predates explanations, or the row was not scored)"
            )
            continue
        for p in explanation.preconditions:
            tick = ("held", "green") if p.held else ("failed", "red")
            console.print(Text.assemble(f"  precondition {p.name}: ", tick, f" - {p.detail}"), soft_wrap=True)
        for e in explanation.evidence:
            marks.setdefault(e.message_index, []).append(f"{row.gold_id}: {e.what}")
            what = e.tool_call or repr(e.excerpt)
            console.print(
                f"  evidence at message {e.message_index} ({e.role}, {e.what}): {what}",
                soft_wrap=True, markup=False,
            )
    if rows.empty:
        console.print(
            "\nno gold variants apply to this task: nothing to explain beyond the single gold"
        )
    console.print("\n[bold]conversation[/] (▶ marks evidence)")
    for i, m in enumerate(messages):
        text = " ".join(str(m.get("content") or "").split())
        calls = m.get("tool_calls") or []
        call_text = "; ".join(
            f"{c.get('name')}({json.dumps(c.get('arguments'), ensure_ascii=False)[:200]})"
            for c in calls
            if isinstance(c, dict)
        )
        mark = i in marks
        limit = len(text) if mark else width  # evidence messages in full
        body = " ".join(
            p for p in (text[:limit] + ("…" if len(text) > limit else ""), call_text) if p
        )
        prefix = "▶" if mark else " "
        line = f"{prefix} {i:>3} {str(m.get('role', '?')):<9} {body}"
        console.print(Text(line, style="bold yellow" if mark else ""), soft_wrap=True, highlight=False)
        for label in marks.get(i, []):
            console.print(Text(f"        ↳ {label}", style="yellow"), soft_wrap=True)
