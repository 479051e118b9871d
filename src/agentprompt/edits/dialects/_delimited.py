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
from dataclasses import dataclass, field

from agentprompt.edits.actions import Action, Diagnostic
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    ScanState,
    diagnostic_text,
    line_before,
    note,
)

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
    candidates: list[int] = field(default_factory=list)
    """The lines that may be the divider."""
    exacts: list[int] = field(default_factory=list)
    """The lines written exactly as the divider."""

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        """The outcome once the block ended, or None while it needs more lines."""
        spec = self.spec
        n = len(lines)
        while self.j < n:
            line = lines[self.j]
            if spec.end.match(line):
                return self._finish(lines, self.j)
            if spec.divider.match(line):
                self.candidates.append(self.j)
                if spec.exact_divider.match(line):
                    self.exacts.append(self.j)
            elif spec.opener.match(line):
                # The interrupted block's path carries over to the block that interrupts it.
                before = line_before(lines, self.j)
                if before is not None:
                    self.state.last_end[spec.dialect] = before
                return self._broken(
                    self.j,
                    spec.unclosed_code,
                    diagnostic_text(
                        "delimited_interrupted", opener=spec.opener_text, end=spec.end_text
                    ),
                )
            self.j += 1
        if not final:
            return None
        return self._broken(
            n,
            "truncated",
            diagnostic_text("delimited_truncated", label=spec.label),
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
        choices = self.exacts or self.candidates
        if not choices:
            return self._broken(
                last + 1,
                "missing-divider",
                diagnostic_text(
                    "delimited_missing_divider", label=spec.label, divider=spec.divider_text
                ),
            )
        path = self.path(lines)
        if path is None:
            return self._broken(
                last + 1,
                "missing-path",
                diagnostic_text("delimited_missing_path", opener=spec.opener_text),
            )
        divider = _pick_divider(lines, self.start, last, choices)
        if divider is None:
            return self._broken(
                last + 1,
                "ambiguous-divider",
                diagnostic_text(
                    "delimited_ambiguous_divider", label=spec.label, divider=spec.divider_text
                ),
            )
        block = self.state.take_block()
        notes: list[Diagnostic] = []
        if len(self.candidates) > 1:
            notes.append(
                note(
                    "warning",
                    "ambiguous-divider",
                    diagnostic_text(
                        "delimited_divider_used",
                        label=spec.label,
                        line=divider + 1,
                        divider=spec.divider_text,
                    ),
                    line=self.start + 1,
                    block=block,
                    dialect=spec.dialect,
                )
            )
        action = spec.build(
            path, lines[self.start + 1 : divider], lines[divider + 1 : last], block, self.start + 1
        )
        return BlockOutcome(end=last + 1, actions=(action,), diagnostics=tuple(notes))


_CONFLICT_OPEN = re.compile(r"^<{7}(?: |$)")
_CONFLICT_CLOSE = re.compile(r"^>{7}(?: |$)")


def _balanced(lines: Sequence[str]) -> bool:
    """Whether the lines' merge-conflict markers pair up (every ``<<<<<<<`` closed in order)."""
    depth = 0
    for line in lines:
        if _CONFLICT_OPEN.match(line):
            depth += 1
        elif _CONFLICT_CLOSE.match(line):
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _pick_divider(lines: Sequence[str], start: int, last: int, choices: list[int]) -> int | None:
    """The divider among ``choices``, or None when it is ambiguous.

    One choice is the divider. Of several, the only one that leaves both sections with
    balanced merge-conflict markers is taken (a block quoting a whole conflict, whose own
    ``=======`` sits inside it); otherwise nothing is guessed.

    One pass over the block gives the marker depth after each line; a choice splits the
    block into two balanced sections when the depth never falls below zero before it and is
    zero at it, and never falls below that zero after it and ends there (so many dividers
    cost one pass, not one pass each).
    """
    if len(choices) == 1:
        return choices[0]
    body = range(start + 1, last)
    depth = 0
    depths: list[int] = []
    for k in body:
        line = lines[k]
        if _CONFLICT_OPEN.match(line):
            depth += 1
        elif _CONFLICT_CLOSE.match(line):
            depth -= 1
        depths.append(depth)
    # fine_before[i]: the depth stayed >= 0 over body lines 0..i-1.
    fine_before = [True] * (len(depths) + 1)
    for i, d in enumerate(depths):
        fine_before[i + 1] = fine_before[i] and d >= 0
    # low_after[i]: the least depth over body lines i..end (a large number past the end).
    low_after = [len(depths) + 1] * (len(depths) + 1)
    for i in range(len(depths) - 1, -1, -1):
        low_after[i] = min(depths[i], low_after[i + 1])
    final = depths[-1] if depths else 0
    fitting = []
    for at in choices:
        i = at - start - 1
        level = depths[i - 1] if i > 0 else 0
        if fine_before[i] and level == 0 and low_after[i + 1] >= 0 and final == 0:
            fitting.append(at)
            if len(fitting) > 1:
                return None
    return fitting[0] if len(fitting) == 1 else None
