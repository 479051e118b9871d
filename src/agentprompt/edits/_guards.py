"""Checks that refuse an action before it can damage a file.

Each raises :class:`Refused` with a reason for the model: new text holding a line that stands
for left-out code or a reply format's marker, a whole-file write that is a snippet among edit
blocks, a search text that is not one whole-word
occurrence inside a line, deleting or moving a symlink, deleting a file that no longer holds
what the diff removes, a new file that differs only by case from another, and text no UTF-8
file can hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from agentprompt.edits._elision import is_elision
from agentprompt.edits._hunks import HunkFailure
from agentprompt.edits._reasons import reason
from agentprompt.edits._textfile import TextFile, split_lines
from agentprompt.edits.actions import (
    AnchoredEdit,
    FileAction,
    PatchFile,
    SearchReplace,
    WriteFile,
)
from agentprompt.edits.dialects.bridge import is_bridge_marker
from agentprompt.edits.paths import check_portable, is_symlink

__all__ = [
    "Refused",
    "added_lines",
    "check_case",
    "check_encodable",
    "check_expected",
    "is_format_marker",
    "only_occurrence",
    "refuse_link",
    "refuse_snippet",
    "refuse_stand_ins",
]


class Refused(Exception):
    """An action that cannot be applied: the reason, and what the feedback quotes back."""

    def __init__(
        self,
        reason: str,
        failures: tuple[HunkFailure, ...] = (),
        lines: Sequence[str] = (),
        *,
        settled: bool = False,
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.failures = failures
        self.lines: tuple[str, ...] = tuple(lines)
        self.settled = settled or (bool(failures) and all(f.settled for f in failures))


_FORMAT_MARKER = re.compile(
    r"^\s*(?:<{5,9}\s*SEARCH\b|>{5,9}\s*REPLACE\b|«{3}\s*EDIT\s*$|»{3}\s*EDIT\s+END\s*$|"
    r"═{3,}\s*REPL\s*$|\*\*\* (?:Begin Patch|End Patch|Add File:|Delete File:|Update File:))"
)
"""A line of an edit block's own syntax (SEARCH/REPLACE, EDIT/REPL, apply_patch)."""


def is_format_marker(line: str) -> bool:
    """True for a line that belongs to a reply format's syntax, not to a file: a bridge
    marker (exact or slightly malformed) or another dialect's block marker."""
    return ("<<" in line or "***" in line or "EDIT" in line or "REPL" in line or ">>" in line) and (
        is_bridge_marker(line) or _FORMAT_MARKER.match(line) is not None
    )


def added_lines(action: FileAction) -> tuple[str, ...]:
    """The lines an action writes that it does not also quote from the file: a whole file's
    content, a replacement's new section, a patch's added lines."""
    match action:
        case WriteFile():
            return tuple(split_lines(action.content)[0])
        case PatchFile():
            return tuple(
                line[1:] for hunk in action.hunks for line in hunk.lines if line[:1] == "+"
            )
        case SearchReplace() | AnchoredEdit():
            return tuple(split_lines(action.replace)[0])
        case _:
            return ()


def refuse_stand_ins(action: FileAction, old: Sequence[str]) -> None:
    """Refuse an action that would write a line standing for left-out code (``# ... rest of
    the file unchanged ...``, ``// 既存のコード``) or a reply format's marker (``<<<END>>>``,
    ``>>>>>>> REPLACE``) that the file (``old``) does not already hold, whatever the length
    of the new text: the first would replace code with a comment, the second means the
    reply's blocks were read wrongly (a malformed marker swallowed by the block before)."""
    had: set[str] | None = None
    # A patch's added line is marked as such: a marker there is written on purpose.
    markers = not isinstance(action, PatchFile)
    for line in added_lines(action):
        elided = is_elision(line)
        if not elided and not (markers and is_format_marker(line)):
            continue
        if had is None:
            had = {row.strip() for row in old}
        if line.strip() in had:
            continue
        if elided:
            raise Refused(reason("elision", line=repr(line.strip())))
        raise Refused(reason("marker_in_content", line=repr(line.strip())))


def refuse_snippet(lines: Sequence[str], old: Sequence[str]) -> None:
    """Refuse a whole-file write, in a reply that edits other files by blocks, whose content
    is less than half as long as the existing file: a snippet, not the file."""
    new_size, old_size = sum(len(x) + 1 for x in lines), sum(len(x) + 1 for x in old)
    if new_size * 2 < old_size:
        raise Refused(reason("snippet", new=new_size, old=old_size))


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def only_occurrence(text: str, needle: str) -> int | None:
    """Where ``needle`` (a part of a line) stands in ``text``, if it stands exactly once,
    counting overlapping occurrences, and only where it starts and ends on word boundaries
    (``x = 1`` is not the tail of ``max = 10``)."""
    if not needle or not needle.strip():
        return None
    found = []
    at = text.find(needle)
    while at != -1:
        found.append(at)
        at = text.find(needle, at + 1)
    if len(found) != 1:
        return None
    at, end = found[0], found[0] + len(needle)
    if at > 0 and _word(text[at - 1]) and _word(needle[0]):
        return None
    if end < len(text) and _word(text[end]) and _word(needle[-1]):
        return None
    return at


def refuse_link(root: Path, path: str, what: str) -> None:
    """A symlink is never deleted or moved by an edit: that would act on its target
    (``what``: ``deleted`` or ``moved``)."""
    if is_symlink(root, path):
        raise Refused(reason("symlink", path=path, what=reason(f"what_{what}")))


def check_expected(current: TextFile, expected: str) -> None:
    """A delete that quoted the file's content deletes it only if the file still holds it."""
    want, _ = split_lines(expected)
    if [line.rstrip() for line in want] != [line.rstrip() for line in current.lines]:
        raise Refused(reason("stale_delete"), (), current.lines)


def check_case(real: Path, path: str) -> None:
    """Refuse a new file that is, somewhere on its way, the same name as one that exists
    on macOS or Windows: a name (of the file, or of a new directory on its way, ``SUB/``
    beside ``sub/``) that differs from an existing one by case only, or by Unicode
    normalization, characters those systems ignore, or trailing dots and spaces."""
    found = check_portable(real, path)
    if found is None:
        return
    existing, name = found
    if existing.casefold() == name.casefold():
        raise Refused(reason("case_existing", existing=existing, path=path))
    raise Refused(reason("portable_existing", existing=existing, path=path))


def check_encodable(action: FileAction) -> None:
    """Refuse text no UTF-8 file can hold (lone surrogates); only the model's text can."""
    match action:
        case WriteFile():
            texts: Sequence[str] = (action.content,)
        case PatchFile():
            texts = [line for hunk in action.hunks for line in hunk.lines]
        case SearchReplace() | AnchoredEdit():
            texts = (action.replace,)
        case _:
            texts = ()
    try:
        "".join(texts).encode("utf-8")
    except UnicodeEncodeError:
        raise Refused(reason("not_encodable")) from None
