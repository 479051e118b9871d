"""``agentprompt select``: let a model choose the files a request needs.

The model is named by ``--model`` or the ``AGENTPROMPT_MODEL`` environment variable (or
the config file, see :mod:`agentprompt.llm.config`); :func:`resolve_model` turns the name
into a prompt executor: ``openai:NAME`` and ``anthropic:NAME`` ask a real model through its
SDK, ``script:FILE`` replays the answers listed in a JSON file (a demo or a test with no
network). Tests may also replace :func:`resolve_model` with one returning a test model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from rich.table import Table

from agentprompt.cli._model import ModelOptions, model_options
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
from agentprompt.errors import UsageError
from agentprompt.llm.base import PromptExecutor
from agentprompt.llm.clients import make_client
from agentprompt.llm.config import MODEL_ENV, resolve_model_config
from agentprompt.llm.errors import ModelConfigError, ScriptOutOfAnswers
from agentprompt.llm.executor import ClientPromptExecutor
from agentprompt.llm.script import load_script_model
from agentprompt.repo.discovery import discover
from agentprompt.repo.discovery.patterns import filter_discovery
from agentprompt.repo.selection import FileSelection, SelectionOptions, select_files

__all__ = [
    "MODEL_ENV",
    "SCRIPT_PREFIX",
    "ModelNotConfigured",
    "ScriptOutOfAnswers",
    "resolve_model",
    "select_command",
]


SCRIPT_PREFIX = "script:"
"""``--model script:FILE`` answers from a JSON list in FILE, one item per round (no network)."""


class ModelNotConfigured(UsageError):
    """``select`` needs a model, and none is configured or the configuration is unusable."""


def resolve_model(
    name: str | None,
    *,
    base_url: str | None = None,
    api_key_env: str | None = None,
    timeout: float | None = None,
) -> PromptExecutor:
    """The prompt executor for the model ``name`` (or ``$AGENTPROMPT_MODEL``, or the config
    file's ``model``), with the server, key variable and timeout the flags gave.

    Raises :class:`ModelNotConfigured` when no model is named or its configuration (model
    name, config file, script file) is unusable, and a
    :class:`~agentprompt.llm.errors.ModelError` such as
    :class:`~agentprompt.llm.errors.MissingApiKey` when the client cannot be made.
    """
    try:
        config = resolve_model_config(
            name, base_url=base_url, api_key_env=api_key_env, timeout=timeout
        )
        if config.provider == "script":
            return load_script_model(
                Path(config.model), advice="or pass --max-rounds to stop sooner"
            )
    except ModelConfigError as exc:
        raise ModelNotConfigured(f"select needs a usable model: {exc}") from None
    return ClientPromptExecutor(client=make_client(config))


def _tokenizer_model(model: str | None) -> str | None:
    """The model name to count tokens for: ``openai:gpt-4o`` counts as ``gpt-4o``."""
    if not model or model.startswith(SCRIPT_PREFIX):
        return None
    return model.split(":", 1)[-1]


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
    model_opts: ModelOptions,
    max_file_bytes: int,
    no_git: bool,
    as_json: bool,
) -> None:
    """Let a model choose the files a request needs, round by round (needs a model)."""
    check_root(root)
    options = SelectionOptions(
        filter=filter_re,
        exclude=exclude_re,
        max_files=max_files,
        include=forced,
        dir=directory,
        token_budget=max_tokens if max_tokens is not None else SelectionOptions().token_budget,
        max_rounds=max_rounds,
        allow_secrets=allow_secrets,
        model=_tokenizer_model(model_opts.model),
        tree_files=tree_files,
    )
    executor = resolve_model(
        model_opts.model,
        base_url=model_opts.base_url,
        api_key_env=model_opts.api_key_env,
        timeout=model_opts.timeout,
    )
    with scan_progress("scanning files", None, enabled=not as_json):
        found = filter_discovery(
            discover(root, discovery_options(max_file_bytes, False, (), no_git)),
            includes,
            excludes,
        )
    result = select_files(executor, task, found.root, options, discovery=found)
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
