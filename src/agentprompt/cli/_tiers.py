"""``agentprompt tiers``: make one cache-tiered request for a repository and show which items
moved since the last one, which cache blocks it reuses and which it rewrites, and the share
of input tokens the cache has served so far (the tracker persists in the project's store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from agentprompt.cli._options import json_option, make_root_option
from agentprompt.cli._output import console, err_console, print_json, printable
from agentprompt.services import TierRequest, TierService, Workspace
from agentprompt.tiers.breakdown import ContextBreakdown
from agentprompt.tiers.context import DEFAULT_MAP_TOKENS
from agentprompt.tiers.persist import StoredTracker
from agentprompt.tiers.policy import RULES
from agentprompt.tiers.report import TierReport
from agentprompt.tiers.served import CacheUse, ServedTally, cache_json
from agentprompt.tiers.tracker import TIERS, TierChange, TrackerState

__all__ = ["tiers_command"]

_ARROWS = {
    "promoted": "[green]↑ promoted[/green]",
    "demoted": "[red]↓ demoted[/red]",
    "new": "[cyan]+ new[/cyan]",
    "graduated": "[green]⇑ graduated[/green]",
    "distributed": "[cyan]→ distributed[/cyan]",
    "removed": "[yellow]- removed[/yellow]",
}


def _changes_json(changes: tuple[TierChange, ...]) -> list[dict[str, Any]]:
    return [
        {"key": c.key, "before": c.before, "after": c.after, "reason": c.reason} for c in changes
    ]


def _show_changes(changes: tuple[TierChange, ...]) -> None:
    if not changes:
        console.print("No item changed tier since the last request.")
        return
    table = Table(title="Changes since the last request")
    for col in ("item", "from", "to", "why"):
        table.add_column(col)
    for c in changes:
        table.add_row(Text(printable(c.key)), c.before or "—", c.after or "—", _ARROWS[c.reason])
    console.print(table)


def _show_state(state: TrackerState) -> None:
    rule = f", {state.rule} rule" if state.rule else ""
    table = Table(title=f"Cache tiers after request {state.requests}{rule}")
    for col in ("tier", "items", "tokens", "N range"):
        table.add_column(col, justify="left" if col == "tier" else "right")
    for tier in TIERS:
        items = state.in_tier(tier)
        ns = [i.n for i in items]
        span = f"{min(ns)}–{max(ns)}" if ns else "—"
        table.add_row(tier, str(len(items)), str(sum(i.tokens for i in items)), span)
    console.print(table)


def _show_cache(use: CacheUse, tally: ServedTally) -> None:
    table = Table(title="Cache blocks of this request")
    for col in ("tier", "tokens", "cache"):
        table.add_column(col, justify="right" if col == "tokens" else "left")
    for b in use.blocks:
        status = "[green]reused[/green]" if b.status == "reused" else "[yellow]rewritten[/yellow]"
        table.add_row(b.tier, str(b.tokens), status)
    console.print(table)
    console.print(
        f"This request: {use.served} tokens read from the cache, {use.written} written, "
        f"{use.uncached} uncached."
    )
    console.print(
        f"Served from the cache so far: [bold]{tally.share:.1%}[/bold] of {tally.total} input "
        f"tokens over {tally.requests} request(s)."
    )


def _show_breakdown(breakdown: ContextBreakdown) -> None:
    table = Table(title=f"Tokens per tier ({breakdown.tokenizer})")
    for col in ("tier", "cached", "tokens", "largest items"):
        table.add_column(col, justify="right" if col == "tokens" else "left")
    for t in breakdown.tiers:
        top = sorted(t.items, key=lambda i: -i.tokens)[:3]
        names = ", ".join(f"{printable(i.key)} ({i.tokens})" for i in top)
        table.add_row(t.tier, "yes" if t.cached else "no", str(t.tokens), Text(names or "—"))
    console.print(table)
    console.print(f"Total input tokens: [bold]{breakdown.total_tokens}[/bold]")
    notes = [i for i in breakdown.tier("active").items if i.kind == "changes"]
    if notes:
        console.print(
            f"Carried as changes in active: {breakdown.carried} tokens ({len(notes)} "
            "note(s) on cached copies that are out of date, instead of rewriting their tiers)."
        )


@click.command("tiers")
@make_root_option("The repository (default: the one around the cwd).", find_repository=True)
@click.option("--file", "files", multiple=True, help="A file whose full text is in context.")
@click.option("--task", default="", help="The user's message of this request.")
@click.option(
    "--map-tokens",
    type=click.IntRange(min=1),
    default=DEFAULT_MAP_TOKENS,
    show_default=True,
    help="The symbol map's token budget.",
)
@click.option("--model", default=None, help="Count tokens for this model (default o200k_base).")
@click.option(
    "--rule",
    type=click.Choice(list(RULES)),
    default=RULES[0],
    show_default=True,
    help="deferred: as settle, and a changed file keeps its cached copy with its changes "
    "carried in active until rewriting pays (most served); settle: items stay put and moves "
    "ride rewrites that happen anyway; threshold: an item's tier follows its N; ripple: "
    "promote by N into broken tiers only.",
)
@click.option("--show", is_flag=True, help="Show the stored state; make no request.")
@click.option("--reset", is_flag=True, help="Forget the stored tracker state.")
@json_option()
def tiers_command(
    root: Path,
    files: tuple[str, ...],
    task: str,
    map_tokens: int,
    model: str | None,
    rule: str,
    show: bool,
    reset: bool,
    as_json: bool,
) -> None:
    """Track one request's items over the cache tiers and show what moved."""
    tiers = TierService(Workspace(root.resolve()))
    if reset:
        dropped = tiers.reset()
        if as_json:
            print_json({"reset": dropped})
        else:
            console.print("Tracker state forgotten." if dropped else "No tracker state.")
        return
    if show:
        stored = tiers.stored()
        _warn(stored.warnings)
        _print_stored(stored, as_json)
        return
    report = tiers.request(
        TierRequest(files=files, task=task, map_tokens=map_tokens, model=model, rule=rule)
    )
    _warn(report.warnings)
    _print_report(report, as_json)


