"""What one file's section of a unified diff asks for: its headers (``---``/``+++``, git's
extended headers) read into paths, and the action they and its hunks make: a patch, a move,
a create-only write (``/dev/null`` or ``new file mode``), a delete; copies, binary patches and
the diff of a symlink or a submodule (git's modes ``120000`` and ``160000``) are refused with
a reason.
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
from agentprompt.edits.dialects._hunk_text import parse_hunks
from agentprompt.edits.dialects.base import diagnostic_text, note, text_of

__all__ = ["DEV_NULL", "GIT_HEADERS", "NAME", "Section", "build_section"]

NAME = "udiff"
"""The unified-diff dialect's registry name."""
DEV_NULL = "/dev/null"
"""The path that stands for no file (a created or deleted file's other side)."""

GIT_HEADERS: tuple[str, ...] = (
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
"""Git's extended header lines, which may come before ``---``/``+++``."""
_MODE_HEADERS = ("new file mode", "deleted file mode", "old mode", "new mode")
"""The git headers whose value is a file mode."""
_SPECIAL_MODES = {"120000": "symlink", "160000": "submodule"}
"""Git's modes of what is not a regular file, and the catalogue diagnostic refusing each."""
_TIMESTAMP = re.compile(
    r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:[ \t]{0,8}[+-]\d{4})?$"
)
_TIMESTAMP_TAIL = 64
"""A timestamp with its zone is shorter: only a header's last characters are searched."""


def _without_timestamp(text: str) -> str:
    """``text`` without a timestamp after blanks at its end (``a.py 2024-01-02 10:00:00``),
    looked for in its tail only, so a header with a long run of blanks is read once."""
    skip = max(0, len(text) - _TIMESTAMP_TAIL)
    match = _TIMESTAMP.search(text, skip)
    if match is None or match.start() == 0 or text[match.start() - 1] not in " \t":
        return text
    return text[: match.start()].rstrip(" \t")


@dataclass
class Section:
    """One file's part of a diff: where it is, its headers, where its hunks start."""

    start: int
    """The index of its first line."""
    end: int = 0
    """The index after its last line."""
    headers: dict[str, str] = field(default_factory=dict)
    """Each header (``---``, ``+++``, ``rename from``, ...) and its value."""
    hunk_start: int | None = None
    """The index of its first hunk line, once one was read."""
    git: bool = False
    """It began with ``diff --git``."""

    def label(self) -> str:
        """The file it is about, as its headers name it (for messages)."""
        return self.headers.get("+++") or self.headers.get("---") or ""


def _header_path(raw: str | None) -> str | None:
    """A path from a ``---``/``+++`` header: timestamp and quotes removed."""
    if raw is None:
        return None
    path = _without_timestamp(raw.split("\t", 1)[0]).strip()
    if len(path) >= 2 and path[0] == path[-1] == '"':
        path = path[1:-1]
    return path or None


def _git_paths(raw: str) -> tuple[str | None, str | None]:
    """The two paths of ``diff --git a/x b/y`` (when they can be told apart)."""
    match = re.match(r"^--git\s+a/(.+?)\s+b/(.+)$", raw.strip())
    if match:
        return match.group(1), match.group(2)
    return None, None


def _special_mode(headers: dict[str, str]) -> str | None:
    """The git mode of a symlink or a submodule named by ``headers`` (a mode header, or the
    mode at the end of an ``index`` line), else ``None``: such a file's "content" is the link
    target or a commit, which written as text would make a regular file instead."""
    modes = [headers[name].strip() for name in _MODE_HEADERS if name in headers]
    index = headers.get("index", "").split()
    if len(index) == 2:
        modes.append(index[1])
    return next((mode for mode in modes if mode in _SPECIAL_MODES), None)


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
    elif real_old is not None and real_new is not None and real_old != real_new:
        # ``--- x.py`` / ``+++ b/x.py``: one side kept git's prefix, the other did not.
        bare_old = real_old[2:] if real_old.startswith(("a/", "b/")) else real_old
        bare_new = real_new[2:] if real_new.startswith(("a/", "b/")) else real_new
        if bare_old == bare_new:
            old = new = bare_old
    return old, new


def build_section(
    lines: Sequence[str], section: Section, block: int, fallback: str | None = None
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
                diagnostic_text("udiff_no_file_header"),
            )
        old = new = fallback
        notes.append(
            note(
                "warning",
                "missing-file-header",
                diagnostic_text("udiff_file_from_line_before", path=fallback),
                line=line_no,
                block=block,
                dialect=NAME,
            )
        )
    if "copy from" in h or "copy to" in h:
        return fail(
            "copy-unsupported",
            diagnostic_text(
                "udiff_copy", source=h.get("copy from", old), target=h.get("copy to", new)
            ),
        )
    if "Binary files" in h or "GIT binary patch" in h:
        return fail(
            "binary-patch",
            diagnostic_text("udiff_binary", path=new or old),
        )
    mode = _special_mode(h)
    if mode is not None:
        return fail(
            f"{_SPECIAL_MODES[mode]}-unsupported",
            diagnostic_text(f"udiff_{_SPECIAL_MODES[mode]}", path=new or old, mode=mode),
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
                    diagnostic_text("udiff_removed_lines_in_new_file", path=new),
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
            return fail("missing-path", diagnostic_text("udiff_delete_unnamed"))
        removed = [t for hunk in hunks for t in hunk.old_lines]
        expected = text_of(removed) if hunks else None
        return DeleteFile(
            path=old, expected=expected, dialect=NAME, block=block, line=line_no
        ), notes
    path = old if old not in (None, DEV_NULL) else new
    if path is None:
        return fail("missing-path", diagnostic_text("udiff_no_old_path"))
    move_to = new if new not in (None, DEV_NULL, path) else None
    if move_to is not None and "rename to" not in h:
        notes.append(
            note(
                "warning",
                "renamed-by-headers",
                diagnostic_text("udiff_renamed_by_headers", path=path, to=move_to),
                line=line_no,
                block=block,
                dialect=NAME,
            )
        )
    if not hunks:
        if move_to is not None:
            return MoveFile(path=path, to=move_to, dialect=NAME, block=block, line=line_no), notes
        return fail("empty-patch", diagnostic_text("udiff_empty_patch", path=path))
    return PatchFile(
        path=path, hunks=tuple(hunks), move_to=move_to, dialect=NAME, block=block, line=line_no
    ), notes
