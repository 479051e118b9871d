"""Split sending: a long prompt cut into parts, each within the limit with its header.

Cuts fall between lines only, preferring the start of a section (a Markdown heading), then
the line after a closed fence or a blank line (the end of a file's block), then any line.
Every part is its header followed by a piece of the prompt, so removing the headers and
joining the pieces gives the prompt back exactly (:func:`join_parts`).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from agentprompt.bridge.text import render_prompt
from agentprompt.errors import UsageError

__all__ = [
    "DEFAULT_SPLIT_CHARS",
    "LimitTooSmall",
    "LineFacts",
    "SplitLimit",
    "SplitPlan",
    "join_parts",
    "line_facts",
    "part_header",
    "plan_chunks_split",
    "plan_split",
    "prompt_sections",
    "split_prompt",
    "text_lines",
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
            f"longest line, which need {needed} {unit}",
            fix="raise {split_" + unit + "} to at least that",
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

_LINE_ENDS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
"""The characters :meth:`str.splitlines` ends a line at (``\\r\\n`` ends one line too)."""


def text_lines(chunks: Iterable[str]) -> Iterator[str]:
    """The lines of the text ``chunks`` join to, with their line ends, exactly as
    ``str.splitlines(keepends=True)`` cuts the joined text (a line may run over several
    chunks, and a ``\\r`` ending one chunk with a ``\\n`` starting the next is one line end)."""
    carry = ""
    for chunk in chunks:
        if not chunk:
            continue
        lines = (carry + chunk).splitlines(keepends=True)
        carry = lines.pop()
        if carry[-1] in _LINE_ENDS and carry[-1] != "\r":
            lines.append(carry)
            carry = ""
        yield from lines
    if carry:
        yield carry


def _kinds(lines: Iterable[str]) -> Iterator[tuple[str, str]]:
    """Each line with its role for cutting: ``head`` (a Markdown heading: a ``#`` line
    outside any fence, so a Python or shell comment inside a file's content is not a
    section), ``open`` or ``close`` (a fence), or ``""``."""
    fence = ""
    for line in lines:
        found = _FENCE.match(line)
        if fence:
            closing = found and found.group(1).startswith(fence) and not line[found.end() :].strip()
            fence = "" if closing else fence
            yield line, "close" if closing else ""
        elif found:
            fence = found.group(1)
            yield line, "open"
        else:
            yield line, "head" if line.startswith("#") else ""


def prompt_sections(text: str) -> tuple[tuple[str, str], ...]:
    """``text`` cut at its Markdown headings (outside fences, as split sending sees them):
    ``(title, text)`` pairs whose texts join back to ``text``. The title is the heading's
    words; text before the first heading has the title ``""``."""
    lines = text.splitlines(keepends=True)
    sections: list[tuple[str, str]] = []
    title, start = "", 0
    for i, (line, kind) in enumerate(_kinds(lines)):
        if kind == "head" and i > start:
            sections.append((title, "".join(lines[start:i])))
            start = i
        if kind == "head":
            title = line.lstrip("#").strip()
    if start < len(lines):
        sections.append((title, "".join(lines[start:])))
    return tuple(sections)


def _ranks(lines: Iterable[str]) -> Iterator[tuple[str, int]]:
    """Each line with how good a cut before it is: 2 at a heading (unless it would leave
    the heading before it alone at the end of a part), 1 after a blank line or a closing
    fence, 0 elsewhere (after an opening fence, say; and before the first line)."""
    first = True
    last_blank = False
    last_kind = ""
    solid_kind = ""  # the kind of the last line that is not blank
    for line, kind in _kinds(lines):
        if first:
            rank = 0
        elif kind == "head":
            rank = 0 if solid_kind == "head" else 2
        else:
            rank = 1 if last_blank or last_kind == "close" else 0
        yield line, rank
        first = False
        last_blank = not line.strip()
        last_kind = kind
        if not last_blank:
            solid_kind = kind


@dataclass(frozen=True, kw_only=True)
class LineFacts:
    """What cutting a text needs of its lines, without their texts."""

    reach: array[int]
    """Where each line starts, measured in the limit's unit from the text's start, and
    where the last one ends (one more entry than there are lines)."""
    offsets: array[int]
    """The same in characters (``reach`` itself when the limit counts characters)."""
    ranks: bytearray
    """How good a cut before each line is (2 best)."""
    longest: int
    """The largest measure of a line."""


def line_facts(
    lines: Iterable[str], measure: Measure | None = None, *, chars: int | None = None
) -> LineFacts:
    """The facts of ``lines`` for cutting, each line measured with ``measure`` (None:
    in characters). ``chars``: how many characters the lines hold, when known (a text of
    fewer than 2**32 keeps four bytes a line for where each starts, not eight)."""
    narrow = chars is not None and chars < 2**32
    reach = array("I" if narrow and measure is None else "q", [0])
    offsets = reach if measure is None else array("I" if narrow else "q", [0])
    ranks = bytearray()
    longest = 0
    for line, rank in _ranks(lines):
        size = len(line) if measure is None else measure(line)
        reach.append(reach[-1] + size)
        if offsets is not reach:
            offsets.append(offsets[-1] + len(line))
        ranks.append(rank)
        longest = max(longest, size)
    return LineFacts(reach=reach, offsets=offsets, ranks=ranks, longest=longest)


def _line_ends(facts: LineFacts, room: int) -> list[int]:
    """Greedy runs of lines measuring at most ``room``, each cut at the best place in its
    second half: the line each run ends before."""
    reach, ranks = facts.reach, facts.ranks
    count = len(ranks)
    ends: list[int] = []
    start = 0
    while start < count:
        end = bisect_right(reach, reach[start] + room, lo=start) - 1
        if end == start:
            raise LimitTooSmall(room, "", reach[start + 1] - reach[start])
        if end < count:
            half = start + max(1, (end - start) // 2)
            best = max(ranks[half : end + 1])
            end = ranks.rfind(best, half, end + 1)
        ends.append(end)
        start = end
    return ends


@dataclass(frozen=True, kw_only=True)
class SplitPlan:
    """Where a prompt is cut into parts: part ``k`` is ``headers[k]`` followed by the
    prompt's characters ``bounds[k]`` to ``bounds[k + 1]``."""

    headers: tuple[str, ...]
    """Each part's header (one part, with no header, when the prompt fits whole)."""
    bounds: tuple[int, ...]
    """Where each part starts in the prompt, in characters, and where the last one ends."""

    @property
    def count(self) -> int:
        """How many parts there are."""
        return len(self.headers)

    def cut(self, text: str) -> tuple[str, ...]:
        """The parts of ``text`` (the prompt planned)."""
        if self.count == 1:
            return (text,)
        edges = pairwise(self.bounds)
        return tuple(h + text[a:b] for h, (a, b) in zip(self.headers, edges, strict=True))

    def assemble(self, chunks: Iterable[str]) -> Iterator[str]:
        """The parts of the prompt ``chunks`` join to, one at a time (only one part's text
        is held)."""
        number, position = 0, 0
        held = [self.headers[0]]
        for chunk in chunks:
            used = 0
            while len(chunk) - used > 0:
                take = min(len(chunk) - used, self.bounds[number + 1] - position)
                if not take:
                    raise ValueError("the prompt is longer than its split was planned for")
                held.append(chunk[used : used + take])
                used += take
                position += take
                if position == self.bounds[number + 1] and number + 1 < self.count:
                    yield "".join(held)
                    number += 1
                    held = [self.headers[number]]
        yield "".join(held)


