"""Options several commands share, defined once."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["root_option"]

root_option = click.option(
    "--root",
    type=click.Path(path_type=Path),
    default=Path("."),
    show_default=True,
    help="The repository root.",
)
"""The ``--root`` option: the repository a command works on (default: this folder)."""
