"""Options several commands share, defined once."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click

from agentprompt.cli._output import MESSAGE_FORMATS
from agentprompt.edits.dialect_names import AUTO, DIALECT_NAMES
from agentprompt.errors import UsageError
from agentprompt.project_root import check_root, find_project_root
from agentprompt.services import (
    BUDGET_ENV,
    CHAT_BUDGETS,
    DEFAULT_MAX_TOKENS,
    PROJECT_CONFIG,
)

FC = TypeVar("FC", bound=Callable[..., object])

__all__ = [
    "chat_option",
    "check_root",
    "dialect_option",
    "exclude_option",
    "format_option",
    "include_generated_option",
    "include_option",
    "json_option",
    "make_format_option",
    "make_root_option",
    "max_tokens_option",
    "no_cache_option",
    "port_option",
    "prompt_budget_option",
    "read_text_source",
    "root_option",
    "verbose_option",
]


def make_root_option(help_text: str, *, find_repository: bool = False) -> Callable[[FC], FC]:
    """``--root DIR``, the folder a command works on, described by ``help_text``.

    By default it is taken as given, and is this folder when not given. With
    ``find_repository`` it must be an existing folder, and when not given it is the
    repository around this folder (:func:`~agentprompt.project_root.find_project_root`):
    the commands that act on the user's project (its sessions, prompts, instructions,
    commits) work from anywhere inside it.
    """
    if find_repository:
        return click.option(
            "--root",
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            default=None,
            callback=_repository_around_cwd,
            help=help_text,
        )
    return click.option(
        "--root",
        type=click.Path(path_type=Path),
        default=Path("."),
        show_default=True,
        help=help_text,
    )


def _repository_around_cwd(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path:
    return value if value is not None else find_project_root()


root_option = make_root_option("The repository root.")
"""The ``--root`` option: the repository a command works on (default: this folder)."""


def json_option(help_text: str = "Print JSON.") -> Callable[[FC], FC]:
    """``--json``: print the result as JSON for programs (bad input then comes as
    ``{"error": ...}`` on stdout too); ``help_text`` says what is printed."""
    return click.option("--json", "as_json", is_flag=True, help=help_text)


def port_option(help_text: str) -> Callable[[FC], FC]:
    """``--port N``: a port on 127.0.0.1 for the commands that serve (0: a free one)."""
    return click.option(
        "--port",
        type=click.IntRange(min=0, max=65535),
        default=0,
        show_default=True,
        metavar="N",
        help=help_text,
    )


include_generated_option = click.option(
    "--include-generated",
    is_flag=True,
    help="Keep generated and minified files (*.min.js, source maps, files with a generator's "
    "header or very long lines).",
)
"""``--include-generated``: discovery keeps generated and minified files (``tree``, ``map``,
``pack``)."""


include_option = click.option(
    "--include",
    "includes",
    multiple=True,
    metavar="PATTERN",
    help="Only files this gitignore pattern matches ('src/', '*.py'); repeatable.",
)
"""``--include``: gitignore patterns; when given, only the files they match are kept."""

exclude_option = click.option(
    "--exclude",
    "excludes",
    multiple=True,
    metavar="PATTERN",
    help="Leave out files this gitignore pattern matches ('docs/', '*.min.js', "
    "'/CHANGES.rst'); repeatable.",
)
"""``--exclude``: gitignore patterns of files to leave out."""


verbose_option = click.option(
    "--verbose",
    is_flag=True,
    help="List each file left out as generated or binary, with the reason (without it, one "
    "line counts them).",
)
"""``--verbose``: list the files discovery left out as generated or binary, one line each
(``pack``, ``map``, ``rank``); without it they are counted in one line."""


no_cache_option = click.option(
    "--no-cache", is_flag=True, help="Parse every file; neither read nor write the cache."
)
"""``--no-cache``: parse every file afresh, neither reading nor writing the symbol cache
(``map``, ``rank``)."""

dialect_option = click.option(
    "--dialect",
    default=AUTO,
    show_default=True,
    metavar="NAME",
    help=f"The reply's dialect: {', '.join([AUTO, *DIALECT_NAMES])}.",
)
"""``--dialect NAME``: the dialect a reply is read in, or ``auto`` to detect it by its
markers (``parse``, ``apply``)."""


def make_format_option(
    help_text: str = "How to show the messages.", *, choices: Sequence[str] = MESSAGE_FORMATS
) -> Callable[[FC], FC]:
    """``--format``: the form a command prints its messages in, one of ``choices`` (default
    the first), described by ``help_text``; the command receives it as ``fmt``."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(choices)),
        default=choices[0],
        help=help_text,
    )


