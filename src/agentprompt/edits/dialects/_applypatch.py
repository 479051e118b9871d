"""The apply_patch envelope:

```
*** Begin Patch
*** Add File: path          lines prefixed '+'
*** Delete File: path
*** Update File: path
*** Move to: new/path       (optional)
@@ scope line               sections of ' ', '-', '+' lines
*** End of File             (where a change touches the end)
*** End Patch
```

Each file operation is its own block. A patch cut off before ``*** End Patch`` keeps the
operations before the last one, which is dropped as truncated (even a ``*** Delete File``,
whose path may have been cut).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from agentprompt.edits.actions import Action, DeleteFile, Diagnostic, MoveFile, PatchFile, WriteFile
from agentprompt.edits.dialects._hunk_text import parse_hunks
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    BlockReader,
    Fence,
    ScanState,
    clean_path,
    closes_fence,
    diagnostic_text,
    note,
    text_of,
)

__all__ = ["DIALECT", "ApplyPatchDialect", "is_begin_patch"]

NAME = "applypatch"
_BEGIN = re.compile(r"^\*\*\* Begin Patch\s*$")
_END = re.compile(r"^\*\*\* End Patch\s*$")
_OP = re.compile(r"^\*\*\* (Add File|Delete File|Update File|Move to):(.*)$")


def is_begin_patch(line: str) -> bool:
    """True for a ``*** Begin Patch`` line."""
    return _BEGIN.match(line) is not None


@dataclass(frozen=True)
class ApplyPatchDialect:
    """The apply_patch dialect."""

    name: str = NAME
    """Registry name."""
    prompt: str = "edits/dialect_applypatch"
    """Instruction prompt name."""
    lang: str = "en"
    """The language of that prompt (other languages are ``<prompt>_<lang>``)."""

    def detect(self, text: str) -> bool:
        """True when ``text`` holds a ``*** Begin Patch`` line."""
        return any(is_begin_patch(line) for line in text.split("\n"))

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """A ``*** Begin Patch`` line."""
        return is_begin_patch(lines[i])

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the patch that starts at line ``i``."""
        return _Reader(start=i, j=i + 1, fence=state.fence, state=state, segment=i + 1)


@dataclass
class _Reader:
    start: int
    j: int
    fence: Fence | None
    state: ScanState
    segment: int = 0
    """The first line of the operations not released yet."""
    op_seen: bool = False
    """An operation line was read since ``segment``."""

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        n = len(lines)
        while self.j < n:
            line = lines[self.j]
            if _END.match(line):
                return self._finish(lines, self.j, self.j + 1, ended=True)
            if is_begin_patch(line) or (self.fence is not None and closes_fence(line, self.fence)):
                return self._finish(lines, self.j, self.j, ended=False)
            op = _OP.match(line.rstrip())
            if op is not None and op.group(1) != "Move to":
                if self.op_seen:
                    return self._release(lines)
                self.op_seen = True
            self.j += 1
        if not final:
            return None
        return self._finish(lines, n, n, ended=False, truncated=True)

    def _release(self, lines: Sequence[str]) -> BlockOutcome:
        """The operations before line ``j`` (a further operation starts there, so they are
        complete), released before the patch ends."""
        ops, notes = _split(lines, self.segment, self.j)
        self.segment = self.j
        self.op_seen = False
        actions = self._build(lines, ops, notes)
        return BlockOutcome(end=self.j, actions=actions, diagnostics=tuple(notes), partial=True)

    def _build(
        self, lines: Sequence[str], ops: Sequence[_Op], notes: list[Diagnostic]
    ) -> tuple[Action, ...]:
        actions: list[Action] = []
        for op in ops:
            action, found = _build(lines, op, self.state.take_block())
            if action is not None:
                actions.append(action)
            notes.extend(found)
        notes.sort(key=lambda d: d.line)
        return tuple(actions)

    def _finish(
        self,
        lines: Sequence[str],
        body_end: int,
        end: int,
        *,
        ended: bool,
        truncated: bool = False,
    ) -> BlockOutcome:
        ops, notes = _split(lines, self.segment, body_end)
        if truncated and ops:
            last = ops.pop()
            notes.append(
                note(
                    "error",
                    "truncated",
                    diagnostic_text("applypatch_truncated", path=last.path)
                    if last.path
                    else diagnostic_text("applypatch_truncated_unnamed"),
                    line=last.line,
                    block=None,
                    dialect=NAME,
                )
            )
        elif not ended:
            notes.append(
                note(
                    "warning",
                    "missing-end-patch",
                    diagnostic_text("applypatch_missing_end"),
                    line=self.start + 1,
                    block=None,
                    dialect=NAME,
                )
            )
        actions = self._build(lines, ops, notes)
        return BlockOutcome(end=end, actions=actions, diagnostics=tuple(notes))


