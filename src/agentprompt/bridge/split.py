"""Split sending: a long prompt cut into parts, each within the limit with its header.

Cuts fall between lines only, preferring the start of a section (a Markdown heading), then
the line after a closed fence or a blank line (the end of a file's block), then any line.
Every part is its header followed by a piece of the prompt, so removing the headers and
joining the pieces gives the prompt back exactly (:func:`join_parts`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentprompt.bridge.text import render_prompt
from agentprompt.errors import UsageError

__all__ = [
    "DEFAULT_SPLIT_CHARS",
    "LimitTooSmall",
    "SplitLimit",
    "join_parts",
    "part_header",
    "prompt_sections",
    "split_prompt",
]

DEFAULT_SPLIT_CHARS = 30_000
"""The default limit: web chat inputs commonly take a few tens of thousands of characters."""

Measure = Callable[[str], int]


@dataclass(frozen=True, kw_only=True)
class SplitLimit:
    """How long a part may be."""

    size: int
    """The most a part (header included) may measure."""
    unit: str = "chars"
    """``chars`` or ``tokens``."""
    measure: Measure = len
    """How a text is measured in ``unit``."""


class LimitTooSmall(UsageError):
    """A split limit that cannot hold a part header and one line of the prompt."""

    def __init__(self, size: int, unit: str, needed: int) -> None:
        super().__init__(
            f"a split limit of {size} {unit} cannot hold a part header and the prompt's "
            f"longest line, which need {needed} {unit}; raise --split-{unit} to at least that"
        )
        self.size = size
        """The limit given."""
        self.needed = needed
        """The least the limit must be."""


def part_header(n: int, m: int, lang: str, root: Path | None = None) -> str:
    """The header of part ``n`` of ``m``, fixed text byte for byte, with a final newline."""
    if n == m:
        return render_prompt("part_header_last", lang, root, m=m) + "\n"
    return render_prompt("part_header", lang, root, n=n, m=m) + "\n"


_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")


def _kinds(lines: Sequence[str]) -> list[str]:
    """Each line's role for cutting: ``head`` (a Markdown heading: a ``#`` line outside any
    fence, so a Python or shell comment inside a file's content is not a section), ``open``
    or ``close`` (a fence), or ``""``."""
    kinds: list[str] = []
    fence = ""
    for line in lines:
        found = _FENCE.match(line)
        if fence:
            closing = found and found.group(1).startswith(fence) and not line[found.end() :].strip()
            fence = "" if closing else fence
            kinds.append("close" if closing else "")
        elif found:
            fence = found.group(1)
            kinds.append("open")
        else:
            kinds.append("head" if line.startswith("#") else "")
    return kinds


def prompt_sections(text: str) -> tuple[tuple[str, str], ...]:
    """``text`` cut at its Markdown headings (outside fences, as split sending sees them):
    ``(title, text)`` pairs whose texts join back to ``text``. The title is the heading's
    words; text before the first heading has the title ``""``."""
    lines = text.splitlines(keepends=True)
    sections: list[tuple[str, str]] = []
    title, start = "", 0
    for i, kind in enumerate(_kinds(lines)):
        if kind == "head" and i > start:
            sections.append((title, "".join(lines[start:i])))
            start = i
        if kind == "head":
            title = lines[i].lstrip("#").strip()
    if start < len(lines):
        sections.append((title, "".join(lines[start:])))
    return tuple(sections)


def _rank(lines: Sequence[str], kinds: Sequence[str], i: int) -> int:
    """How good a cut before line ``i`` is: 2 a heading (unless it would leave the heading
    before it alone at the end of a part), 1 after a blank line or a closing fence, 0
    elsewhere (after an opening fence, say)."""
    if kinds[i] == "head":
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        return 0 if j >= 0 and kinds[j] == "head" else 2
    return 1 if not lines[i - 1].strip() or kinds[i - 1] == "close" else 0


def _pieces(lines: Sequence[str], sizes: Sequence[int], room: int) -> list[str]:
    """Greedy pieces of at most ``room`` (summing the lines' ``sizes``), each cut at the best
    place in its second half."""
    pieces: list[str] = []
    kinds = _kinds(lines)
    start = 0
    while start < len(lines):
        end = start
        size = 0
        while end < len(lines) and size + sizes[end] <= room:
            size += sizes[end]
            end += 1
        if end == start:
            raise LimitTooSmall(room, "", sizes[start])
        if end < len(lines):
            half = start + max(1, (end - start) // 2)
            end = max(range(half, end + 1), key=lambda i: (_rank(lines, kinds, i), i))
        pieces.append("".join(lines[start:end]))
        start = end
    return pieces


def split_prompt(
    text: str, limit: SplitLimit, lang: str, root: Path | None = None
) -> tuple[str, ...]:
    """``text`` as parts each within ``limit`` (header included); one part, with no header,
    when it fits whole. Raises :class:`LimitTooSmall` when a line cannot fit in any part."""
    if limit.measure(text) <= limit.size:
        return (text,)
    lines = text.splitlines(keepends=True)
    sizes = [limit.measure(line) for line in lines]
    count = 2
    slack = 0
    for _attempt in range(64):
        widest = max(limit.measure(part_header(n, count, lang, root)) for n in (1, count))
        room = limit.size - widest - slack
        if room < max(sizes):
            raise LimitTooSmall(limit.size, limit.unit, widest + slack + max(sizes))
        pieces = _pieces(lines, sizes, room)
        total = len(pieces)
        parts = tuple(part_header(n, total, lang, root) + p for n, p in enumerate(pieces, 1))
        over = max(limit.measure(p) for p in parts) - limit.size
        if over <= 0:
            return parts
        if total > count:
            count = total
        else:
            # Token counts are not quite additive over lines: leave a little more room.
            slack += over
    raise LimitTooSmall(limit.size, limit.unit, limit.size + 1)


def join_parts(parts: Sequence[str], lang: str, root: Path | None = None) -> str:
    """The prompt the parts were split from: each part without its header, joined."""
    if len(parts) == 1:
        return parts[0]
    out = []
    for n, part in enumerate(parts, 1):
        header = part_header(n, len(parts), lang, root)
        if not part.startswith(header):
            raise UsageError(f"part {n} of {len(parts)} does not start with its header")
        out.append(part[len(header) :])
    return "".join(out)
