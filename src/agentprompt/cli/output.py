"""How every command prints: rich for people, JSON for programs, errors as exit status 2."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

from agentprompt.jsondata import map_strings

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "console",
    "err_console",
    "print_json",
    "printable",
    "show_json",
]

EXIT_FAILED = 1
"""A reported failure (an edit that did not apply)."""
EXIT_BAD_INPUT = 2
"""Bad usage or bad input."""

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def printable(text: str) -> str:
    """``text`` with lone surrogates (which no terminal encoding can hold) made visible."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def show_json(data: Any) -> None:
    """Pretty-print ``data`` as coloured JSON for people."""
    console.print_json(data=map_strings(data, printable))


def print_json(data: Any) -> None:
    """Write ``data`` to stdout as indented JSON (non-ASCII text kept readable)."""
    sys.stdout.write(printable(json.dumps(data, ensure_ascii=False, indent=2)) + "\n")
