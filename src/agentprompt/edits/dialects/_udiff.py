"""Unified diffs: ``--- a/x`` / ``+++ b/x`` headers and ``@@`` hunks, fenced or bare.

One diff may hold several files; each file is its own block. ``/dev/null`` on the old side
creates the file (create-only), on the new side deletes it. Git's extended headers
(``diff --git``, ``index``, ``new file mode``, ``rename from``/``rename to``, ...) are read;
a rename becomes a move (with the hunks, if any). Hunk numbers are kept only as hints.

Inside a markdown fence the diff runs to the fence's end, so a context line that lost its
leading space stays in its hunk; a bare diff ends at the first line that cannot be part of a
diff. A fenced diff cut off before its fence closed loses its last file (``truncated``), as
does a bare one ending in a file's headers, unless those headers are whole on their own (a
100% rename or copy, an empty new or deleted file, a mode change with no index line).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from agentprompt.edits.actions import Action, Diagnostic, PatchFile
from agentprompt.edits.dialects._hunk_text import is_body_line, parse_header
from agentprompt.edits.dialects._udiff_files import GIT_HEADERS, NAME, Section, build_section
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    BlockReader,
    Fence,
    ScanState,
    closes_fence,
    diagnostic_text,
    note,
    path_before,
)

__all__ = ["DIALECT", "GIT_HEADERS", "UnifiedDiff"]

_HUNK_ONLY = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_MARKERS = re.compile(r"^(?:diff --git |--- \S.*\n\+\+\+ |@@ -\d)", re.MULTILINE)


def _is_minus_header(lines: Sequence[str], i: int, end: int) -> bool:
    """``--- path`` followed (before ``end``) by ``+++ path`` or an ``@@`` header: how a diff
    starts."""
    line = lines[i]
    if not line.startswith("--- ") or not line[4:].strip() or i + 1 >= end:
        return False
    after = lines[i + 1]
    return after.startswith("+++ ") or after.startswith("@@")


def _is_file_triple(lines: Sequence[str], i: int, end: int) -> bool:
    """``--- path``, ``+++ path``, ``@@``: how a further file starts inside a diff (a removed
    ``-- comment`` line reads ``--- comment``, so two lines are not enough)."""
    return (
        i + 2 < end
        and lines[i].startswith("--- ")
        and lines[i + 1].startswith("+++ ")
        and lines[i + 2].startswith("@@")
    )


_CONTINUATIONS = ("@@", "diff --git ", "--- ", "+++ ", "\\", *GIT_HEADERS)


def _may_grow(tail: str) -> bool:
    """Whether an unterminated last line may be the start of a line that continues a diff."""
    return any(c.startswith(tail) for c in _CONTINUATIONS)


@dataclass(frozen=True)
class UnifiedDiff:
    """The unified-diff dialect."""

    name: str = NAME
    """Registry name."""
    prompt: str = "edits/dialect_udiff"
    """Instruction prompt name."""
    lang: str = "en"
    """The language of that prompt (other languages are ``<prompt>_<lang>``)."""

    def detect(self, text: str) -> bool:
        """True when ``text`` holds diff headers or a numbered hunk header."""
        return _MARKERS.search(text.replace("\r\n", "\n")) is not None

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """A ``diff --git`` line, ``--- path`` followed by ``+++ path`` or ``@@``, or a numbered
        hunk header without file headers (its file is then the path line before it)."""
        line = lines[i]
        if line.startswith("diff --git ") or _HUNK_ONLY.match(line):
            return True
        if not line.startswith("--- ") or not line[4:].strip():
            return False
        if i + 1 >= len(lines):
            return False if final else None
        return _is_minus_header(lines, i, len(lines))

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the diff that starts at line ``i``."""
        fallback = path_before(lines, i) if lines[i].startswith("@@") else None
        return _Reader(start=i, j=i, fence=state.fence, state=state, fallback=fallback)


_EMPTY_BLOB = "e69de29"
"""The short git hash of the empty file, in the index line of an empty new or deleted file."""


