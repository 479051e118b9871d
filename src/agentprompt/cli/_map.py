"""``agentprompt map``: the repository's symbol map, ranked for a task and fitted to a budget."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from agentprompt.cli._options import (
    include_generated_option,
    json_option,
    max_tokens_option,
    no_cache_option,
    root_option,
    verbose_option,
)
from agentprompt.cli._output import err_console, print_json, printable
from agentprompt.cli._progress import scan_progress
from agentprompt.cli._tree import left_out_lines
from agentprompt.services import RepositoryContext, Workspace

__all__ = ["map_command"]


@click.command("map")
@root_option
@max_tokens_option("Token budget the whole map must fit (default 1024).", aliases=("--tokens",))
@click.option("--focus", multiple=True, help="A file to rank toward (repeatable).")
@click.option("--mention", multiple=True, help="An identifier to rank toward (repeatable).")
@click.option("--task", default=None, help="Task text: files and identifiers it names rank higher.")
@click.option(
    "--in-context",
    "in_context",
    multiple=True,
    help="A file whose full text the model already has: left out of the map (repeatable).",
)
@click.option("--model", default=None, help="Count tokens with this model's tokenizer.")
@no_cache_option
@include_generated_option
@verbose_option
@json_option("Print the map and its files as JSON.")
def map_command(
    root: Path,
    max_tokens: int | None,
    focus: tuple[str, ...],
    mention: tuple[str, ...],
    task: str | None,
    in_context: tuple[str, ...],
    model: str | None,
    no_cache: bool,
    include_generated: bool,
    verbose: bool,
    as_json: bool,
) -> None:
    """Print the repository's symbol map: definitions ranked by how much they matter."""
    context = RepositoryContext(Workspace(root))
    # One delayed bar for every phase: a spinner while files are found and compared, a
    # count once parsing starts.
    with scan_progress("mapping files", None) as bar:
        fitted = context.map(
            max_tokens=max_tokens,
            task=task,
            focus=focus,
            mentions=mention,
            in_context=in_context,
            model=model,
            include_generated=include_generated,
            use_cache=not no_cache,
            progress=lambda done, total: bar.update(done, total, "parsing"),
        )
    result = fitted.map
    for warning in result.warnings:
        err_console.print(f"agentprompt: warning: {warning}", markup=False)
    for problem in result.problems:
        err_console.print(f"agentprompt: skipped {problem}", markup=False)
    for line in left_out_lines(result.left_out, verbose=verbose):
        err_console.print(line, markup=False)
    for path in result.unknown_focus:
        err_console.print(
            f"agentprompt: {path} is not a code file of {root}; it does not steer the map",
            markup=False,
        )
    if not result.text and result.omitted:
        err_console.print(
            f"agentprompt: --max-tokens {result.budget} is too small for the legend and one "
            "entry; the map is empty (give a larger budget)",
            markup=False,
        )
    if as_json:
        print_json(fitted.to_json())
        return
    text = printable(result.text)
    # The map's text is counted as it is; the terminal still needs its last line ended.
    sys.stdout.write(text if not text or text.endswith("\n") else text + "\n")
    sys.stdout.flush()
    err_console.print(
        f"{result.tokens} of {result.budget} tokens ({result.tokenizer}), "
        f"{len(result.files)} files shown, {result.omitted} left out, "
        f"{result.parsed} parsed",
        markup=False,
    )
