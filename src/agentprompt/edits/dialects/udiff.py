"""Unified diffs: ``--- a/x`` / ``+++ b/x`` headers and ``@@`` hunks, fenced or bare.

One diff may hold several files; each file is its own block. ``/dev/null`` on the old side
creates the file (create-only), on the new side deletes it. Git's extended headers
(``diff --git``, ``index``, ``new file mode``, ``rename from``/``rename to``, ...) are read;
a rename becomes a move (with the hunks, if any). Hunk numbers are kept only as hints.

Inside a markdown fence the diff runs to the fence's end, so a context line that lost its
leading space stays in its hunk; a bare diff ends at the first line that cannot be part of a
diff. A fenced diff cut off before its fence closed loses its last file (``truncated``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from agentprompt.edits.actions import (
    Action,
    DeleteFile,
    Diagnostic,
    Hunk,
    MoveFile,
    PatchFile,
    WriteFile,
)
from agentprompt.edits.dialects.base import (
    BlockOutcome,
    BlockReader,
    Fence,
    ScanState,
    closes_fence,
    note,
    path_before,
    text_of,
)
from agentprompt.edits.dialects.hunks import is_body_line, parse_hunks

__all__ = ["DIALECT", "UnifiedDiff"]

NAME = "udiff"
DEV_NULL = "/dev/null"
_GIT_HEADERS = (
    "diff ",
    "index ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "similarity index",
    "dissimilarity index",
    "rename from ",
    "rename to ",
    "copy from ",
    "copy to ",
    "Binary files ",
    "GIT binary patch",
)
_HUNK_ONLY = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_MARKERS = re.compile(r"^(?:diff --git |--- \S.*\n\+\+\+ |@@ -\d)", re.MULTILINE)


def _is_minus_header(lines: Sequence[str], i: int, end: int) -> bool:
    """``--- path`` followed (before ``end``) by ``+++ path`` or an ``@@`` header."""
    line = lines[i]
    if not line.startswith("--- ") or not line[4:].strip() or i + 1 >= end:
        return False
    after = lines[i + 1]
    return after.startswith("+++ ") or after.startswith("@@")


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


@dataclass
class _Reader:
    start: int
    j: int
    fence: Fence | None
    state: ScanState
    fallback: str | None

    def advance(self, lines: Sequence[str], final: bool) -> BlockOutcome | None:
        n = len(lines)
        while self.j < n:
            line = lines[self.j]
            if self.fence is not None:
                if closes_fence(line, self.fence):
                    return self._finish(lines, self.j, truncated=False)
            elif not (line.startswith(_GIT_HEADERS) or line.startswith("@@") or is_body_line(line)):
                return self._finish(lines, self.j, truncated=False)
            self.j += 1
        if not final:
            return None
        return self._finish(lines, n, truncated=self.fence is not None)

    def _finish(self, lines: Sequence[str], end: int, *, truncated: bool) -> BlockOutcome:
        sections = _split_sections(lines, self.start, end)
        actions: list[Action] = []
        notes: list[Diagnostic] = []
        if truncated and sections:
            last = sections.pop()
            notes.append(
                note(
                    "error",
                    "truncated",
                    f"The reply was cut off inside the diff of {last.label() or 'a file'}; "
                    "that file's changes were dropped. Send that file's diff again.",
                    line=last.start + 1,
                    block=None,
                    dialect=NAME,
                )
            )
        for section in sections:
            fallback = self.fallback if section.start == self.start else None
            action, found = _build(lines, section, self.state.take_block(), fallback)
            if action is not None:
                actions.append(action)
            notes.extend(found)
        notes.sort(key=lambda d: d.line)
        return BlockOutcome(end=end, actions=tuple(actions), diagnostics=tuple(notes))


@dataclass
class _Section:
    start: int
    end: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    hunk_start: int | None = None
    git: bool = False

    def label(self) -> str:
        return self.headers.get("+++") or self.headers.get("---") or ""


def _split_sections(lines: Sequence[str], start: int, end: int) -> list[_Section]:
    """The per-file sections of the diff in ``lines[start:end]``."""
    sections: list[_Section] = []
    current: _Section | None = None
    for i in range(start, end):
        line = lines[i]
        minus = _is_minus_header(lines, i, end)
        begins = line.startswith("diff --git ") or (
            minus
            and (
                current is None
                or current.hunk_start is not None
                or "---" in current.headers
                or not current.git
            )
        )
        if begins:
            if current is not None:
                current.end = i
                sections.append(current)
            current = _Section(start=i, git=line.startswith("diff --git "))
        if current is None:
            current = _Section(start=i)
        if current.hunk_start is None:
            if minus or (line.startswith("+++ ") and "+++" not in current.headers):
                current.headers[line[:3]] = line[4:]
                continue
            header = next((h for h in _GIT_HEADERS if line.startswith(h)), None)
            if header is not None:
                current.headers[header.strip()] = line[len(header) :].strip()
                continue
            if line.strip() == "":
                continue
            current.hunk_start = i
    if current is not None:
        current.end = end
        sections.append(current)
    return sections


def _header_path(raw: str | None) -> str | None:
    """A path from a ``---``/``+++`` header: timestamp and quotes removed."""
    if raw is None:
        return None
    path = raw.split("\t", 1)[0].strip()
    if len(path) >= 2 and path[0] == path[-1] == '"':
        path = path[1:-1]
    return path or None


def _git_paths(raw: str) -> tuple[str | None, str | None]:
    """The two paths of ``diff --git a/x b/y`` (when they can be told apart)."""
    match = re.match(r"^--git\s+a/(.+?)\s+b/(.+)$", raw.strip())
    if match:
        return match.group(1), match.group(2)
    return None, None


def _strip_prefixes(old: str | None, new: str | None, git: bool) -> tuple[str | None, str | None]:
    """Remove git's ``a/`` and ``b/`` prefixes where the headers show they are prefixes."""
    real_old = old if old != DEV_NULL else None
    real_new = new if new != DEV_NULL else None
    prefixed = git or (
        (real_old is None or real_old.startswith("a/"))
        and (real_new is None or real_new.startswith("b/"))
        and (real_old is not None or real_new is not None)
    )
    if prefixed:
        if real_old is not None and real_old.startswith("a/"):
            old = real_old[2:]
        if real_new is not None and real_new.startswith("b/"):
            new = real_new[2:]
    return old, new


