"""Whole files: a path line (bare, ``**path**``, `` `path` ``, ``# path``, ``File: path``)
followed by a fenced block holding the file's entire new content.

A fence of four or more backticks may hold ```` ``` ```` lines; inside a three-backtick fence
an opener with an info string (```` ```bash ````) expects its own closer, so a Markdown file's
code blocks stay in its content. A fence whose first non-blank line starts another dialect's
block (a diff, SEARCH/REPLACE, EDIT, bridge or apply_patch markers) is not a whole file: its
lines are read again as prose, so that dialect finds them. Later lines never reject the
block, so a test file whose strings hold diff markers is still a whole file. A Markdown
file whose closer is followed, before the next block, by an even number of bare fence lines
may have been cut at its own code block: it is not written (an error asks for a longer fence).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.edits.actions import WriteFile
from agentprompt.edits.dialects import _udiff as udiff
from agentprompt.edits.dialects._applypatch import is_begin_patch
from agentprompt.edits.dialects._editrepl import is_edit_marker
from agentprompt.edits.dialects._searchreplace import is_search_marker
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    BlockReader,
    Fence,
    FenceTally,
    ScanState,
    closes_fence,
    diagnostic_text,
    looks_like_path,
    note,
    opens_fence,
    path_in_fence_info,
    text_of,
)
from agentprompt.edits.dialects.bridge import is_bridge_marker

__all__ = ["DIALECT", "WholeFileDialect"]

NAME = "whole"
_DIFF_INFO = {"diff", "patch", "udiff"}
_MARKDOWN = (".md", ".markdown", ".mdx")


def _fence_line(lines: Sequence[str], i: int, final: bool) -> int | None:
    """The index of the fence opener after the path line ``i`` (a blank line may come
    between); -1 when there is none, None when the next lines are needed to tell."""
    for k in (i + 1, i + 2):
        if k >= len(lines):
            return -1 if final else None
        if opens_fence(lines[k]) is not None:
            return k
        if lines[k].strip():
            return -1
    return -1


@dataclass(frozen=True)
class WholeFileDialect:
    """The whole-file dialect."""

    name: str = NAME
    """Registry name."""
    prompt: str = "edits/dialect_whole"
    """Instruction prompt name."""
    lang: str = "en"
    """The language of that prompt (other languages are ``<prompt>_<lang>``)."""

    def detect(self, text: str) -> bool:
        """True when some path line in ``text`` is followed by a fence."""
        lines = text.replace("\r\n", "\n").split("\n")
        return any(
            looks_like_path(line) is not None and (_fence_line(lines, i, True) or -1) > 0
            for i, line in enumerate(lines)
        )

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """A path line followed by a fence opener, or a fence opener naming the path after
        its language (```` ```python src/a.py ````) whose content is no other dialect's."""
        if looks_like_path(lines[i]) is None:
            return _named_fence(lines, i, final)
        found = _fence_line(lines, i, final)
        return None if found is None else found > 0

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the file whose path is on line ``i``."""
        named = path_in_fence_info(lines[i]) if looks_like_path(lines[i]) is None else None
        if named is not None:
            fence = opens_fence(lines[i]) or Fence(char="`", length=3)
            return _Reader(
                start=i,
                first=i + 1,
                j=i + 1,
                fence=fence,
                state=state,
                not_a_file=False,
                path=named,
                decided=True,
            )
        k = i + 1 if opens_fence(lines[i + 1]) else i + 2
        fence = opens_fence(lines[k]) or Fence(char="`", length=3)
        # A path listed inside an open code block, followed by that block's closing fence.
        closes_prose = state.fence is not None and closes_fence(lines[k], state.fence)
        return _Reader(
            start=i, first=k + 1, j=k + 1, fence=fence, state=state, not_a_file=closes_prose
        )


def _named_fence(lines: Sequence[str], i: int, final: bool) -> bool | None:
    """Whether line ``i`` opens a fence naming a file's path, holding that file's content
    (not a diff or another dialect's block); None when the next lines are needed."""
    fence = opens_fence(lines[i])
    if fence is None or fence.info.split(" ")[0].lower() in _DIFF_INFO:
        return False
    if path_in_fence_info(lines[i]) is None:
        return False
    k = i + 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k >= len(lines):
        return False if final else None
    if closes_fence(lines[k], fence):
        return True
    foreign = _foreign(lines, k, final)
    return None if foreign is None else not foreign


def _foreign(lines: Sequence[str], j: int, final: bool) -> bool | None:
    """Whether line ``j``, the first non-blank line inside the fence, starts another
    dialect's block."""
    line = lines[j]
    if (
        is_search_marker(line)
        or is_edit_marker(line)
        or is_bridge_marker(line)
        or is_begin_patch(line)
        or line.startswith("@@")
    ):
        return True
    return udiff.DIALECT.starts(lines, j, final)


def _starts_block(lines: Sequence[str], k: int) -> bool:
    """Whether line ``k`` begins a new block: a path line before a fence, or a marker."""
    line = lines[k]
    if looks_like_path(line) is not None and (_fence_line(lines, k, True) or -1) > 0:
        return True
    return (
        is_search_marker(line)
        or is_edit_marker(line)
        or is_bridge_marker(line)
        or is_begin_patch(line)
        or line.startswith(("diff --git ", "--- a/"))
    )


@dataclass
class _Reader:
    start: int
    first: int
    j: int
    fence: Fence
    state: ScanState
    not_a_file: bool
    decided: bool = False
    """The first non-blank content line was checked: the block is a file."""
    inner: Fence | None = None
    """A fence with an info string opened inside the content (a Markdown file's code block),
    which takes the next closer for itself."""
    path: str | None = None
    """The path named on the fence line itself (None: on the line ``start``)."""

    def _path(self, lines: Sequence[str]) -> str:
        """The file's path as the model wrote it."""
        return self.path if self.path is not None else looks_like_path(lines[self.start]) or ""

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        if self.not_a_file or self.fence.info.split(" ")[0].lower() in _DIFF_INFO:
            return BlockOutcome(end=self.start + 1, rejected=True)
        n = len(lines)
        while self.j < n:
            line = lines[self.j]
            if self.inner is not None:
                if closes_fence(line, self.inner):
                    self.inner = None
                self.j += 1
                continue
            if closes_fence(line, self.fence):
                later = self._later_fences(lines, final)
                if later is None:
                    return None
                if later:
                    return self._ambiguous(lines, self.j)
                return self._finish(lines, self.j)
            if not self.decided and line.strip():
                foreign = _foreign(lines, self.j, final)
                if foreign is None:
                    return None
                if foreign:
                    return BlockOutcome(end=self.start + 1, rejected=True)
                self.decided = True
            opened = opens_fence(line)
            if opened is not None and opened.info and opened.char == self.fence.char:
                self.inner = opened
            self.j += 1
        if not final:
            return None
        block = self.state.take_block()
        path = self._path(lines)
        cut = note(
            "error",
            "truncated",
            diagnostic_text("whole_truncated", path=path),
            line=self.start + 1,
            block=block,
            dialect=NAME,
        )
        return BlockOutcome(end=n, diagnostics=(cut,))

    def _later_fences(self, lines: Sequence[str], final: bool) -> bool | None:
        """Whether a Markdown file's bare closer at ``self.j`` is followed, before the next
        block, by an even number of bare fence lines: the file's own code blocks may have
        closed the fence early, and where its content ends cannot be told. None: the reply
        must go on to tell."""
        path = self._path(lines)
        if not path.lower().endswith(_MARKDOWN):
            return False
        fence = self.fence
        first = self.j + 1
        tally = self.state.tally
        if not tally.start <= first <= tally.stop:
            # The stretch ends at the next block: every block ending inside it counts from
            # the one tally (many Markdown blocks in a row read the rest once, not each).
            stop = first
            while stop < len(lines) and not _starts_block(lines, stop):
                stop += 1
            if stop >= len(lines) and not final:
                return None
            tally = FenceTally(start=first, stop=stop)
            if final or stop + 1 < len(lines):
                # Kept only once the lines that decide where it stops have all arrived.
                self.state.tally = tally
        key = (fence.char, fence.length, fence.indent)
        counted = tally.counts.get(key)
        if counted is None:
            counted = [0]
            for k in range(tally.start, tally.stop):
                line = lines[k]
                bare = closes_fence(line, fence) and not line.strip().strip(fence.char)
                counted.append(counted[-1] + bare)
            tally.counts[key] = counted
        count = counted[tally.stop - tally.start] - counted[first - tally.start]
        return count > 0 and count % 2 == 0

    def _ambiguous(self, lines: Sequence[str], close: int) -> BlockOutcome:
        path = self._path(lines)
        lost = note(
            "error",
            "ambiguous-fence",
            diagnostic_text("whole_ambiguous_fence", path=path),
            line=self.start + 1,
            block=self.state.take_block(),
            dialect=NAME,
        )
        return BlockOutcome(end=close + 1, diagnostics=(lost,))

    def _finish(self, lines: Sequence[str], close: int) -> BlockOutcome:
        action = WriteFile(
            path=self._path(lines),
            content=text_of(lines[self.first : close]),
            dialect=NAME,
            block=self.state.take_block(),
            line=self.start + 1,
        )
        return BlockOutcome(end=close + 1, actions=(action,))


DIALECT = WholeFileDialect()
"""The registered instance."""
