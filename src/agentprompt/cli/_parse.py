"""``agentprompt parse``: the actions a model's reply holds, without applying them.

Exit status: 0 when the reply was read (warnings allowed), 1 when a block was lost or
unusable (an error-severity diagnostic, such as a cut-off block), 2 for unreadable input or
an unknown dialect.
"""

from __future__ import annotations

import sys

import click
from rich.table import Table
from rich.text import Text

from agentprompt.cli._options import dialect_option, json_option, read_text_source
from agentprompt.cli._output import EXIT_FAILED, console, print_json, printable
from agentprompt.edits.actions import (
    Action,
    AnchoredEdit,
    Continue,
    MoveFile,
    ParseResult,
    PatchFile,
    RequestFiles,
    SearchReplace,
    SwitchMode,
    WriteFile,
)
from agentprompt.edits.dialects import select_dialects
from agentprompt.edits.parse import parse_reply

__all__ = ["parse_command", "read_reply"]


def read_reply(source: str) -> str:
    """The text of a reply file, or of stdin for ``-``; unreadable or non-UTF-8 input is a
    :class:`UsageError`."""
    return read_text_source(source, "reply")


def _count(text: str) -> str:
    lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return f"{lines} line{'s' if lines != 1 else ''}"


def describe(action: Action) -> str:
    """One line saying what ``action`` asks for, beyond its kind and path."""
    match action:
        case WriteFile():
            return _count(action.content) + (" (new file only)" if action.create_only else "")
        case PatchFile():
            n = len(action.hunks)
            moved = f", then moved to {action.move_to}" if action.move_to else ""
            return f"{n} hunk{'s' if n != 1 else ''}{moved}"
        case AnchoredEdit():
            if not action.search:
                return f"create with {_count(action.replace)}"
            return f"anchor {_count(action.anchor)}; {_count(action.search)} → " + _count(
                action.replace
            )
        case SearchReplace():
            return f"search {_count(action.search)} → replace {_count(action.replace)}"
        case MoveFile():
            return f"to {action.to}"
        case RequestFiles():
            return ", ".join(action.paths)
        case SwitchMode():
            files = ", ".join(action.paths)
            return f"{action.mode}: {files}" + (f" ({action.reason})" if action.reason else "")
        case Continue():
            left = f"{action.remaining} left" if action.remaining is not None else "more to come"
            return left + (f": {', '.join(action.paths)}" if action.paths else "")
    return ""


def _show(result: ParseResult) -> None:
    if result.actions:
        table = Table(title=f"{len(result.actions)} action(s)")
        for column in ("block", "line", "dialect", "kind", "path", "what"):
            table.add_column(column)
        for action in result.actions:
            table.add_row(
                str(action.block),
                str(action.line),
                action.dialect,
                action.kind,
                Text(printable(getattr(action, "path", "") or "")),
                Text(printable(describe(action))),
            )
        console.print(table)
    else:
        console.print("No actions.")
    for d in result.diagnostics:
        style = "red" if d.severity == "error" else "yellow"
        where = f"line {d.line}" + (f", block {d.block}" if d.block is not None else "")
        line = Text(f"{d.severity} ", style=style)
        line.append(f"[{d.code}] {where}: ")
        line.append(printable(d.message))
        console.print(line)


@click.command("parse")
@click.argument("reply", required=False, default="-")
@dialect_option
@json_option()
def parse_command(reply: str, dialect: str, as_json: bool) -> None:
    """The actions a model's REPLY (a file, or - for stdin) holds, without applying them.

    Exits 1 when a block was lost or unusable (an error diagnostic), 2 for unreadable input.
    """
    select_dialects(dialect)
    text = read_reply(reply)
    result = parse_reply(text, dialect)
    if as_json:
        print_json(result.to_json())
    else:
        _show(result)
    if any(d.severity == "error" for d in result.diagnostics):
        sys.exit(EXIT_FAILED)
