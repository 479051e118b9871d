"""Options several commands share, defined once."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from agentprompt.errors import UsageError

FC = TypeVar("FC", bound=Callable[..., object])

__all__ = ["include_generated_option", "port_option", "read_text_source", "root_option"]

root_option = click.option(
    "--root",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="The repository root.",
)
"""The ``--root`` option: the repository a command works on (default: this folder)."""


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
