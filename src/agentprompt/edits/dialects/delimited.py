"""The reader shared by the two delimited-block dialects (SEARCH/REPLACE and EDIT/REPL):

```
<opener>
old lines
<divider>
new lines
<end>
```

Each dialect gives its markers, the words its messages use and how to build its action from
the path and the two sections; the reader finds the block's end, picks the divider, and
reports a block that is cut off, unclosed, undivided or has no path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentprompt.edits.actions import Action, Diagnostic
from agentprompt.edits.dialects.base import BlockOutcome, ScanState, line_before, note

__all__ = ["DelimitedReader", "Delimiters"]


@dataclass(frozen=True, kw_only=True)
class Delimiters:
    """One delimited dialect's markers and words."""

    dialect: str
    """The dialect's registry name."""
    opener: re.Pattern[str]
    """The line that opens a block."""
    divider: re.Pattern[str]
    """A line that may divide the old section from the new one."""
    exact_divider: re.Pattern[str]
    """The divider as the format writes it; preferred over looser candidates."""
    end: re.Pattern[str]
    """The line that ends a block."""
    opener_text: str
    """The opener as messages quote it (``<<<<<<< SEARCH``)."""
    divider_text: str
    """The divider as messages quote it (``=======``)."""
    end_text: str
    """The end marker as messages quote it (``>>>>>>> REPLACE``)."""
    label: str
    """The block's name in messages (``SEARCH/REPLACE``)."""
    unclosed_code: str
    """The diagnostic code of a block a new opener interrupted."""
    build: Callable[[str, Sequence[str], Sequence[str], int, int], Action]
    """The action from the path, the old and new section lines, the block number and the
    1-based reply line of the opener."""


@dataclass
class DelimitedReader:
    """Reads one delimited block as its lines arrive."""

    spec: Delimiters
    """The dialect's markers and words."""
    start: int
    """The index of the opener line."""
    j: int
    """The next line to look at."""
    state: ScanState
    """The reply's scan state (numbers the block)."""
    path: Callable[[Sequence[str]], str | None]
    """The block's path, read when the block ends (None: no path)."""
    candidate: int | None = None
    """The first line that may be the divider."""
    exact: int | None = None
    """The first line written exactly as the divider."""
    candidates: int = 0
    """How many lines may be the divider."""

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        """The outcome once the block ended, or None while it needs more lines."""
        spec = self.spec
        n = len(lines)
        while self.j < n:
            line = lines[self.j]
            if spec.end.match(line):
                return self._finish(lines, self.j)
            if spec.divider.match(line):
                self.candidates += 1
                if self.candidate is None:
                    self.candidate = self.j
                if self.exact is None and spec.exact_divider.match(line):
                    self.exact = self.j
            elif spec.opener.match(line):
                # The interrupted block's path carries over to the block that interrupts it.
                before = line_before(lines, self.j)
                if before is not None:
                    self.state.last_end[spec.dialect] = before
                return self._broken(
                    self.j,
                    spec.unclosed_code,
                    f"A new '{spec.opener_text}' began before this block's '{spec.end_text}'; "
                    f"this block was skipped. Close every block with '{spec.end_text}'.",
                )
            self.j += 1
        if not final:
            return None
        return self._broken(
            n,
            "truncated",
            f"The reply was cut off inside this {spec.label} block; it was dropped. Send it again.",
        )

    def _broken(self, end: int, code: str, message: str) -> BlockOutcome:
        block = self.state.take_block()
        diagnostic = note(
            "error", code, message, line=self.start + 1, block=block, dialect=self.spec.dialect
        )
        return BlockOutcome(end=end, diagnostics=(diagnostic,))

    def _finish(self, lines: Sequence[str], last: int) -> BlockOutcome:
        spec = self.spec
        self.state.last_end[spec.dialect] = last
        divider = self.exact if self.exact is not None else self.candidate
        if divider is None:
            return self._broken(
                last + 1,
                "missing-divider",
                f"This {spec.label} block has no '{spec.divider_text}' line between the old "
                "and the new text; it was skipped.",
            )
        path = self.path(lines)
        if path is None:
            return self._broken(
                last + 1,
                "missing-path",
                f"No file path is on the line before this '{spec.opener_text}'; put the file's "
                "path there.",
            )
        block = self.state.take_block()
        notes: list[Diagnostic] = []
        if self.candidates > 1:
            notes.append(
                note(
                    "warning",
                    "ambiguous-divider",
                    f"Several lines of this {spec.label} block look like its divider; line "
                    f"{divider + 1} was used. Write the divider exactly as '{spec.divider_text}' "
                    "and only once.",
                    line=self.start + 1,
                    block=block,
                    dialect=spec.dialect,
                )
            )
        action = spec.build(
            path, lines[self.start + 1 : divider], lines[divider + 1 : last], block, self.start + 1
        )
        return BlockOutcome(end=last + 1, actions=(action,), diagnostics=tuple(notes))
