"""``agentprompt select``: let a model choose the files a request needs.

The model is named by ``--model`` or the ``AGENTPROMPT_MODEL`` environment variable (or
the config file): :func:`~agentprompt.llm.model_from_environment` makes it, a real model
asked through its SDK or ``script:FILE`` replaying the answers listed in a JSON file (a demo
or a test with no network).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from agentprompt.cli._model import model_options
from agentprompt.cli._options import (
    check_root,
    exclude_option,
    include_option,
    json_option,
    make_root_option,
    max_tokens_option,
)
from agentprompt.cli._output import console, err_console, print_json, printable
from agentprompt.cli._progress import scan_progress
from agentprompt.cli._tree import discovery_options, max_file_bytes_option, no_git_option
from agentprompt.llm import ModelSpec, model_from_environment
from agentprompt.repo.discovery import discover
from agentprompt.repo.discovery.patterns import filter_discovery
from agentprompt.repo.selection import FileSelection, SelectionOptions, select_files

__all__ = ["select_command"]


def _result_json(task: str, result: FileSelection) -> dict[str, Any]:
    return {
        "task": task,
        "selected": [
            {"path": s.path, "tokens": s.tokens, "round": s.round, "forced": s.forced}
            for s in result.selected
        ],
        "rejected": [
            {"path": r.path, "reason": r.reason, "round": r.round} for r in result.rejected
        ],
        "secrets": [{"path": f.path, "line": f.line, "kind": f.kind} for f in result.secrets],
        "rounds": result.rounds,
        "error": result.error,
        "done": result.done,
        "reason": result.reason,
        "stopped": result.stopped,
        "tokens": result.tokens,
        "context": result.context,
    }


def _print_result(result: FileSelection) -> None:
    table = Table(title=f"Selected files ({result.tokens} tokens)")
    for column in ("file", "tokens", "round", "how"):
        table.add_column(column, justify="right" if column in ("tokens", "round") else "left")
    for item in result.selected:
        how = "forced include" if item.forced else "chosen"
        table.add_row(printable(item.path), str(item.tokens), str(item.round), how)
    console.print(table)
    for refused in result.rejected:
        console.print(printable(f"not loaded: {refused.path} ({refused.reason})"), markup=False)
    for finding in result.secrets:
        err_console.print(
            printable(f"agentprompt: likely secret in {finding.describe()}"), markup=False
        )
    said = f": {result.reason}" if result.reason else ""
    console.print(
        printable(f"Stopped ({result.stopped}) after {result.rounds} round(s){said}"),
        markup=False,
    )


@click.command("select")
@click.option("--task", required=True, help="The request the files are chosen for.")
@make_root_option("The repository's folder.")
@click.option(
    "--filter", "filter_re", default=None, metavar="RE", help="Only files whose name matches RE."
)
@click.option(
    "--exclude-re", "exclude_re", default=None, metavar="RE", help="No files whose name matches RE."
)
@include_option
@exclude_option
@click.option("--max-files", type=click.IntRange(min=1), default=None, help="Files at most.")
@click.option(
    "--load",
    "forced",
    multiple=True,
    metavar="FILE",
    help="Load FILE whatever the model chooses (repeatable).",
)
@click.option(
    "--dir", "directory", default=".", show_default=True, metavar="DIR", help="Only files in DIR."
)
@click.option("--allow-secrets", is_flag=True, help="Load files that hold a likely secret.")
@max_tokens_option(f"Token budget of the loaded files (default {SelectionOptions().token_budget}).")
@click.option(
    "--max-rounds",
    type=click.IntRange(min=1),
    default=SelectionOptions().max_rounds,
    show_default=True,
    help="Times the model is asked at most.",
)
@click.option(
    "--tree-files",
    type=click.IntRange(min=1),
    default=SelectionOptions().tree_files,
    show_default=True,
    help="Past this many choosable files, the tree shows the ones most relevant to the task.",
)
@model_options
@max_file_bytes_option
@no_git_option
@json_option()
def select_command(
    task: str,
    root: Path,
    filter_re: str | None,
    exclude_re: str | None,
    includes: tuple[str, ...],
    excludes: tuple[str, ...],
    max_files: int | None,
    forced: tuple[str, ...],
    directory: str,
    allow_secrets: bool,
    max_tokens: int | None,
    max_rounds: int,
    tree_files: int,
    model_opts: ModelSpec,
    max_file_bytes: int,
    no_git: bool,
    as_json: bool,
) -> None:
    """Let a model choose the files a request needs, round by round (needs a model)."""
    check_root(root)
    chosen = model_from_environment(
        model_opts,
        os.environ,
        needed_for="select",
        script_advice="or pass --max-rounds to stop sooner",
    )
    options = SelectionOptions(
        filter=filter_re,
        exclude=exclude_re,
        max_files=max_files,
        include=forced,
        dir=directory,
        token_budget=max_tokens if max_tokens is not None else SelectionOptions().token_budget,
        max_rounds=max_rounds,
        allow_secrets=allow_secrets,
        model=None if chosen.scripted else chosen.config.model,
        tree_files=tree_files,
    )
    with scan_progress("scanning files", None, enabled=not as_json):
        found = filter_discovery(
            discover(root, discovery_options(max_file_bytes, False, (), no_git)),
            includes,
            excludes,
        )
    result = select_files(chosen.executor, task, found.root, options, discovery=found)
    if as_json:
        print_json(_result_json(task, result))
    else:
        _print_result(result)
    if result.error is not None:
        err_console.print(
            printable(
                f"agentprompt: error: {result.error}; stopped with the "
                f"{len(result.selected)} file(s) selected so far"
            ),
            markup=False,
        )
        raise SystemExit(1)