def _build(
    lines: Sequence[str], section: _Section, block: int, fallback: str | None = None
) -> tuple[Action | None, list[Diagnostic]]:
    """The action one file's section asks for (``fallback``: the path on the line before a
    diff that has hunks but no file headers)."""
    line_no = section.start + 1
    h = section.headers
    old = _header_path(h.get("---"))
    new = _header_path(h.get("+++"))
    if "diff" in h and (old is None or new is None):
        git_old, git_new = _git_paths(h["diff"])
        old = old or (f"a/{git_old}" if git_old else None)
        new = new or (f"b/{git_new}" if git_new else None)
    if "rename from" in h:
        old = "a/" + h["rename from"]
    if "rename to" in h:
        new = "b/" + h["rename to"]
    old, new = _strip_prefixes(old, new, section.git or "diff" in h)
    notes: list[Diagnostic] = []

    def fail(code: str, message: str) -> tuple[Action | None, list[Diagnostic]]:
        notes.append(note("error", code, message, line=line_no, block=block, dialect=NAME))
        return None, notes

    if old is None and new is None:
        if fallback is None:
            return fail(
                "missing-file-header",
                "These hunks have no '--- a/path' / '+++ b/path' header naming their file; "
                "add the header.",
            )
        old = new = fallback
        notes.append(
            note(
                "warning",
                "missing-file-header",
                f"The hunks have no '---'/'+++' header; they were read as changes to {fallback}, "
                "named on the line before the diff.",
                line=line_no,
                block=block,
                dialect=NAME,
            )
        )
    if "Binary files" in h or "GIT binary patch" in h:
        return fail(
            "binary-patch",
            f"The diff of {new or old} is a binary patch, which cannot be applied from text.",
        )
    hunks: list[Hunk] = []
    if section.hunk_start is not None:
        body = lines[section.hunk_start : section.end]
        hunks, found = parse_hunks(body, section.hunk_start + 1, dialect=NAME, block=block)
        notes.extend(found)
    created = old == DEV_NULL or "new file mode" in h
    deleted = new == DEV_NULL or "deleted file mode" in h
    if created and new is not None and new != DEV_NULL:
        content = text_of([t for hunk in hunks for t in hunk.new_lines])
        if hunks and hunks[-1].no_newline_at_end and content.endswith("\n"):
            content = content[:-1]
        if any(line[:1] == "-" for hunk in hunks for line in hunk.lines):
            notes.append(
                note(
                    "warning",
                    "removed-lines-in-new-file",
                    f"The diff creates {new} from /dev/null but also removes lines; only the "
                    "added and context lines were kept.",
                    line=line_no,
                    block=block,
                    dialect=NAME,
                )
            )
        return WriteFile(
            path=new, content=content, create_only=True, dialect=NAME, block=block, line=line_no
        ), notes
    if deleted:
        if old is None or old == DEV_NULL:
            return fail("missing-path", "The diff deletes a file but does not name it.")
        return DeleteFile(path=old, dialect=NAME, block=block, line=line_no), notes
    path = old if old not in (None, DEV_NULL) else new
    if path is None:
        return fail("missing-path", "The diff's '---' header names no file.")
    move_to = new if new not in (None, DEV_NULL, path) else None
    if move_to is not None and "rename to" not in h:
        notes.append(
            note(
                "warning",
                "renamed-by-headers",
                f"The headers name {path} and {move_to}; the file is moved to {move_to}.",
                line=line_no,
                block=block,
                dialect=NAME,
            )
        )
    if not hunks:
        if move_to is not None:
            return MoveFile(path=path, to=move_to, dialect=NAME, block=block, line=line_no), notes
        return fail("empty-patch", f"The diff of {path} holds no hunks.")
    return PatchFile(
        path=path, hunks=tuple(hunks), move_to=move_to, dialect=NAME, block=block, line=line_no
    ), notes


DIALECT = UnifiedDiff()
"""The registered instance."""
