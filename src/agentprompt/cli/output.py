"""How every command prints: rich for people, JSON for programs, errors as exit status 2."""

from __future__ import annotations

import json
import sys
from typing import Any

from rich.console import Console

__all__ = ["EXIT_BAD_INPUT", "EXIT_FAILED", "console", "err_console", "print_json"]

EXIT_FAILED = 1
"""A reported failure (an edit that did not apply)."""
EXIT_BAD_INPUT = 2
"""Bad usage or bad input."""

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def print_json(data: Any) -> None:
    """Write ``data`` to stdout as indented JSON (non-ASCII text kept readable)."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
