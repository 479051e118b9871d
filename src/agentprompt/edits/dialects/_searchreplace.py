"""SEARCH/REPLACE blocks: a path line, optionally a fence, then

```
<<<<<<< SEARCH
text to find
=======
replacement
>>>>>>> REPLACE
```

Several blocks may share one fence; a block whose line before is the previous block's
``>>>>>>> REPLACE`` (blank and fence lines aside) keeps that block's path (even when that
block was malformed); after prose or an unreadable path line it has none (an error). The
divider is the first line of exactly seven ``=`` (five to nine only when there is none, with
a warning when several lines could be it). The search and replacement are
kept exactly as written (each line with its newline).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.edits.actions import Action, SearchReplace
from agentprompt.edits.dialects._delimited import DelimitedReader, Delimiters
from agentprompt.edits.dialects.base import (
    BlockReader,
    ScanState,
    fence_path_before,
    line_before,
    path_before,
    text_of,
)

__all__ = ["DIALECT", "SearchReplaceDialect", "is_search_marker"]

NAME = "searchreplace"
_SEARCH = re.compile(r"^\s*<{5,9}\s*SEARCH\b.*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_EXACT_DIVIDER = re.compile(r"^\s*={7}\s*$")
_REPLACE = re.compile(r"^\s*>{5,9}\s*REPLACE\b.*$")


def is_search_marker(line: str) -> bool:
    """True for a ``<<<<<<< SEARCH`` line."""
    return _SEARCH.match(line) is not None


def _build(path: str, old: Sequence[str], new: Sequence[str], block: int, line: int) -> Action:
    return SearchReplace(
        path=path, search=text_of(old), replace=text_of(new), dialect=NAME, block=block, line=line
    )


_SPEC = Delimiters(
    dialect=NAME,
    opener=_SEARCH,
    divider=_DIVIDER,
    exact_divider=_EXACT_DIVIDER,
    end=_REPLACE,
    opener_text="<<<<<<< SEARCH",
    divider_text="=======",
    end_text=">>>>>>> REPLACE",
    label="SEARCH/REPLACE",
    unclosed_code="missing-replace-end",
    build=_build,
)


@dataclass(frozen=True)
class SearchReplaceDialect:
    """The SEARCH/REPLACE dialect."""

    name: str = NAME
    """Registry name."""
    prompt: str = "edits/dialect_searchreplace"
    """Instruction prompt name."""
    lang: str = "en"
    """The language of that prompt (other languages are ``<prompt>_<lang>``)."""

    def detect(self, text: str) -> bool:
        """True when ``text`` holds a ``<<<<<<< SEARCH`` line."""
        return any(is_search_marker(line) for line in text.split("\n"))

    def starts(self, lines: Sequence[str], i: int, final: bool) -> bool | None:
        """A ``<<<<<<< SEARCH`` line."""
        return is_search_marker(lines[i])

    def open_block(self, lines: Sequence[str], i: int, state: ScanState) -> BlockReader:
        """A reader for the block that starts at line ``i``: its path is on the line before,
        or, when the line before is the previous block's ``>>>>>>> REPLACE``, that block's."""
        path = path_before(lines, i)
        if path is not None:
            state.last_path[NAME] = path
        elif line_before(lines, i) == state.last_end.get(NAME, -1):
            path = state.last_path.get(NAME)
        else:
            path = fence_path_before(lines, i)
            if path is not None:
                state.last_path[NAME] = path
        found = path
        return DelimitedReader(spec=_SPEC, start=i, j=i + 1, state=state, path=lambda _lines: found)


DIALECT = SearchReplaceDialect()
"""The registered instance."""