def _complete_headers(headers: dict[str, str]) -> bool:
    """Whether a git section with no hunks is whole as it stands, so that no hunk can have
    been cut off after it: a pure (100%) rename or copy, an empty new or deleted file, or a
    mode change with no index line."""
    if "diff" not in headers:
        return False
    index = headers.get("index", "")
    if ("rename from" in headers and "rename to" in headers) or (
        "copy from" in headers and "copy to" in headers
    ):
        return headers.get("similarity index") == "100%"
    if "new file mode" in headers:
        return index.split("..")[-1].startswith(_EMPTY_BLOB)
    if "deleted file mode" in headers:
        return index.split("..")[0].startswith(_EMPTY_BLOB)
    return "old mode" in headers and "new mode" in headers and not index


@dataclass
class _Walker:
    """Splits a diff into per-file sections as its lines arrive, following hunk counts:
    while a hunk's declared counts are not used up every line is part of it (as git reads
    a patch); a further file starts at ``diff --git`` or a ``---``/``+++``/``@@`` triple."""

    sections: list[Section] = field(default_factory=list)
    old_left: int = 0
    new_left: int = 0
    counted: bool = False
    """The current hunk declared its counts."""
    hunk_at: int | None = None
    """The index of the current hunk's ``@@`` line."""

    @property
    def counting(self) -> bool:
        """The current hunk's counts are not used up."""
        return self.old_left > 0 or self.new_left > 0

    @property
    def in_headers(self) -> bool:
        """No hunk line of the current section was read yet."""
        return not self.sections or self.sections[-1].hunk_start is None

    def begins_file(self, lines: Sequence[str], i: int, end: int) -> bool:
        """Whether line ``i`` starts a new file section."""
        line = lines[i]
        if not self.sections:
            return True
        current = self.sections[-1]
        if line.startswith("diff --git "):
            return bool(current.headers) or current.hunk_start is not None
        if not line.startswith("--- "):
            return False
        if current.hunk_start is not None and i + 2 >= end:
            # The reply ends within two lines: a file header cut off after a complete hunk.
            return not self.counting
        if current.hunk_start is None:
            return "---" in current.headers and _is_minus_header(lines, i, end)
        if self.counted and not self.counting:
            # After a hunk whose counts are used up, ``---`` then ``+++`` is a new file.
            return lines[i + 1].startswith("+++ ")
        return _is_file_triple(lines, i, end)

    def take(self, lines: Sequence[str], i: int, end: int) -> None:
        """Read line ``i`` (``end``: how far the lines are known, for the header look-ahead)."""
        line = lines[i]
        if self.begins_file(lines, i, end):
            if self.sections:
                self.sections[-1].end = i
            self.sections.append(Section(start=i, git=line.startswith("diff --git ")))
            self.old_left = self.new_left = 0
            self.counted = False
        current = self.sections[-1]
        current.end = i + 1
        if current.hunk_start is None:
            if line.startswith("--- ") and "---" not in current.headers:
                current.headers["---"] = line[4:]
                return
            if line.startswith("+++ ") and "+++" not in current.headers:
                current.headers["+++"] = line[4:]
                return
            header = next((h for h in GIT_HEADERS if line.startswith(h)), None)
            if header is not None:
                current.headers[header.strip()] = line[len(header) :].strip()
                return
            if line.strip() == "":
                return
            current.hunk_start = i
        if line.startswith("@@"):
            self.hunk_at = i
            parsed = parse_header(line)
            self.counted = parsed.old_count is not None or parsed.new_count is not None
            if parsed.old_start is not None:
                self.old_left = 1 if parsed.old_count is None else parsed.old_count
                self.new_left = 1 if parsed.new_count is None else parsed.new_count
            else:
                self.old_left = self.new_left = 0
            return
        first = line[:1]
        if first == "\\":
            return
        if first != "+":
            self.old_left = max(0, self.old_left - 1)
        if first != "-":
            self.new_left = max(0, self.new_left - 1)


