"""``agentprompt rank``: the repository's files ordered by their relevance to a task."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.table import Table

from agentprompt.cli._options import (
    include_generated_option,
    json_option,
    no_cache_option,
    read_text_source,
    root_option,
    verbose_option,
)
from agentprompt.cli._output import console, err_console, print_json, printable
from agentprompt.cli._progress import scan_progress
from agentprompt.cli._tree import left_out_lines
from agentprompt.errors import UsageError
from agentprompt.repo.rank import RankReason
from agentprompt.services import RankedSymbols, RepositoryContext, Workspace

__all__ = ["rank_command", "read_task"]


def read_task(task: str | None, task_file: str | None) -> str:
    """The task text from ``--task`` or ``--task-file`` (``-`` for standard input)."""
    if (task is None) == (task_file is None):
        raise UsageError("give the task with --task TEXT or --task-file FILE (one of them)")
    if task is not None:
        return task
    assert task_file is not None
    return read_text_source(task_file, "task")


def _reason_text(reason: RankReason) -> str:
    if reason.signal == "graph":
        return "graph"
    if reason.signal == "test":
        return f"test file ×{reason.weight:g}"
    return f"{reason.signal}: {reason.detail}"


@click.command("rank")
@click.option("--task", default=None, help="The task text (a bug report, a request).")
@click.option(
    "--task-file",
    default=None,
    metavar="FILE",
    help="Read the task from FILE ('-' for standard input) instead of --task.",
)
@root_option
@click.option(
    "--top",
    type=click.IntRange(min=0),
    default=20,
    show_default=True,
    help="How many files to list (0: every file); with --symbols, how many definitions.",
)
@click.option("--focus", multiple=True, help="A file to rank toward (repeatable).")
@click.option(
    "--symbols",
    "by_symbol",
    is_flag=True,
    help="List the functions and classes the task touches (in its best files) instead of files.",
)
@include_generated_option
@no_cache_option
@verbose_option
@json_option("Print the ranking as JSON.")
def rank_command(
    task: str | None,
    task_file: str | None,
    root: Path,
    top: int,
    focus: tuple[str, ...],
    by_symbol: bool,
    include_generated: bool,
    no_cache: bool,
    verbose: bool,
    as_json: bool,
) -> None:
    """Rank the repository's files by their relevance to a task, with the reasons.

    Signals: lexical (the task's terms in each file's path, definitions and identifiers),
    path and module mentions, identifiers the task names that a file defines, stack-trace
    frames, and the reference graph around those hits. Tests rank lower unless the task
    is about tests.

    With --symbols, the functions, methods and classes of the best files are ranked
    instead, one a line (path:start-end, name, reasons): the task's terms in their
    names and bodies, identifiers and quoted strings found verbatim, names they call,
    stack-trace frames, and their file's rank.
    """
    text = read_task(task, task_file)
    context = RepositoryContext(Workspace(root))
    if by_symbol:
        with scan_progress("ranking symbols", None) as bar:
            found = context.rank_symbols(
                text,
                top or None,
                focus=focus,
                include_generated=include_generated,
                use_cache=not no_cache,
                progress=lambda done, total: bar.update(done, total, "parsing"),
            )
        _print_symbols(found, as_json)
        return
    with scan_progress("ranking files", None) as bar:
        result = context.rank(
            text,
            top or None,
            focus=focus,
            include_generated=include_generated,
            use_cache=not no_cache,
            progress=lambda done, total: bar.update(done, total, "parsing"),
        )
    for warning in result.warnings:
        err_console.print(f"agentprompt: warning: {warning}", markup=False)
    for problem in result.problems:
        err_console.print(f"agentprompt: skipped {problem}", markup=False)
    for line in left_out_lines(result.left_out, verbose=verbose):
        err_console.print(line, markup=False)
    if as_json:
        print_json(result.to_json())
        return
    shown = result.files
    table = Table(box=None, pad_edge=False, show_edge=False)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    table.add_column("file", no_wrap=True)
    table.add_column("why")
    for position, item in enumerate(shown, 1):
        why = "; ".join(_reason_text(r) for r in item.reasons)
        table.add_row(str(position), f"{item.score:.3f}", printable(item.path), printable(why))
    console.print(table)
    sys.stdout.flush()
    err_console.print(
        f"{len(shown)} of {result.total} files shown, {result.parsed} parsed",
        markup=False,
    )


def _print_symbols(found: RankedSymbols, as_json: bool) -> None:
    """The ranked definitions as JSON, or one a line: ``path:start-end  name  (reasons)``."""
    if as_json:
        print_json(found.to_json())
        return
    for item in found.symbols:
        why = "; ".join(f"{r.signal}: {r.detail}" for r in item.reasons)
        line = f"{item.path}:{item.start}-{item.end}  {item.name}  ({why})"
        console.print(printable(line), markup=False, highlight=False, soft_wrap=True)
    sys.stdout.flush()
    err_console.print(
        f"{len(found.symbols)} definitions shown, from the {found.files} best files",
        markup=False,
    )