def _whole(chars: int) -> SplitPlan:
    return SplitPlan(headers=("",), bounds=(0, chars))


def _plan(
    facts: LineFacts,
    limit: SplitLimit,
    lang: str,
    root: Path | None,
    measure_part: Callable[[str, int, int], int],
) -> SplitPlan:
    """The plan of a text that does not fit whole: parts each within ``limit`` (header
    included, as ``measure_part(header, start, end)`` measures a part of the characters
    ``start`` to ``end``). Raises :class:`LimitTooSmall` when a line cannot fit in any
    part."""
    count = 2
    slack = 0
    for _attempt in range(64):
        widest = max(limit.measure(part_header(n, count, lang, root)) for n in (1, count))
        room = limit.size - widest - slack
        if room < facts.longest:
            raise LimitTooSmall(limit.size, limit.unit, widest + slack + facts.longest)
        lines = [0, *_line_ends(facts, room)]
        total = len(lines) - 1
        headers = tuple(part_header(n, total, lang, root) for n in range(1, total + 1))
        bounds = tuple(facts.offsets[i] for i in lines)
        edges = pairwise(bounds)
        over = max(measure_part(h, a, b) for h, (a, b) in zip(headers, edges, strict=True))
        over -= limit.size
        if over <= 0:
            return SplitPlan(headers=headers, bounds=bounds)
        if total > count:
            count = total
        else:
            # Token counts are not quite additive over lines: leave a little more room.
            slack += over
    raise LimitTooSmall(limit.size, limit.unit, limit.size + 1)


def plan_split(text: str, limit: SplitLimit, lang: str, root: Path | None = None) -> SplitPlan:
    """How ``text`` is cut into parts each within ``limit`` (header included); one part,
    with no header, when it fits whole. Raises :class:`LimitTooSmall` when a line cannot fit
    in any part."""
    if limit.measure(text) <= limit.size:
        return _whole(len(text))
    lines = text.splitlines(keepends=True)
    facts = line_facts(lines, None if limit.measure is len else limit.measure, chars=len(text))
    return _plan(facts, limit, lang, root, lambda h, a, b: limit.measure(h + text[a:b]))


def plan_chunks_split(
    chunks: Iterable[str], chars: int, limit: SplitLimit, lang: str, root: Path | None = None
) -> SplitPlan:
    """:func:`plan_split` of the text of ``chars`` characters that ``chunks`` join to,
    never joined (the limit counts characters: a part's size is its header's and its
    characters')."""
    if limit.measure is not len:
        raise ValueError("a split of chunks measures characters")
    if chars <= limit.size:
        return _whole(chars)
    facts = line_facts(text_lines(chunks), chars=chars)
    return _plan(facts, limit, lang, root, lambda h, a, b: len(h) + b - a)


def split_prompt(
    text: str, limit: SplitLimit, lang: str, root: Path | None = None
) -> tuple[str, ...]:
    """``text`` as parts each within ``limit`` (header included); one part, with no header,
    when it fits whole. Raises :class:`LimitTooSmall` when a line cannot fit in any part."""
    return plan_split(text, limit, lang, root).cut(text)


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
