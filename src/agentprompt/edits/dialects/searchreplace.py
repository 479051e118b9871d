"""SEARCH/REPLACE blocks: a path line, optionally a fence, then

```
<<<<<<< SEARCH
text to find
=======
replacement
>>>>>>> REPLACE
```

Several blocks may share one fence; a block with no path line before it keeps the path of
the block before it (even when that block was malformed). The search and replacement are
kept exactly as written (each line with its newline).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.edits.actions import SearchReplace
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    BlockReader,
    ScanState,
    note,
    path_before,
    text_of,
)

__all__ = ["DIALECT", "SearchReplaceDialect", "is_search_marker"]

NAME = "searchreplace"
_SEARCH = re.compile(r"^\s*<{5,9}\s*SEARCH\b.*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9}\s*REPLACE\b.*$")


def is_search_marker(line: str) -> bool:
    """True for a ``<<<<<<< SEARCH`` line."""
    return _SEARCH.match(line) is not None


@dataclass(frozen=True)
class SearchReplaceDialect:
    """The SEARCH/REPLACE dialect."""

    name: str = NAME
    """Registry name."""
    prompt: str = "edits/dialect_searchreplace"
    """Instruction prompt name."""
    lang: str = "en"
    """The language of that prompt (other languages are ``<prompt>_<lang>``)."""

    def detect(self, text: str) -> bool:
        """True when ``text`` holds a ``<<<<<<< SEARCH`` line."""
        return any(is_search_marker(line) for line in text.splitlines())

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """A ``<<<<<<< SEARCH`` line."""
        return is_search_marker(lines[i])

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the block that starts at line ``i``."""
        path = path_before(lines, i)
        if path is not None:
            state.last_path[NAME] = path
        return _Reader(start=i, j=i + 1, state=state, path=state.last_path.get(NAME))


@dataclass
class _Reader:
    start: int
    j: int
    state: ScanState
    path: str | None
    divider: int | None = None

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        n = len(lines)
        while self.j < n:
            line = lines[self.j]
            if _REPLACE.match(line):
                return self._finish(lines, self.j)
            if self.divider is None and _DIVIDER.match(line):
                self.divider = self.j
            elif is_search_marker(line):
                return self._broken(
                    self.j,
                    "missing-replace-end",
                    "A new '<<<<<<< SEARCH' began before this block's '>>>>>>> REPLACE'; "
                    "this block was skipped. Close every block with '>>>>>>> REPLACE'.",
                )
            self.j += 1
        if not final:
            return None
        return self._broken(
            n,
            "truncated",
            "The reply was cut off inside this SEARCH/REPLACE block; it was dropped. "
            "Send it again.",
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
                "This SEARCH/REPLACE block has no '=======' line between the text to find and "
                "its replacement; it was skipped.",
            )
        path = self.path
        if path is None:
            return self._broken(
                last + 1,
                "missing-path",
                "No file path precedes this SEARCH/REPLACE block; put the file's path on the "
                "line before it.",
            )
        action = SearchReplace(
            path=path,
            search=text_of(lines[self.start + 1 : self.divider]),
            replace=text_of(lines[self.divider + 1 : last]),
            dialect=NAME,
            block=self.state.take_block(),
            line=self.start + 1,
        )
        return BlockOutcome(end=last + 1, actions=(action,))


DIALECT = SearchReplaceDialect()
"""The registered instance."""
