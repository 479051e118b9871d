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
from agentprompt.edits.dialects.base import diagnostic_text, note

__all__ = ["HunkHeader", "is_body_line", "parse_header", "parse_hunks"]

_NUMBERED = re.compile(
    r"^@@+\s*-(\d{1,9})(?:,(\d{1,9}))?\s+\+(\d{1,9})(?:,(\d{1,9}))?\s*(?:@@+.*)?$"
)
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
    scopes: list[str]
    no_newline: bool = False
    old_no_newline: bool = False
    at_end: bool = False


def _close(hunk: _Open) -> Hunk | None:
    """The finished hunk: trailing lines that were empty in the reply are dropped (models
    leave a blank line between hunks and before a closing fence; a lost trailing context line
    only narrows the context, a spurious one would not match)."""
    lines, blank = hunk.lines, hunk.blank
    kept = len(lines)
    while kept and blank[kept - 1]:
        kept -= 1
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
        scope=hunk.scopes[-1] if hunk.scopes else None,
        scopes=tuple(hunk.scopes),
        at_end_of_file=hunk.at_end,
        no_newline_at_end=hunk.no_newline,
        old_no_newline_at_end=hunk.old_no_newline,
    )


def parse_hunks(
    lines: Sequence[str], first_line: int, *, dialect: str, block: int
) -> tuple[list[Hunk], list[Diagnostic]]:
    """The hunks in ``lines`` (``first_line`` is the 1-based reply line of ``lines[0]``).

    Lines before the first header form a hunk without numbers. Unprefixed lines are read as
    context with a warning. Scope headers with no lines between them (``@@ class A:`` then
    ``@@     def f(self):``) nest: the hunk carries them all.
    """
    hunks: list[Hunk] = []
    notes: list[Diagnostic] = []
    current: _Open | None = None

    def warn(code: str, message: str, at: int) -> None:
        notes.append(note("warning", code, message, line=at, block=block, dialect=dialect))

    def finish() -> None:
        if current is None:
            return
        done = _close(current)
        if done is None:
            warn("empty-hunk", diagnostic_text("hunk_empty"), current.line)
        else:
            hunks.append(done)

    for offset, line in enumerate(lines):
        at = first_line + offset
        if line.startswith("@@"):
            header = parse_header(line)
            if header.malformed:
                warn(
                    "bad-hunk-header",
                    diagnostic_text("hunk_bad_header", header=repr(line.strip())),
                    at,
                )
            if (
                current is not None
                and not current.lines
                and header.scope is not None
                and current.header.old_start is None
            ):
                current.scopes.append(header.scope)
                continue
            finish()
            scopes = [header.scope] if header.scope is not None else []
            current = _Open(header=header, line=at, lines=[], blank=[], scopes=scopes)
            continue
        if line.rstrip() == _END_OF_FILE:
            if current is not None:
                current.at_end = True
            continue
        if current is None:
            current = _Open(header=HunkHeader(), line=at, lines=[], blank=[], scopes=[])
        if line.startswith("\\"):
            last = current.lines[-1] if current.lines else ""
            if last[:1] in (" ", "+"):
                current.no_newline = True
            if last[:1] in (" ", "-"):
                current.old_no_newline = True
            continue
        if line == "" or line[0] in " -+":
            current.lines.append(line or " ")
            current.blank.append(line == "")
            continue
        warn(
            "missing-prefix",
            diagnostic_text("hunk_missing_prefix", line=at),
            at,
        )
        current.lines.append(" " + line)
        current.blank.append(False)
    finish()
    return hunks, notes