@dataclass
class _Reader:
    start: int
    j: int
    fence: Fence | None
    state: ScanState
    fallback: str | None
    walker: _Walker = field(default_factory=_Walker)
    blank_from: int | None = None
    """Bare diffs: the first of the blank lines after a complete hunk (the diff may end there)."""
    released: int = 0
    """How many sections were released before the diff ended."""
    _lines: Sequence[str] | None = None
    """The reply's lines, while the reader decides whether the diff was cut off."""
    counts_note: int | None = None
    """The ``@@`` line of a last hunk read as whole though its counts were not used up."""
    open_end: bool = False
    """That hunk stops on a change: it is read as reaching the end of its file."""

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        n = len(lines)
        walker = self.walker
        while self.j < n:
            line = lines[self.j]
            if self.fence is not None:
                if closes_fence(line, self.fence):
                    return self._finish(lines, self.j, truncated=False)
            else:
                verdict = self._continues(lines, self.j, n, final)
                if verdict is None:
                    return None
                if not verdict:
                    end = self.j if self.blank_from is None else self.blank_from
                    cut = final and self.j == n - 1 and self.state.open_tail and _may_grow(line)
                    if walker.counting and not walker.in_headers and line[:1] in ("\t", "\f"):
                        # An indented line with no diff prefix, where the hunk's counts
                        # promise more: a context line that lost its prefix, not prose after
                        # the diff; the hunk is whole only if it ends as a whole hunk does.
                        self._lines = lines
                        cut = cut or not self._ends_whole(end)
                    return self._finish(lines, end, truncated=cut)
            if line.startswith("--- ") and self.j + 2 >= n and not final:
                return None
            if self.fence is None and line == "" and self._after_hunk():
                if self.blank_from is None:
                    self.blank_from = self.j
                self.j += 1
                continue
            if self.blank_from is not None:
                for k in range(self.blank_from, self.j):
                    walker.take(lines, k, n)
                self.blank_from = None
            walker.take(lines, self.j, n)
            self.j += 1
            if len(walker.sections) - 1 > self.released:
                return self._release(lines, len(walker.sections) - 1)
        if not final:
            return None
        end = n if self.blank_from is None else self.blank_from
        self._lines = lines
        return self._finish(lines, end, truncated=self._cut(end, n))

    def _release(self, lines: Sequence[str], upto: int) -> BlockOutcome:
        """The actions of the complete sections before section ``upto`` (a further file's
        headers began, so their hunks are over), released before the diff ends."""
        actions, notes = self._build(lines, self.walker.sections[self.released : upto])
        self.released = upto
        return BlockOutcome(end=self.j, actions=actions, diagnostics=notes, partial=True)

    def _build(
        self, lines: Sequence[str], sections: Sequence[Section]
    ) -> tuple[tuple[Action, ...], tuple[Diagnostic, ...]]:
        actions: list[Action] = []
        notes: list[Diagnostic] = []
        for section in sections:
            fallback = self.fallback if section.start == self.start else None
            action, found = build_section(lines, section, self.state.take_block(), fallback)
            if action is not None:
                actions.append(action)
            notes.extend(found)
        notes.sort(key=lambda d: d.line)
        return tuple(actions), tuple(notes)

    def _after_hunk(self) -> bool:
        """A counted hunk is complete: a blank line may end a bare diff."""
        w = self.walker
        return not w.in_headers and w.counted and not w.counting

    def _continues(self, lines: Sequence[str], i: int, n: int, final: bool) -> bool | None:
        """Whether line ``i`` is still part of a bare diff; None when later lines decide."""
        line = lines[i]
        w = self.walker
        if line.startswith(("@@", "diff --git ")) or (
            w.in_headers and line.startswith(GIT_HEADERS)
        ):
            return True
        if line.startswith("--- "):
            if i + 2 >= n and not final:
                return None
            if w.in_headers or w.begins_file(lines, i, n):
                return True
        if w.counting:
            return is_body_line(line)
        if w.in_headers and line.startswith("+++ "):
            return True
        if self.blank_from is not None:
            return line == ""
        if line.startswith("\\"):
            return True
        return is_body_line(line) and (not w.in_headers or line == "")

    def _cut(self, end: int, n: int) -> bool:
        """Whether the reply ended inside the diff: inside a fence, before a bare hunk's
        counts were used up (unless the hunk ends as a whole hunk does, see
        :meth:`_ends_whole`), inside its headers, or on an unterminated last line."""
        w = self.walker
        if self.fence is not None:
            return True
        if not w.sections:
            return False
        if end == n and self.state.open_tail:
            return True
        if self._headers_at_end(end):
            return True
        if w.counting:
            return not self._ends_whole(end)
        return w.in_headers and not _complete_headers(w.sections[-1].headers)

    def _headers_at_end(self, end: int) -> bool:
        """Whether the last hunk's last lines are a ``--- path`` / ``+++ path`` pair its old
        side had no room for: a further file's headers whose ``@@`` the reply was cut off
        before (a removed ``-- x`` and an added ``++ y`` line the counts do hold stay in it)."""
        w = self.walker
        if w.hunk_at is None or self._lines is None:
            return False
        k = end
        while k > w.hunk_at + 1 and not self._lines[k - 1].strip():
            k -= 1
        rows = self._lines[w.hunk_at + 1 : k]
        if len(rows) < 2 or not (rows[-2].startswith("--- ") and rows[-1].startswith("+++ ")):
            return False
        declared = parse_header(self._lines[w.hunk_at]).old_count
        before = sum(1 for r in rows[:-2] if r[:1] in (" ", "-", ""))
        return declared is not None and before >= declared

    def _ends_whole(self, end: int) -> bool:
        """Whether the last hunk, whose counts promise more lines than the diff holds, still
        reads as whole (the reply's last line is complete, checked by the caller). Models
        often write wrong counts; a reply cut off mid-hunk ends inside a line, on a change,
        or in the middle of the closing context. Two shapes are read as whole, with a
        ``hunk-counts`` warning:

        * after its last change come at least as many context lines as before its first (at
          least one), as ``diff -u`` writes them;
        * it stops on a change, or on fewer context lines than it began with, and its old
          side (context and removed lines) does not hold the number of lines its header
          declares. ``diff -u`` ends a hunk that way only at the end of the file, so the
          hunk is placed only there (``Hunk.open_end``). A reply cut off after the last
          removed line or among the added lines after it leaves the old side exactly as
          declared, so that shape stays cut off; one cut off earlier leaves an old side that
          the file continues after, which the placement refuses."""
        w = self.walker
        if w.hunk_at is None or self._lines is None:
            return False
        rows = list(self._lines[w.hunk_at + 1 : end])
        while rows and not rows[-1].strip():
            rows.pop()
        marks = [r[:1] for r in rows if r[:1] in (" ", "+", "-", "")]
        changes = [k for k, m in enumerate(marks) if m in ("+", "-")]
        if not changes or len(marks) != len(rows):
            return False
        leading = changes[0]
        trailing = len(marks) - 1 - changes[-1]
        if trailing >= max(1, leading):
            self.counts_note = w.hunk_at
            return True
        declared = parse_header(self._lines[w.hunk_at]).old_count
        held = sum(1 for m in marks if m != "+")
        if declared is not None and held != declared:
            self.counts_note = w.hunk_at
            self.open_end = True
            return True
        return False

    def _finish(self, lines: Sequence[str], end: int, *, truncated: bool) -> BlockOutcome:
        sections = self.walker.sections[self.released :]
        notes: list[Diagnostic] = []
        if truncated and sections:
            last = sections.pop()
            notes.append(
                note(
                    "error",
                    "truncated",
                    diagnostic_text("udiff_truncated", path=last.label())
                    if last.label()
                    else diagnostic_text("udiff_truncated_unnamed"),
                    line=last.start + 1,
                    block=None,
                    dialect=NAME,
                )
            )
        if self.counts_note is not None and not truncated:
            notes.append(
                note(
                    "warning",
                    "hunk-counts",
                    diagnostic_text(
                        "udiff_hunk_counts_open_end"
                        if self.open_end
                        else "udiff_hunk_counts_complete"
                    ),
                    line=self.counts_note + 1,
                    block=None,
                    dialect=NAME,
                )
            )
        actions, found = self._build(lines, sections)
        if self.open_end and not truncated and sections:
            actions = _open_ended(actions, sections[-1].start + 1)
        notes.extend(found)
        notes.sort(key=lambda d: d.line)
        return BlockOutcome(end=end, actions=actions, diagnostics=tuple(notes))


def _open_ended(actions: tuple[Action, ...], line: int) -> tuple[Action, ...]:
    """``actions`` with the last hunk of the file whose diff begins on reply line ``line``
    (the last file) marked as reaching the end of its file (``Hunk.open_end``)."""
    last = actions[-1] if actions else None
    if not isinstance(last, PatchFile) or last.line != line or not last.hunks:
        return actions
    hunk = replace(last.hunks[-1], at_end_of_file=True, open_end=True)
    return (*actions[:-1], replace(last, hunks=(*last.hunks[:-1], hunk)))


DIALECT = UnifiedDiff()
"""The registered instance."""
