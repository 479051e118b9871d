"""EDIT/REPL blocks, located by the context lines shared by both halves:

```
path/to/file.ext
««« EDIT
[context lines]
[old lines]
═══════ REPL
[the same context lines]
[new lines]
»»» EDIT END
```

The lines both sections share at their start are the anchor. An empty EDIT section creates
the file.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.edits.actions import Action, AnchoredEdit
from agentprompt.edits.dialects._delimited import DelimitedReader, Delimiters
from agentprompt.edits.dialects.base import (
    BlockReader,
    ScanState,
    fence_path_before,
    path_before,
    text_of,
)

__all__ = ["DIALECT", "EditReplDialect", "is_edit_marker", "shared_prefix"]

NAME = "editrepl"
_EDIT = re.compile(r"^\s*«{3}\s*EDIT\s*$")
_REPL = re.compile(r"^\s*═{3,}\s*REPL\s*$")
_EXACT_REPL = re.compile(r"^═{7} REPL\s*$")
_END = re.compile(r"^\s*»{3}\s*EDIT\s+END\s*$")


def is_edit_marker(line: str) -> bool:
    """True for a ``««« EDIT`` line."""
    return _EDIT.match(line) is not None


def shared_prefix(old: Sequence[str], new: Sequence[str]) -> list[str]:
    """The leading lines ``old`` and ``new`` have in common: the anchor."""
    anchor: list[str] = []
    for a, b in zip(old, new, strict=False):
        if a != b:
            break
        anchor.append(a)
    return anchor


def _build(path: str, old: Sequence[str], new: Sequence[str], block: int, line: int) -> Action:
    return AnchoredEdit(
        path=path,
        search=text_of(old),
        replace=text_of(new),
        anchor=text_of(shared_prefix(old, new)),
        dialect=NAME,
        block=block,
        line=line,
    )


_SPEC = Delimiters(
    dialect=NAME,
    opener=_EDIT,
    divider=_REPL,
    exact_divider=_EXACT_REPL,
    end=_END,
    opener_text="««« EDIT",
    divider_text="═══════ REPL",
    end_text="»»» EDIT END",
    label="EDIT",
    unclosed_code="missing-edit-end",
    build=_build,
)


@dataclass(frozen=True)
class EditReplDialect:
    """The EDIT/REPL dialect."""

    name: str = NAME
    """Registry name."""
    prompt: str = "edits/dialect_editrepl"
    """Instruction prompt name."""
    lang: str = "en"
    """The language of that prompt (other languages are ``<prompt>_<lang>``)."""

    def detect(self, text: str) -> bool:
        """True when ``text`` holds a ``««« EDIT`` line."""
        return any(is_edit_marker(line) for line in text.split("\n"))

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """A ``««« EDIT`` line."""
        return is_edit_marker(lines[i])

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the block that starts at line ``i`` (its file on the line before)."""
        return DelimitedReader(
            spec=_SPEC,
            start=i,
            j=i + 1,
            state=state,
            path=lambda rows: path_before(rows, i, lenient=True) or fence_path_before(rows, i),
        )


DIALECT = EditReplDialect()
"""The registered instance."""
