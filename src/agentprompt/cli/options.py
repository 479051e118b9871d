"""Options several commands share, defined once."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["include_generated_option", "root_option"]

root_option = click.option(
    "--root",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="The repository root.",
)
"""The ``--root`` option: the repository a command works on (default: this folder)."""

include_generated_option = click.option(
    "--include-generated",
    is_flag=True,
    help="Keep generated and minified files (*.min.js, source maps, files with a generator's "
    "header or very long lines).",
)
"""``--include-generated``: discovery keeps generated and minified files (``tree``, ``map``,
``pack``)."""
