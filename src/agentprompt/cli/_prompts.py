"""``agentprompt prompts``: which file each prompt name resolves to.

Besides prompt files, the names include the entries of the message catalogues
(``edits/reason_overlap``, ``edits/feedback_block_ja``: the entry of ``edits/catalogue.yaml``
or ``catalogue_ja.yaml``), each resolving to the catalogue file that words it.
"""

from __future__ import annotations

from pathlib import Path

import click
from rich.table import Table

from agentprompt.cli._options import json_option, make_root_option
from agentprompt.cli._output import console, print_json
from agentprompt.edits.wording import EDIT_MESSAGES
from agentprompt.prompts.catalogue import MessageCatalogues
from agentprompt.prompts.loader import PromptLibrary, PromptSource, PromptTemplate

__all__ = ["prompts_group"]

CATALOGUES: tuple[MessageCatalogues, ...] = (EDIT_MESSAGES,)
"""The message catalogues whose entries are listed and shown beside the prompt files."""

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
    entries = [s for catalogues in CATALOGUES for s in catalogues.sources(library)]
    sources = sorted([*library.list(), *entries], key=lambda s: s.name)
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
    """The prompt file NAME resolves to (or the catalogue entry NAME names), with its declared
    variables and text."""
    library = PromptLibrary(root)
    source, template = _shown(library, name)
    if as_json:
        print_json(
            {
                "name": name,
                "origin": source.origin,
                "path": str(source.path),
                "description": template.description,
                "variables": list(template.variables),
                "text": template.body,
                "key": template.key,
            }
        )
        return
    console.print(f"[bold]{name}[/bold] ← {source.path} ({source.origin})")
    if template.key is not None:
        console.print(f"entry {template.key} of the message catalogue", markup=False)
    if template.variables:
        console.print("variables: " + ", ".join(template.variables))
    console.print(template.body, markup=False)


def _shown(library: PromptLibrary, name: str) -> tuple[PromptSource, PromptTemplate]:
    """Where ``name`` resolves to and its text: a prompt file, else a catalogue entry of that
    name; a name that is neither is the prompt file's error, listing the paths searched."""
    if library.find(name) is None:
        for catalogues in CATALOGUES:
            named = catalogues.named(name)
            if named is not None:
                template, source = catalogues.source(library, *named)
                return source, template
    return library.resolve(name), library.load(name)
