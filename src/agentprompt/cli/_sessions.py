"""``agentprompt sessions``: the sessions stored for a project."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import click
from rich.table import Table

from agentprompt.cli._options import json_option, make_root_option
from agentprompt.cli._output import console, print_json, show_json
from agentprompt.services import StoredSessions, Workspace

__all__ = ["sessions_group"]


def _sessions(root: Path, db: Path | None) -> StoredSessions:
    return StoredSessions(Workspace(root), database=db)


_options = [
    make_root_option("The project (default: the repository around the cwd).", find_repository=True),
    click.option(
        "--db",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="The state database (default: ROOT/.agentprompt/state.db).",
    ),
    json_option(),
]


def _with_options(fn: click.decorators.FC) -> click.decorators.FC:
    for option in reversed(_options):
        fn = option(fn)
    return fn


@click.group("sessions")
def sessions_group() -> None:
    """Stored sessions of the agent, bridge and workflow runtimes."""


@sessions_group.command("list")
@click.option("--kind", default=None, help="Only sessions of this runtime (agent, bridge...).")
@_with_options
def list_command(kind: str | None, root: Path, db: Path | None, as_json: bool) -> None:
    """The stored sessions, newest first."""
    records = _sessions(root, db).records(kind)
    if as_json:
        print_json({"sessions": [dataclasses.asdict(r) for r in records]})
        return
    if not records:
        console.print("No stored sessions.")
        return
    table = Table(title="Sessions")
    for col in ("id", "kind", "updated"):
        table.add_column(col)
    for r in records:
        updated = dt.datetime.fromtimestamp(r.updated_at).strftime("%Y-%m-%d %H:%M:%S")
        table.add_row(r.id, r.kind, updated)
    console.print(table)


@sessions_group.command("show")
@click.argument("session_id")
@_with_options
def show_command(session_id: str, root: Path, db: Path | None, as_json: bool) -> None:
    """One stored session with its state."""
    record = _sessions(root, db).get(session_id)
    if as_json:
        print_json(dataclasses.asdict(record))
    else:
        console.print(f"[bold]{record.id}[/bold] ({record.kind})")
        show_json(record.state)


@sessions_group.command("delete")
@click.argument("session_id")
@_with_options
def delete_command(session_id: str, root: Path, db: Path | None, as_json: bool) -> None:
    """Remove a stored session."""
    existed = _sessions(root, db).delete(session_id)
    if as_json:
        print_json({"deleted": existed, "id": session_id})
    elif existed:
        console.print(f"Deleted session {session_id}.")
    else:
        console.print(f"No session {session_id}; nothing deleted.")
