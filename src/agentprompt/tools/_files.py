"""The file tools: read, write, edit (search and replace) and line edit.

Every path goes through the edit engine's path safety (:mod:`agentprompt.edits.paths`):
nothing outside the root, under ``.git`` or through an escaping symlink is read or
written. The agent may read ``.agentprompt/`` but never write there: it holds agentprompt's
own configuration and state (prompt overrides, agent definitions, sessions), and a model
that could rewrite its own instructions would keep whatever a hostile file told it to.
Writes and edits are applied by :func:`agentprompt.edits.apply_actions`, so each call is
one transaction and a failed match comes back as the engine's feedback text.
"""

from __future__ import annotations

import threading
from typing import Literal

from agentprompt.edits import ApplyOptions, ApplyReport, SearchReplace, WriteFile, apply_actions
from agentprompt.edits.actions import FileAction
from agentprompt.edits.paths import UnsafePath, resolve_inside, resolve_target
from agentprompt.tools.context import ToolContext, ToolFailure

__all__ = ["edit", "line_edit", "read", "write"]

DIALECT = "tool"
"""The dialect name the edit engine records for actions made by these tools."""

_WRITES = threading.RLock()
"""Serialises this process's writes: the edit engine's repository lock refuses, rather than
waits for, a second apply, and the batch tool runs tools in threads."""


def _read_text(ctx: ToolContext, path: str) -> str:
    """The whole UTF-8 text of ``path``, for a tool that rewrites it."""
    real, info = resolve_target(ctx.root, path)
    if info is None:
        raise ToolFailure(f"{path} does not exist; check the path with ls or glob")
    data = real.read_bytes()
    if b"\0" in data:
        raise ToolFailure(f"{path} is a binary file; only text files can be edited")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ToolFailure(
            f"{path} is not UTF-8 text (invalid byte at offset {exc.start})"
        ) from None


def read(ctx: ToolContext, path: str, offset: int = 1, limit: int | None = None) -> str:
    """Read a text file; lines are numbered.

    Args:
        path: The file, relative to the repository root.
        offset: The first line to show, from 1.
        limit: How many lines to show (default: to the end, within the size limit).
    """
    if offset < 1:
        raise ToolFailure(f"offset must be 1 or more, not {offset}")
    if limit is not None and limit < 1:
        raise ToolFailure(f"limit must be 1 or more, not {limit}")
    real, info = resolve_target(ctx.root, path)
    if info is None:
        raise ToolFailure(f"{path} does not exist; check the path with ls or glob")
    budget = ctx.policy.max_read_bytes
    shown: list[str] = []
    used = 0
    number = 0
    stop = ""
    with open(real, "rb") as stream:
        if b"\0" in stream.read(8192):
            raise ToolFailure(f"{path} is a binary file; only text files can be read")
        stream.seek(0)
        for number, raw in enumerate(stream, start=1):
            if number < offset:
                continue
            if limit is not None and len(shown) == limit:
                stop = f"[more lines follow; read on with offset={number}]"
                break
            if used + len(raw) > budget:
                if shown:
                    stop = f"[{budget}-byte read limit reached; read on with offset={number}]"
                    break
                raw = raw[:budget]
                stop = f"[line {number} cut at the {budget}-byte read limit]"
            used += len(raw)
            shown.append(f"{number:>6}\t{_decode_line(raw, path, number)}")
            if stop:
                break
    if not shown:
        if number == 0:
            return f"{path} is empty."
        raise ToolFailure(f"{path} has {number} line(s); offset {offset} is past its end")
    return "\n".join([*shown, stop] if stop else shown)


def _decode_line(raw: bytes, path: str, number: int) -> str:
    text = raw.rstrip(b"\r\n")
    if number == 1 and text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start >= len(text) - 3 and exc.reason == "unexpected end of data":
            return text[: exc.start].decode("utf-8")
        raise ToolFailure(
            f"{path} is not UTF-8 text (line {number} holds an invalid byte)"
        ) from None


CONFIG_DIR = ".agentprompt"
"""agentprompt's own folder in a repository, which the agent's tools never write."""


