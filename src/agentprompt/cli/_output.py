"""How every command prints: rich for people, JSON for programs, errors as exit status 2."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.text import Text

from agentprompt.commands import COMMAND_LINES
from agentprompt.jsondata import map_strings
from agentprompt.messages import Message
from agentprompt.wire import to_anthropic, to_openai, to_text

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_FAILED",
    "MESSAGE_FORMATS",
    "console",
    "diff_text",
    "err_console",
    "print_json",
    "printable",
    "show_json",
    "show_messages",
]

EXIT_FAILED = 1
"""A reported failure (an edit that did not apply)."""
EXIT_BAD_INPUT = 2
"""Bad usage or bad input."""

console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


ARGUMENTS = {
    "paths": "PATHS",
    "reply": "the reply",
    "files": "FILES",
    "command": "COMMAND",
    "note": "the note",
}
"""The inputs the command line takes as positional arguments, by their plain names."""


def flag_name(name: str) -> str:
    """How the command line names the input ``name`` (a library error's plain name):
    ``max_tokens`` is ``--max-tokens``, ``paths`` is ``PATHS``, ``recover`` is
    ``agentprompt apply --recover``."""
    return ARGUMENTS.get(name) or COMMAND_LINES.get(name) or "--" + name.replace("_", "-")


def printable(text: str) -> str:
    """``text`` with lone surrogates (which no terminal encoding can hold) made visible."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def diff_text(diff: str) -> Text:
    """``diff`` coloured for a terminal: additions green, removals red, hunk heads cyan."""
    out = Text()
    for line in diff.splitlines(keepends=True):
        if line.startswith(("+++", "---", "diff --git", "new file", "deleted file")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        else:
            style = ""
        out.append(printable(line), style=style)
    return out


def show_json(data: Any) -> None:
    """Pretty-print ``data`` as coloured JSON for people."""
    console.print_json(data=map_strings(data, printable))


def print_json(data: Any) -> None:
    """Write ``data`` to stdout as indented JSON (non-ASCII text kept readable)."""
    sys.stdout.write(printable(json.dumps(data, ensure_ascii=False, indent=2)) + "\n")


MESSAGE_FORMATS = ("text", "openai", "anthropic")
"""The forms ``--format`` offers for showing composed messages."""


def show_messages(messages: Sequence[Message], fmt: str) -> None:
    """Show composed messages to people as text, or in OpenAI or Anthropic wire form."""
    if fmt == "openai":
        show_json(to_openai(messages))
    elif fmt == "anthropic":
        show_json(to_anthropic(messages))
    else:
        console.print(printable(to_text(messages)), markup=False, end="")
