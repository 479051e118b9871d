"""``agentprompt snippets``: the prompt snippets in force for a repository."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from agentprompt.cli._options import json_option, make_root_option
from agentprompt.cli._output import console, err_console, print_json, printable
from agentprompt.prompts.snippets import load_prompt_snippets

__all__ = ["snippets_command"]


@click.command("snippets")
@make_root_option("The repository (default: the one around the cwd).", find_repository=True)
@json_option()
def snippets_command(root: Path, as_json: bool) -> None:
    """List the prompt snippets: the repository's, else the user's, else the defaults."""
    found = load_prompt_snippets(root.resolve())
    if as_json:
        print_json(
            {
                "source": str(found.source) if found.source else None,
                "origin": found.origin,
                "snippets": [
                    {"icon": s.icon, "tooltip": s.tooltip, "message": s.message}
                    for s in found.snippets
                ],
                "problems": list(found.problems),
            }
        )
        return
    for problem in found.problems:
        err_console.print(f"agentprompt: warning: {printable(problem)}", markup=False)
    where = f"{found.origin}: {found.source}" if found.source else "no snippets file found"
    table = Table(title=Text(f"Prompt snippets ({printable(where)})"))
    table.add_column("icon")
    table.add_column("tooltip")
    table.add_column("message")
    for s in found.snippets:
        table.add_row(*(Text(printable(v)) for v in (s.icon, s.tooltip, s.message)))
    console.print(table)