def _refuse_own_config(ctx: ToolContext, path: str) -> None:
    try:
        target = resolve_inside(ctx.root, path)
    except UnsafePath:
        return  # the edit engine refuses it, with its own reason
    own = (ctx.root / CONFIG_DIR).resolve()
    if target == own or own in target.parents:
        raise ToolFailure(
            f"{path} is in {CONFIG_DIR}/, agentprompt's own configuration and state (prompt "
            "overrides, agent definitions, sessions); the agent may not change it. Tell the "
            "user what should change there and let them edit it."
        )


def _apply(ctx: ToolContext, action: FileAction, tool: str) -> ApplyReport:
    _refuse_own_config(ctx, action.path)
    with _WRITES:
        report = apply_actions(ctx.root, [action], ApplyOptions(tool=tool))
    if report.failed:
        raise ToolFailure(report.feedback or report.failed[0].reason)
    return report


def write(ctx: ToolContext, path: str, content: str) -> str:
    """Create a file or replace its whole content.

    Args:
        path: The file, relative to the repository root.
        content: The entire new content of the file.
    """
    report = _apply(ctx, WriteFile(dialect=DIALECT, path=path, content=content), "write")
    lines = content.count("\n") + (not content.endswith("\n") and content != "")
    if not report.written:
        return f"{path} already holds this content; nothing changed."
    return f"Wrote {path} ({lines} line(s))."


def edit(ctx: ToolContext, path: str, old_string: str, new_string: str) -> str:
    """Replace one occurrence of a piece of text in a file.

    Args:
        path: The file, relative to the repository root.
        old_string: The exact text to find; it must occur once (include surrounding lines).
        new_string: The text to put in its place.
    """
    if not old_string.strip():
        raise ToolFailure("old_string is empty; give the text to replace, or use write")
    if old_string == new_string:
        raise ToolFailure("old_string and new_string are the same; nothing would change")
    action = SearchReplace(dialect=DIALECT, path=path, search=old_string, replace=new_string)
    report = _apply(ctx, action, "edit")
    return f"Edited {path}.\n{report.diff}".rstrip("\n")


def line_edit(
    ctx: ToolContext,
    path: str,
    operation: Literal["replace", "insert", "delete"],
    line_number: int,
    content: str = "",
    num_lines: int = 1,
) -> str:
    """Change a file by line numbers: replace, insert before, or delete lines.

    Args:
        path: The file, relative to the repository root.
        operation: replace lines, insert before a line, or delete lines.
        line_number: The first line concerned, from 1 (insert accepts one past the end).
        content: The new lines for replace and insert.
        num_lines: How many lines replace or delete takes away.
    """
    with _WRITES:
        return _line_edit(ctx, path, operation, line_number, content, num_lines)


def _line_edit(
    ctx: ToolContext, path: str, operation: str, line_number: int, content: str, num_lines: int
) -> str:
    text = _read_text(ctx, path)
    # The edit engine writes a file back with the line endings it already has.
    lines = text.replace("\r\n", "\n").splitlines(keepends=True)
    newline = "\n"
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    last = len(lines) + 1 if operation == "insert" else len(lines)
    if not 1 <= line_number <= max(last, 1):
        raise ToolFailure(
            f"line_number {line_number} is outside {path}, which has {len(lines)} line(s)"
        )
    if num_lines < 1:
        raise ToolFailure(f"num_lines must be 1 or more, not {num_lines}")
    new = [line + newline for line in content.splitlines()]
    start = line_number - 1
    if operation == "insert":
        lines[start:start] = new
        done = f"Inserted {len(new)} line(s) before line {line_number} of {path}."
    else:
        if start + num_lines > len(lines):
            raise ToolFailure(
                f"lines {line_number}-{line_number + num_lines - 1} run past the end of {path} "
                f"({len(lines)} line(s))"
            )
        lines[start : start + num_lines] = [] if operation == "delete" else new
        verb = "Deleted" if operation == "delete" else "Replaced"
        done = f"{verb} lines {line_number}-{line_number + num_lines - 1} of {path}."
    _apply(ctx, WriteFile(dialect=DIALECT, path=path, content="".join(lines)), "line_edit")
    return done
