"""The unified diff of a change set, as ``git diff`` would show it.

When one edit action made a file's whole change, its placed edits already say which lines
changed, and the hunks are written from them directly (three lines of context, hunks
closer than six lines merged, as ``diff -u`` does). Otherwise the two texts are compared
with difflib.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from difflib import SequenceMatcher, unified_diff

from agentprompt.edits._plan import FileChange
from agentprompt.edits._splice import Edit
from agentprompt.edits._textfile import TextFile

__all__ = ["render_diff"]

CONTEXT = 3
"""Lines of context around each change."""

_NO_NEWLINE = "\\ No newline at end of file\n"

MAX_REFINED = 1_000_000
"""An edit of more lines than this (old times new) is shown as it was placed, not split
into its smallest changes (comparing line by line costs their product)."""


def _plain(file: TextFile | None) -> bool:
    return file is None or (file.newline == "\n" and not file.bom and not file.endings)


def _lines(file: TextFile | None) -> list[str]:
    """The file's lines as they stand on disk (CRLF endings and a byte-order mark kept, so
    ``git apply`` takes the diff), each ending with ``\n``."""
    if file is None or not file.lines:
        return []
    if file.endings and len(file.endings) == len(file.lines):
        ends = [end[:-1] for end in file.endings]
    else:
        ends = [file.newline[:-1]] * len(file.lines)
    lines = [line + end + "\n" for line, end in zip(file.lines, ends, strict=True)]
    if not file.final_newline:
        lines[-1] = file.lines[-1] + "\n" + _NO_NEWLINE
    if file.bom:
        lines[0] = "\ufeff" + lines[0]
    return lines


def _range(start: int, count: int) -> str:
    if count == 1:
        return str(start + 1)
    return f"{start + 1 if count else start},{count}"


def _prefixed(sign: str, lines: Sequence[str]) -> str:
    """``lines`` as diff lines starting with ``sign``, each ending with a newline."""
    if not lines:
        return ""
    return sign + ("\n" + sign).join(lines) + "\n"


def _smallest(old: Sequence[str], edits: Sequence[Edit]) -> list[Edit]:
    """``edits`` split into the lines that really change: a SEARCH/REPLACE block quoting ten
    lines to change two is two changed lines in the review, not a ten-line replacement."""
    found: list[Edit] = []
    for edit in edits:
        before = old[edit.start : edit.end]
        # Only an edit whose old and new lines share a line can be split; most edits (a
        # hunk's removed and added lines) share none, and need no comparison.
        if len(before) * len(edit.new) > MAX_REFINED or set(before).isdisjoint(edit.new):
            found.append(edit)
            continue
        matcher = SequenceMatcher(None, before, edit.new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag != "equal":
                found.append(
                    replace(edit, start=edit.start + i1, end=edit.start + i2, new=edit.new[j1:j2])
                )
    return found


def _from_edits(old: Sequence[str], edits: Sequence[Edit]) -> list[str]:
    """The hunks of ``edits`` (sorted, not overlapping) over the original lines ``old``,
    each edit shown as its smallest changes."""
    groups: list[list[Edit]] = []
    for edit in _smallest(old, edits):
        if groups and edit.start - groups[-1][-1].end <= 2 * CONTEXT:
            groups[-1].append(edit)
        else:
            groups.append([edit])
    out: list[str] = []
    offset = 0
    for group in groups:
        a = max(0, group[0].start - CONTEXT)
        b = min(len(old), group[-1].end + CONTEXT)
        body: list[str] = []
        pos = a
        for edit in group:
            body.append(_prefixed(" ", old[pos : edit.start]))
            body.append(_prefixed("-", old[edit.start : edit.end]))
            body.append(_prefixed("+", edit.new))
            pos = edit.end
        body.append(_prefixed(" ", old[pos:b]))
        grown = sum(len(e.new) - (e.end - e.start) for e in group)
        out.append(f"@@ -{_range(a, b - a)} +{_range(a + offset, b - a + grown)} @@\n")
        out.extend(body)
        offset += grown
    return out


def _one(change: FileChange) -> str:
    old = "/dev/null" if change.before is None else f"a/{change.path}"
    new = "/dev/null" if change.after_file is None else f"b/{change.path}"
    head = f"diff --git a/{change.path} b/{change.path}\n"
    if change.before is None:
        head += f"new file mode 100{change.mode or 0o644:o}\n"
    elif change.after_file is None:
        head += f"deleted file mode 100{change.mode or 0o644:o}\n"
    before, after = change.before_file, change.after_file
    complete = bool(before and after and before.final_newline and after.final_newline)
    complete = complete and _plain(before) and _plain(after)
    if before is not None and change.edits is not None and complete:
        hunks = _from_edits(before.lines, change.edits)
        if hunks:
            return head + f"--- {old}\n+++ {new}\n" + "".join(hunks)
    body = "".join(unified_diff(_lines(before), _lines(after), old, new, n=CONTEXT))
    if not body and change.before is not None and change.after_file is not None:
        body = f"--- {old}\n+++ {new}\n"
    return head + body


def render_diff(changes: Sequence[FileChange]) -> str:
    """The unified diff of ``changes``, file by file in the order given."""
    return "".join(_one(change) for change in changes)
