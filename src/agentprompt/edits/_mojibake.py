"""Replies whose UTF-8 was decoded as Windows-1252 or Latin-1 on the way (``cafÃ©``,
``â€™``, ``æ—¥æœ¬èªž``): a copy through a tool that guessed the wrong encoding.

Applied as is, every non-ASCII character the model wrote lands in the files garbled. ``ftfy``
recognises the pattern and undoes it; :func:`garbled_lines` finds the lines it would change,
:func:`repair` undoes it for a whole reply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import ftfy
from ftfy.badness import is_bad

from agentprompt.edits.actions import EditError
from agentprompt.errors import literal

__all__ = ["GarbledLine", "garbled_lines", "garbled_reply", "repair"]

_LEAD = re.compile("[\u00c2-\u00f4]")
"""A UTF-8 lead byte read as Windows-1252 or Latin-1 (``Â``..``ô``): every garbled multi-byte
character starts with one, so text without any is never garbled."""


@dataclass(frozen=True, kw_only=True)
class GarbledLine:
    """A line of a reply that reads as UTF-8 decoded with the wrong encoding."""

    line: int
    """Its 1-based number in the reply."""
    text: str
    """The line as given."""
    repaired: str
    """The line as the model wrote it."""


def garbled_reply(lines: tuple[GarbledLine, ...]) -> EditError:
    """The reply's text was decoded with the wrong encoding before it reached the engine:
    the error naming the first of its garbled ``lines``."""
    first = lines[0]
    more = f" and {len(lines) - 1} more line(s)" if len(lines) > 1 else ""
    return EditError(
        f"the reply looks like UTF-8 text read as Windows-1252 or Latin-1 (line "
        f"{first.line}: {literal(_quote(first.text))} reads {literal(_quote(first.repaired))} "
        f"repaired{more}); "
        "nothing was applied. Copy the reply again so it stays UTF-8 (or save it as "
        "UTF-8), or apply it with {fix_encoding} to repair it",
        names=True,
    )


def _quote(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= 60 else text[:57] + "...")


def garbled_lines(text: str) -> tuple[GarbledLine, ...]:
    """The lines of ``text`` that ``ftfy`` reads as mis-decoded UTF-8 and can repair."""
    if text.isascii() or _LEAD.search(text) is None:
        return ()
    found = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.isascii() or _LEAD.search(line) is None or not is_bad(line):
            continue
        fixed = ftfy.fix_encoding(line)
        if fixed != line:
            found.append(GarbledLine(line=number, text=line, repaired=fixed))
    return tuple(found)


def repair(text: str, lines: Iterable[GarbledLine]) -> str:
    """``text`` with each of ``lines`` replaced by its repaired form."""
    rows = text.split("\n")
    for garbled in lines:
        rows[garbled.line - 1] = garbled.repaired
    return "\n".join(rows)
