"""Hunks as models write them, shared by unified diffs, bridge DIFF blocks and apply_patch.

Headers may carry numbers (``@@ -a,b +c,d @@``, counts often wrong), none (``@@ ... @@``,
``@@``), or apply_patch's scope line (``@@ class Foo:``). Context lines that lost their leading
space (an empty line, or text with no prefix) are read as context; ``\\ No newline at end of
file`` is remembered on the hunk.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.edits.actions import Diagnostic, Hunk

__all__ = ["HunkHeader", "is_body_line", "parse_header", "parse_hunks"]

_NUMBERED = re.compile(r"^@@+\s*-(\d+)(?:,(\d+))?\s+\+(\d+)(?:,(\d+))?\s*(?:@@+.*)?$")
_END_OF_FILE = "*** End of File"


@dataclass(frozen=True, kw_only=True)
class HunkHeader:
    """What an ``@@`` line says."""

    old_start: int | None = None
    """``a`` of ``-a,b``."""
    old_count: int | None = None
    """``b`` of ``-a,b``."""
    new_start: int | None = None
    """``c`` of ``+c,d``."""
    new_count: int | None = None
    """``d`` of ``+c,d``."""
    scope: str | None = None
    """The text after ``@@`` when it is not numbers (apply_patch's scope line)."""
    malformed: bool = False
    """The header looked numbered but could not be read."""


def parse_header(line: str) -> HunkHeader:
    """The numbers or scope of an ``@@`` header line."""
    stripped = line.rstrip()
    match = _NUMBERED.match(stripped)
    if match:
        a, b, c, d = match.groups()
        return HunkHeader(
            old_start=int(a),
            old_count=int(b) if b is not None else None,
            new_start=int(c),
            new_count=int(d) if d is not None else None,
        )
    rest = stripped.lstrip("@").rstrip("@").strip()
    if rest in ("", "...", "…"):
        return HunkHeader()
    if re.match(r"^-\d|^-?\d+,\d", rest):
        return HunkHeader(malformed=True)
    return HunkHeader(scope=rest)


def is_body_line(line: str) -> bool:
    """True for a line that can be inside a hunk: a prefixed line, an empty line, or ``\\``."""
    return line == "" or line[0] in " -+\\"


@dataclass
class _Open:
    header: HunkHeader
    line: int
    lines: list[str]
    blank: list[bool]
    no_newline: bool = False
    at_end: bool = False


def _close(hunk: _Open) -> Hunk | None:
    """The finished hunk: trailing lines that were empty in the reply are dropped unless the
    header's old count needs them (models leave a blank line between hunks)."""
    lines, blank = hunk.lines, hunk.blank
    trailing = 0
    while trailing < len(lines) and blank[len(lines) - 1 - trailing]:
        trailing += 1
    kept = len(lines) - trailing
    if trailing and hunk.header.old_count is not None:
        seen = sum(1 for line in lines[:kept] if line[0] in " -")
        kept += max(0, min(trailing, hunk.header.old_count - seen))
    body = tuple(lines[:kept])
    if not body:
        return None
    h = hunk.header
    return Hunk(
        lines=body,
        old_start=h.old_start,
        old_count=h.old_count,
        new_start=h.new_start,
        new_count=h.new_count,
        scope=h.scope,
        at_end_of_file=hunk.at_end,
        no_newline_at_end=hunk.no_newline,
    )


def parse_hunks(
    lines: Sequence[str], first_line: int, *, dialect: str, block: int
) -> tuple[list[Hunk], list[Diagnostic]]:
    """The hunks in ``lines`` (``first_line`` is the 1-based reply line of ``lines[0]``).

    Lines before the first header form a hunk without numbers. Unprefixed lines are read as
    context with a warning.
    """
    hunks: list[Hunk] = []
    notes: list[Diagnostic] = []
    current: _Open | None = None

    def note(severity: str, code: str, message: str, at: int) -> None:
        notes.append(
            Diagnostic(
                severity="error" if severity == "error" else "warning",
                code=code,
                message=message,
                line=at,
                block=block,
                dialect=dialect,
            )
        )

    def finish() -> None:
        if current is None:
            return
        done = _close(current)
        if done is None:
            note("warning", "empty-hunk", "A hunk with no lines was skipped.", current.line)
        else:
            hunks.append(done)

    for offset, line in enumerate(lines):
        at = first_line + offset
        if line.startswith("@@"):
            finish()
            header = parse_header(line)
            if header.malformed:
                note(
                    "warning",
                    "bad-hunk-header",
                    f"The hunk header {line.strip()!r} could not be read; the hunk is placed "
                    "by its context alone.",
                    at,
                )
            current = _Open(header=header, line=at, lines=[], blank=[])
            continue
        if line.rstrip() == _END_OF_FILE:
            if current is not None:
                current.at_end = True
            continue
        if current is None:
            current = _Open(header=HunkHeader(), line=at, lines=[], blank=[])
        if line.startswith("\\"):
            if current.lines and current.lines[-1][0] in " +":
                current.no_newline = True
            continue
        if line == "" or line[0] in " -+":
            current.lines.append(line or " ")
            current.blank.append(line == "")
            continue
        note(
            "warning",
            "missing-prefix",
            f"Line {at} has no ' ', '-' or '+' prefix; it was read as a context line.",
            at,
        )
        current.lines.append(" " + line)
        current.blank.append(False)
    finish()
    return hunks, notes
