"""A file's lines as the matcher compares them: normalised per stage, and indexed.

Each matcher stage compares lines in its own normal form (:func:`normalise`); a
:class:`LineIndex` computes those forms and their positions once per file and stage.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = ["STAGES", "LineIndex", "Stage", "key_stage", "normalise"]

Stage = Literal[
    "exact", "trailing-whitespace", "indentation", "whitespace", "punctuation", "fuzzy", "aligned"
]
"""The name of a matcher stage, from strictest to loosest."""

STAGES: tuple[Stage, ...] = (
    "exact",
    "trailing-whitespace",
    "indentation",
    "whitespace",
    "punctuation",
    "fuzzy",
    "aligned",
)
"""Every stage, strictest first; ``aligned`` (a hunk placed with one line of the file left
out, or one added) is tried after ``punctuation`` and before ``fuzzy``."""

_PUNCTUATION = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2012": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2015": "-",
        "\u2212": "-",
        "\u00a0": " ",
        "\u2007": " ",
        "\u202f": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\u2002": " ",
        "\u2003": " ",
        "\u3000": " ",
        "\u200b": "",
        "\ufeff": "",
        "\u2026": "...",
    }
)


def normalise(line: str, stage: Stage) -> str:
    """``line`` as the given stage compares it."""
    if stage == "exact":
        return line
    if stage in ("trailing-whitespace", "aligned"):
        return line.rstrip()
    if stage == "indentation":
        return line.strip()
    if stage == "whitespace":
        return " ".join(line.split())
    # Every character the table maps is outside ASCII: ASCII lines skip the translation.
    return " ".join((line if line.isascii() else line.translate(_PUNCTUATION)).split())


def key_stage(stage: Stage) -> Stage:
    """The stage whose normal form ``stage`` compares lines in (fuzzy uses punctuation's,
    aligned trailing-whitespace's)."""
    if stage == "aligned":
        return "trailing-whitespace"
    return "punctuation" if stage == "fuzzy" else stage


class LineIndex:
    """A file's lines with their normalised forms and positions, computed once per stage."""

    def __init__(self, lines: Sequence[str], text: str | None = None) -> None:
        self.lines = lines
        self._keys: dict[Stage, list[str]] = {}
        self._positions: dict[Stage, dict[str, list[int]]] = {}
        # The lines joined, each ending with a newline; ``text``, when given, is the lines
        # joined already (as the file was decoded), which saves joining them again.
        if text and not text.endswith("\n"):
            text += "\n"
        self._text = text or None
        self._mark = (0, 0)

    def find_exact(self, needle: Sequence[str], start: int) -> list[int]:
        """The 0-based first lines, at or after ``start``, where ``needle`` stands exactly.

        Searches the joined text with ``str.find``, so the common case (the model quoted the
        file correctly) costs no per-line work in Python.
        """
        if not self.lines:
            return []
        if self._text is None:
            self._text = "\n".join(self.lines) + "\n"
        text = self._text
        wanted = "\n".join(needle) + "\n"
        found = []
        # A known (offset, line) pair at or before ``start``, ``offset`` the first character
        # of that line: searches made in file order, as hunks are, count each newline once.
        offset, line = self._mark if self._mark[1] <= start else (0, 0)
        at = text.find(wanted, offset)
        while at != -1:
            if at == 0 or text[at - 1] == "\n":
                line += text.count("\n", offset, at)
                offset = at
                if line >= start:
                    found.append(line)
            at = text.find(wanted, at + 1)
        self._mark = (offset, line)
        return found

    def keys(self, stage: Stage) -> list[str]:
        """Every line normalised for ``stage``."""
        stage = key_stage(stage)
        found = self._keys.get(stage)
        if found is None:
            if stage == "exact":
                found = list(self.lines)
            else:
                found = [normalise(line, stage) for line in self.lines]
            self._keys[stage] = found
        return found

    def positions(self, stage: Stage, key: str) -> list[int]:
        """The 0-based lines whose ``stage`` form is ``key``, in order."""
        stage = key_stage(stage)
        table = self._positions.get(stage)
        if table is None:
            table = {}
            for i, k in enumerate(self.keys(stage)):
                table.setdefault(k, []).append(i)
            self._positions[stage] = table
        return table.get(key, [])
