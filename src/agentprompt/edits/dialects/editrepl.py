"""Seed 004's EDIT/REPL blocks (SPEC.md):

```
path/to/file.ext
««« EDIT
[context lines]
[old lines]
═══════ REPL
[the same context lines]
[new lines]
»»» EDIT END
```

The lines both sections share at their start are the anchor. An empty EDIT section creates
the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.edits.actions import AnchoredEdit
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    BlockReader,
    ScanState,
    note,
    path_before,
    text_of,
)

__all__ = ["DIALECT", "EditReplDialect", "is_edit_marker"]

NAME = "editrepl"
_EDIT = re.compile(r"^\s*«{3}\s*EDIT\s*$")
_REPL = re.compile(r"^\s*═{3,}\s*REPL\s*$")
_END = re.compile(r"^\s*»{3}\s*EDIT\s+END\s*$")


def is_edit_marker(line: str) -> bool:
    """True for a ``««« EDIT`` line."""
    return _EDIT.match(line) is not None


def shared_prefix(old: Sequence[str], new: Sequence[str]) -> list[str]:
    """The leading lines ``old`` and ``new`` have in common: the anchor."""
    anchor: list[str] = []
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        anchor.append(a)
    return anchor


@dataclass(frozen=True)
class EditReplDialect:
    """Seed 004's EDIT/REPL dialect."""

    name: str = NAME
    """Registry name."""
    prompt: str = "edits/dialect_editrepl"
    """Instruction prompt name."""
    lang: str = "en"
    """The language of that prompt (other languages are ``<prompt>_<lang>``)."""

    def detect(self, text: str) -> bool:
        """True when ``text`` holds a ``««« EDIT`` line."""
        return any(is_edit_marker(line) for line in text.splitlines())

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """A ``««« EDIT`` line."""
        return is_edit_marker(lines[i])

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the block that starts at line ``i``."""
        return _Reader(start=i, j=i + 1, state=state)


@dataclass
class _Reader:
    start: int
    j: int
    state: ScanState
    divider: int | None = None

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        n = len(lines)
        while self.j < n:
            line = lines[self.j]
            if _END.match(line):
                return self._finish(lines, self.j)
            if self.divider is None and _REPL.match(line):
                self.divider = self.j
            elif is_edit_marker(line):
                return self._broken(
                    self.j,
                    "missing-edit-end",
                    "A new '««« EDIT' began before this block's '»»» EDIT END'; this block was "
                    "skipped. Close every block with '»»» EDIT END'.",
                )
            self.j += 1
        if not final:
            return None
        return self._broken(
            n,
            "truncated",
            "The reply was cut off inside this EDIT block; it was dropped. Send it again.",
        )

    def _broken(self, end: int, code: str, message: str) -> BlockOutcome:
        block = self.state.take_block()
        diagnostic = note("error", code, message, line=self.start + 1, block=block, dialect=NAME)
        return BlockOutcome(end=end, diagnostics=(diagnostic,))

    def _finish(self, lines: Sequence[str], last: int) -> BlockOutcome:
        if self.divider is None:
            return self._broken(
                last + 1,
                "missing-divider",
                "This EDIT block has no '═══════ REPL' line between the old and the new "
                "section; it was skipped.",
            )
        path = path_before(lines, self.start, lenient=True)
        if path is None:
            return self._broken(
                last + 1,
                "missing-path",
                "No file path is on the line before this '««« EDIT'; put the file's path there.",
            )
        old = lines[self.start + 1 : self.divider]
        new = lines[self.divider + 1 : last]
        action = AnchoredEdit(
            path=path,
            search=text_of(old),
            replace=text_of(new),
            anchor=text_of(shared_prefix(old, new)),
            dialect=NAME,
            block=self.state.take_block(),
            line=self.start + 1,
        )
        return BlockOutcome(end=last + 1, actions=(action,))


DIALECT = EditReplDialect()
"""The registered instance."""
