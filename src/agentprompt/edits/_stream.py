"""The incremental parser: text goes in as it streams, each block comes out once complete.

Lines are split on ``\\n`` (a ``\\r`` before it is dropped, so CRLF replies read like LF ones;
a byte-order mark at the start is dropped; lines inside a code block indented under a list
item lose that indent).
The scanner walks the lines once: at each line it asks the dialects whether a block starts
there, hands the following lines to that block's reader, and treats lines no block claims as
prose (tracking the markdown fences prose opens). Readers keep their own position, so every
line is looked at a bounded number of times whatever the chunking, and :func:`parse_reply`
is this parser fed the whole text at once: streaming and whole-text parsing agree.
"""

from __future__ import annotations

from agentprompt.edits.actions import Action, Diagnostic, EditError, ParseResult
from agentprompt.edits.dialects import AUTO, BlockReader, Dialect, ScanState, select_dialects
from agentprompt.edits.dialects.base import (
    Fence,
    closes_fence,
    diagnostic_text,
    note,
    opens_fence,
)

__all__ = ["StreamParser"]


class StreamParser:
    """Parse a reply as it arrives: :meth:`feed` returns the actions each chunk completed,
    :meth:`close` returns the whole :class:`ParseResult`."""

    def __init__(self, dialect: str = AUTO) -> None:
        self.dialect = dialect
        """The dialect asked for (``auto`` detects each block's)."""
        self._dialects: tuple[Dialect, ...] = select_dialects(dialect)
        self._state = ScanState()
        self._lines: list[str] = []
        self._partial: list[str] = []
        self._pos = 0
        self._reader: BlockReader | None = None
        self._reader_start = 0
        self._actions: list[Action] = []
        self._diagnostics: list[Diagnostic] = []
        self._closed = False
        self._has_text = False
        self._outer: Fence | None = None
        """The fence open at the end of the lines added so far, as CommonMark reads them."""

    def feed(self, chunk: str) -> list[Action]:
        """Add ``chunk`` to the reply; the actions of the blocks it completed, in order."""
        if self._closed:
            raise EditError(
                "this stream parser is closed; start a new StreamParser for another reply"
            )
        if not chunk:
            return []
        if "\n" not in chunk:
            self._partial.append(chunk)
            return []
        self._partial.append(chunk)
        pieces = "".join(self._partial).split("\n")
        tail = pieces.pop()
        self._partial = [tail] if tail else []
        self._add_lines(pieces)
        return self._scan(final=False)

    def close(self) -> ParseResult:
        """End the reply: every action, and diagnostics including a cut-off final block."""
        if not self._closed:
            self._closed = True
            if self._partial:
                self._state.open_tail = True
                self._add_lines(["".join(self._partial)])
                self._partial = []
            self._scan(final=True)
            if not self._actions and not self._diagnostics and self._has_text:
                self._diagnostics.append(self._no_blocks())
        return ParseResult(actions=tuple(self._actions), diagnostics=tuple(self._diagnostics))

    def _add_lines(self, pieces: list[str]) -> None:
        for piece in pieces:
            line = piece[:-1] if piece.endswith("\r") else piece
            if not self._lines and line.startswith("\ufeff"):
                line = line[1:]
            line = self._dedent(line)
            if not self._has_text and line.strip():
                self._has_text = True
            self._lines.append(line)

    def _dedent(self, line: str) -> str:
        """A line inside a fence opened with an indent of ``k`` spaces (a code block under a
        list item) loses up to ``k`` leading spaces, as CommonMark reads it; the opener and
        the closer too, so readers see the block as if it were not indented."""
        fence = self._outer
        if fence is None:
            opened = opens_fence(line)
            if opened is not None:
                self._outer = opened
                return line[opened.indent :]
            return line
        if closes_fence(line, fence):
            self._outer = None
        if not fence.indent:
            return line
        spaces = len(line) - len(line.lstrip(" "))
        return line[min(spaces, fence.indent) :]

    def _scan(self, *, final: bool) -> list[Action]:
        done: list[Action] = []
        lines = self._lines
        while True:
            if self._reader is not None:
                outcome = self._reader.advance(lines, final)
                if outcome is None:
                    break
                if outcome.partial:
                    done.extend(outcome.actions)
                    self._diagnostics.extend(outcome.diagnostics)
                    continue
                self._reader = None
                if outcome.rejected:
                    self._prose(lines[self._reader_start])
                    self._pos = self._reader_start + 1
                    continue
                done.extend(outcome.actions)
                self._diagnostics.extend(outcome.diagnostics)
                self._pos = outcome.end
                continue
            if self._pos >= len(lines):
                break
            opened = self._open(final)
            if opened is None:
                break
            if not opened:
                self._prose(lines[self._pos])
                self._pos += 1
        self._actions.extend(done)
        return done

    def _open(self, final: bool) -> bool | None:
        """Open the reader of a block starting at the current line: True if one starts,
        False for prose, None when the next lines are needed to tell."""
        for dialect in self._dialects:
            verdict = dialect.starts(self._lines, self._pos, final)
            if verdict is None:
                return None
            if verdict:
                self._reader = dialect.open_block(self._lines, self._pos, self._state)
                self._reader_start = self._pos
                return True
        return False

    def _prose(self, line: str) -> None:
        """Follow the markdown fences prose opens and closes."""
        state = self._state
        if state.fence is None:
            state.fence = opens_fence(line)
        elif closes_fence(line, state.fence):
            state.fence = None

    def _no_blocks(self) -> Diagnostic:
        return note(
            "warning",
            "no-blocks",
            diagnostic_text("no_blocks")
            if self.dialect == AUTO
            else diagnostic_text("no_blocks_of_dialect", dialect=self.dialect),
            line=1,
            block=None,
            dialect=None if self.dialect == AUTO else self.dialect,
        )
