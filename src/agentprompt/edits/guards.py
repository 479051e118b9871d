"""Checks that refuse an action before it can damage a file.

Each raises :class:`Refused` with a reason for the model: a whole-file write that stands for
left-out code or is a snippet among edit blocks, a search text that is not one whole-word
occurrence inside a line, deleting or moving a symlink, deleting a file that no longer holds
what the diff removes, a new file that differs only by case from another, and text no UTF-8
file can hold.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from agentprompt.edits.actions import (
    AnchoredEdit,
    FileAction,
    PatchFile,
    SearchReplace,
    WriteFile,
)
from agentprompt.edits.hunks import HunkFailure
from agentprompt.edits.paths import is_symlink
from agentprompt.edits.reasons import reason
from agentprompt.edits.textfile import TextFile, split_lines

__all__ = [
    "Refused",
    "check_case",
    "check_encodable",
    "check_expected",
    "only_occurrence",
    "refuse_elision",
    "refuse_link",
    "refuse_snippet",
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


_ELISION = re.compile(
    r"^\s*(?:#|//|/\*|<!--|--|;|\*|\{/\*)\s*(?:\.\.\.|…)?\s*[\[(]?\s*(?:\.\.\.|…|"
    r".*\b(?:rest of (?:the )?(?:file|code|class|module|function|methods?)|existing code|"
    r"unchanged|remains? the same|same as (?:before|above)|omitted|as before)\b)"
    r"|^\s*(?:\.\.\.|…)\s*[\[(]?\s*(?:unchanged|existing|rest|omitted|same)",
    re.IGNORECASE,
)
"""A line that stands for code left out (``# rest of the file unchanged``, ``// ... existing
code ...``, ``... (unchanged)``): a whole-file write holding one would cut the file."""


def refuse_elision(lines: Sequence[str], old: Sequence[str]) -> None:
    """Refuse a whole-file write that elides part of a longer existing file."""
    if len(lines) >= len(old):
        return
    had = set(old)
    for line in lines:
        if line not in had and len(line) < 120 and _ELISION.match(line):
            raise Refused(reason("elision", line=repr(line.strip())))


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
    """Refuse a new file whose name differs only by case from one already in its folder."""
    try:
        names = os.listdir(real.parent)
    except OSError:
        return
    name = real.name
    clash = [n for n in names if n != name and n.casefold() == name.casefold()]
    if clash:
        raise Refused(reason("case_existing", existing=clash[0], path=path))


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