def _warn(warnings: tuple[str, ...]) -> None:
    for warning in warnings:
        err_console.print(Text(f"agentprompt: warning: {warning}"))


def _print_stored(stored: StoredTracker, as_json: bool) -> None:
    state = stored.state
    if as_json:
        print_json(
            {
                "requests": state.requests,
                "rule": state.rule,
                "items": [
                    {"key": i.key, "kind": i.kind, "tier": i.tier, "n": i.n, "tokens": i.tokens}
                    for i in state.items
                ],
                "changes": _changes_json(stored.changes),
                "served_share": round(stored.tally.share, 4),
                "warnings": list(stored.warnings),
            }
        )
        return
    _show_state(state)
    _show_changes(stored.changes)
    if stored.tally.requests:
        console.print(
            f"Served from the cache so far: [bold]{stored.tally.share:.1%}[/bold] of "
            f"{stored.tally.total} input tokens over {stored.tally.requests} request(s)."
        )


def _print_report(report: TierReport, as_json: bool) -> None:
    update = report.request.update
    if as_json:
        print_json(
            {
                "requests": update.state.requests,
                "rule": update.state.rule,
                "total_tokens": report.breakdown.total_tokens,
                "tokenizer": report.breakdown.tokenizer,
                "tiers": report.breakdown.tiers_json(),
                "changes": _changes_json(update.changes),
                "carried": report.breakdown.carried,
                "breakpoints": list(report.request.prompt.composition.breakpoints),
                "cache": cache_json(report.cache, report.tally),
                "warnings": list(report.warnings),
            }
        )
        return
    _show_state(update.state)
    _show_breakdown(report.breakdown)
    _show_changes(update.changes)
    _show_cache(report.cache, report.tally)