@dataclass
class _Op:
    kind: str
    path: str
    line: int
    move_to: str | None = None
    body: list[int] = field(default_factory=list)


def _split(lines: Sequence[str], start: int, end: int) -> tuple[list[_Op], list[Diagnostic]]:
    """The file operations between ``*** Begin Patch`` and its end."""
    ops: list[_Op] = []
    notes: list[Diagnostic] = []
    for i in range(start, end):
        line = lines[i]
        match = _OP.match(line.rstrip())
        if match and match.group(1) == "Move to" and ops:
            ops[-1].move_to = clean_path(match.group(2))
        elif match and match.group(1) != "Move to":
            ops.append(_Op(kind=match.group(1), path=clean_path(match.group(2)), line=i + 1))
        elif ops:
            ops[-1].body.append(i)
        elif line.strip():
            notes.append(
                note(
                    "warning",
                    "stray-line",
                    diagnostic_text("applypatch_stray_line", line=i + 1),
                    line=i + 1,
                    block=None,
                    dialect=NAME,
                )
            )
    return ops, notes


def _build(lines: Sequence[str], op: _Op, block: int) -> tuple[Action | None, list[Diagnostic]]:
    notes: list[Diagnostic] = []
    if not op.path:
        notes.append(
            note(
                "error",
                "missing-path",
                diagnostic_text("applypatch_missing_path", kind=op.kind),
                line=op.line,
                block=block,
                dialect=NAME,
            )
        )
        return None, notes
    if op.move_to is not None and op.kind != "Update File":
        notes.append(
            note(
                "error",
                "misplaced-move",
                diagnostic_text("applypatch_misplaced_move", kind=op.kind, path=op.path),
                line=op.line,
                block=block,
                dialect=NAME,
            )
        )
        return None, notes
    body = [lines[i] for i in op.body]
    if op.kind == "Delete File":
        return DeleteFile(path=op.path, dialect=NAME, block=block, line=op.line), notes
    if op.kind == "Add File":
        while body and not body[-1].strip():
            body.pop()
        if any(not row.startswith("+") for row in body):
            notes.append(
                note(
                    "warning",
                    "missing-prefix",
                    diagnostic_text("applypatch_missing_prefix", path=op.path),
                    line=op.line,
                    block=block,
                    dialect=NAME,
                )
            )
        content = text_of([row[1:] if row.startswith("+") else row for row in body])
        return WriteFile(
            path=op.path, content=content, create_only=True, dialect=NAME, block=block, line=op.line
        ), notes
    hunks, found = parse_hunks(
        body, op.body[0] + 1 if op.body else op.line, dialect=NAME, block=block
    )
    notes.extend(found)
    if not hunks:
        if op.move_to:
            return MoveFile(
                path=op.path, to=op.move_to, dialect=NAME, block=block, line=op.line
            ), notes
        notes.append(
            note(
                "error",
                "empty-patch",
                diagnostic_text("applypatch_empty_patch", path=op.path),
                line=op.line,
                block=block,
                dialect=NAME,
            )
        )
        return None, notes
    return PatchFile(
        path=op.path,
        hunks=tuple(hunks),
        move_to=op.move_to,
        dialect=NAME,
        block=block,
        line=op.line,
    ), notes


DIALECT = ApplyPatchDialect()
"""The registered instance."""
