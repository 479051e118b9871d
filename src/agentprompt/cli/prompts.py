"""``agentprompt prompts``: which file each prompt name resolves to."""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from agentprompt.cli.options import json_option, make_root_option
from agentprompt.cli.output import console, print_json
from agentprompt.prompts.loader import PromptLibrary

__all__ = ["prompts_group"]

_root_option = make_root_option(
    "The project whose prompt overrides apply (default: the repository around the cwd).",
    find_repository=True,
)


@click.group("prompts")
def prompts_group() -> None:
    """The prompt files in force and where each comes from."""


@prompts_group.command("list")
@_root_option
@json_option()
def list_command(root: Path, as_json: bool) -> None:
    """Every prompt name, the file it resolves to, and the files it overrides."""
    library = PromptLibrary(root)
    sources = library.list()
    if as_json:
        print_json(
            {
                "search_path": [{"origin": o, "path": str(d)} for o, d in library.search_dirs()],
                "prompts": [
                    {
                        "name": s.name,
                        "origin": s.origin,
                        "path": str(s.path),
                        "shadows": [str(p) for p in s.shadows],
                    }
                    for s in sources
                ],
            }
        )
        return
    table = Table(title="Prompt files (first match wins)")
    table.add_column("name")
    table.add_column("origin")
    table.add_column("file")
    for s in sources:
        note = f"  (overrides {len(s.shadows)})" if s.shadows else ""
        table.add_row(s.name, s.origin, f"{s.path}{note}")
    console.print(table)
    console.print("Search order: " + " → ".join(str(d) for _, d in library.search_dirs()))


@prompts_group.command("show")
@click.argument("name")
@_root_option
@json_option()
def show_command(name: str, root: Path, as_json: bool) -> None:
    """The prompt file NAME resolves to, with its declared variables and text."""
    library = PromptLibrary(root)
    source = library.resolve(name)
    template = library.load(name)
    if as_json:
        print_json(
            {
                "name": name,
                "origin": source.origin,
                "path": str(source.path),
                "description": template.description,
                "variables": list(template.variables),
                "text": template.body,
            }
        )
        return
    console.print(f"[bold]{name}[/bold] ← {source.path} ({source.origin})")
    if template.variables:
        console.print("variables: " + ", ".join(template.variables))
    console.print(template.body, markup=False)