format_option = make_format_option()
"""``--format text|openai|anthropic``: how a command that shows composed messages shows
them (``commit-msg``, ``inspect``, ``workflow``)."""


def max_tokens_option(help_text: str, *, aliases: tuple[str, ...] = ()) -> Callable[[FC], FC]:
    """``--max-tokens N``, the token budget in every command (``aliases``: older spellings,
    accepted but not shown in ``--help``)."""

    def decorate(function: FC) -> FC:
        function = click.option(
            "--max-tokens",
            "max_tokens",
            type=click.IntRange(min=1),
            metavar="N",
            help=help_text,
            callback=_keep_alias("max_tokens"),
        )(function)
        for alias in aliases:
            function = click.option(
                alias,
                "max_tokens_" + alias.strip("-").replace("-", "_"),
                type=click.IntRange(min=1),
                metavar="N",
                hidden=True,
                expose_value=False,
                callback=_alias_to("max_tokens"),
            )(function)
        return function

    return decorate


def prompt_budget_option(function: FC) -> FC:
    """``--max-tokens N|none``: a bridge session's budget, as text the bridge service reads
    (a whole number of tokens, or ``none`` for no budget); not given, ``--chat``, the
    environment, the project's config file or the default decide."""
    return click.option(
        "--max-tokens",
        "max_tokens",
        metavar="N|none",
        help=f"Fit the prompt to N tokens (in rank order, each file keeps the most of it that "
        f"fits: its text, its summary or its path); none: no "
        f"budget, the whole repository. Default {DEFAULT_MAX_TOKENS:,}, one paste into the "
        f"common web chats; else --chat, then {BUDGET_ENV} (a number, a chat or none), then "
        f"max_tokens or chat in {PROJECT_CONFIG}.",
    )(function)


chat_option = click.option(
    "--chat",
    metavar="NAME",
    help="Fit the prompt to one paste into this chat (--max-tokens wins over it): "
    + ", ".join(f"{name} ({tokens:,} tokens)" for name, tokens in CHAT_BUDGETS.items())
    + " (our conservative choices: a chat's real limit depends on its plan and model).",
)
"""``--chat NAME``: a chat preset whose budget a bridge session's prompts take."""


def _keep_alias(name: str) -> Any:
    """The main option's callback: not given, it keeps what an alias already set."""

    def callback(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
        earlier = ctx.params.get(name)
        if value is not None and earlier is not None and earlier != value:
            raise UsageError(f"give the budget once, as --{name.replace('_', '-')} N")
        return value if value is not None else earlier

    return callback


def _alias_to(name: str) -> Any:
    def callback(ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
        if value is not None:
            if ctx.params.get(name) is not None and ctx.params[name] != value:
                raise UsageError(f"give the budget once, as --{name.replace('_', '-')} N")
            ctx.params[name] = value
        return value

    return callback


def read_text_source(source: str, what: str) -> str:
    """The UTF-8 text of file ``source``, or of standard input for ``-`` (``what`` names it
    in the errors: ``reply``, ``task``); unreadable or non-UTF-8 input is a
    :class:`UsageError`."""
    name = "standard input" if source == "-" else source
    try:
        raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {name}: {exc.strerror or exc}") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UsageError(
            f"{name} is not UTF-8 text (byte {exc.start} cannot be decoded); save the {what} "
            "as UTF-8"
        ) from None
