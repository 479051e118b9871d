"""``agentprompt tiers``: make one cache-tiered request for a repository and show which items
were promoted or demoted since the last one (the tracker persists in the project's store)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.table import Table
from rich.text import Text

from agentprompt.cli.output import console, print_json, printable
from agentprompt.context.environment import find_project_root
from agentprompt.store import Store, default_store_path
from agentprompt.tiers.breakdown import ContextBreakdown, get_context_breakdown
from agentprompt.tiers.context import DEFAULT_MAP_TOKENS, repository_context
from agentprompt.tiers.persist import load_tracker, reset_tracker, save_tracker
from agentprompt.tiers.policy import TierPolicy
from agentprompt.tiers.request import tiered_request
from agentprompt.tiers.tracker import TIERS, TierChange, TrackerState
from agentprompt.tokens import shared_counter

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
    table = Table(title=f"Cache tiers after request {state.requests}")
    for col in ("tier", "items", "tokens", "N range"):
        table.add_column(col, justify="left" if col == "tier" else "right")
    for tier in TIERS:
        items = state.in_tier(tier)
        ns = [i.n for i in items]
        span = f"{min(ns)}–{max(ns)}" if ns else "—"
        table.add_row(tier, str(len(items)), str(sum(i.tokens for i in items)), span)
    console.print(table)


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


@click.command("tiers")
@click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=None,
    help="The repository (default: the one around the cwd).",
)
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
    type=click.Choice(["threshold", "ripple"]),
    default="threshold",
    show_default=True,
    help="threshold (the default rule): tier follows N; ripple (opt-in): promote only into "
    "tiers already broken, for more cache hits.",
)
@click.option("--show", is_flag=True, help="Show the stored state; make no request.")
@click.option("--reset", is_flag=True, help="Forget the stored tracker state.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def tiers_command(
    root: Path | None,
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
    base = (root or find_project_root()).resolve()
    store_path = default_store_path(base)
    if reset:
        dropped = False
        if store_path.exists():
            with Store(store_path) as store:
                dropped = reset_tracker(store)
        if as_json:
            print_json({"reset": dropped})
        else:
            console.print("Tracker state forgotten." if dropped else "No tracker state.")
        return
    if show:
        state: TrackerState = TrackerState()
        changes: tuple[TierChange, ...] = ()
        if store_path.exists():
            with Store(store_path) as store:
                state, changes = load_tracker(store)
        if as_json:
            print_json(
                {
                    "requests": state.requests,
                    "items": [
                        {"key": i.key, "kind": i.kind, "tier": i.tier, "n": i.n, "tokens": i.tokens}
                        for i in state.items
                    ],
                    "changes": _changes_json(changes),
                }
            )
        else:
            _show_state(state)
            _show_changes(changes)
        return
    previous = TrackerState()
    if store_path.exists():  # a damaged state is refused before anything is built or written
        with Store(store_path) as store:
            previous, _ = load_tracker(store)
    context = repository_context(
        base, files=files, user=task, task=task, map_tokens=map_tokens, model=model
    )
    policy = TierPolicy(rule="ripple" if rule == "ripple" else "threshold")
    request = tiered_request(
        context, previous, counter=shared_counter(model), root=base, policy=policy
    )
    with Store(store_path) as store:
        save_tracker(store, request.update.state, request.update.changes)
    breakdown = get_context_breakdown(request.prompt, counter=shared_counter(model))
    if as_json:
        print_json(
            {
                "requests": request.update.state.requests,
                "total_tokens": breakdown.total_tokens,
                "tokenizer": breakdown.tokenizer,
                "tiers": breakdown.tiers_json(),
                "changes": _changes_json(request.update.changes),
                "breakpoints": list(request.prompt.composition.breakpoints),
            }
        )
        return
    _show_state(request.update.state)
    _show_breakdown(breakdown)
    _show_changes(request.update.changes)
