"""The plain words a regular expression cannot match without, for a quick gate before it.

Python's ``re`` tries a pattern at every position of the text; a case-insensitive pattern
is slow that way over megabytes. Most of detect-secrets' patterns contain fixed words
(``AccountKey=``, ``xox``, one of ``key|pwd|pass|token``), and a text that lacks every
alternative of such a word cannot match. ``str`` search for a few words is much faster.

:func:`required_words` reads the pattern's parse tree (``re._parser``, the parser ``re``
itself compiles from) and returns a conjunction of alternatives: every match of the
pattern contains, for each set, at least one of its words (compared in lower case, so a
case-insensitive pattern is covered too). Anything it does not understand adds no
requirement, so the gate is never stricter than the pattern.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "Words",
    "lacks_required",
    "line_around",
    "lines_matching",
    "matching_lines",
    "required_words",
    "selective",
    "whole_text",
]

_parser: Any = importlib.import_module("re._parser")

Words = frozenset[str]


def required_words(pattern: re.Pattern[str]) -> tuple[Words, ...]:
    """Sets of lowercase words such that every match contains a word of each set (ASCII
    words only; an empty tuple when nothing is certain)."""
    try:
        parsed = _parser.parse(pattern.pattern, pattern.flags)
    except (re.error, TypeError, ValueError):  # pragma: no cover - compiled patterns parse
        return ()
    return tuple(_sequence(parsed))


def lacks_required(needs: Iterable[Words], lowered: str) -> bool:
    """Whether the lowercased ASCII text misses every word of one of the sets (so the
    pattern cannot match it)."""
    return any(not any(word in lowered for word in words) for words in needs)


def _sequence(items: Iterable[tuple[Any, Any]]) -> list[Words]:
    """Requirements of items matched one after another (adjacent literals form one word)."""
    needs: list[Words] = []
    word = ""
    for op, value in items:
        if op is _parser.LITERAL and 0x20 <= value < 0x7F:
            word += chr(value).lower()
            continue
        if word:
            needs.append(frozenset([word]))
            word = ""
        needs.extend(_item(op, value))
    if word:
        needs.append(frozenset([word]))
    return needs


def _item(op: Any, value: Any) -> list[Words]:
    if op is _parser.SUBPATTERN:
        return _sequence(value[-1])
    if op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT):
        least, _most, inner = value
        return _sequence(inner) if least >= 1 else []
    if op is _parser.BRANCH:
        choices = [_best(_sequence(alternative)) for alternative in value[1]]
        if any(choice is None for choice in choices):
            return []
        return [frozenset().union(*(c for c in choices if c is not None))]
    return []  # classes, anchors, lookarounds, back references: no certain word


def _best(needs: list[Words]) -> Words | None:
    """The most selective single requirement: the one whose shortest word is longest."""
    if not needs:
        return None
    return max(needs, key=lambda words: (min(len(w) for w in words), -len(words)))


def matching_lines(
    regex: re.Pattern[str], needs: tuple[Words, ...], text: str, lowered: str
) -> Iterator[tuple[int, int]]:
    """The ``(start, stop)`` offsets in ``text`` of each line ``regex`` matches within
    (its trailing whitespace stripped, as detect-secrets reads lines), in order, trying
    only lines that hold a word of the most selective of ``needs`` (``lowered`` is
    ``text`` in lower case, same length). A generator, so a caller asking only whether
    any line matches stops at the first."""
    words = _best(list(needs))
    if words is None:
        raise ValueError("matching_lines needs at least one required word")
    lines: set[tuple[int, int]] = set()
    for word in words:
        at = lowered.find(word)
        while at >= 0:
            start, stop, end = line_around(text, at)
            lines.add((start, stop))
            at = lowered.find(word, end)
    yield from lines_matching(regex, text, sorted(lines))


def lines_matching(
    regex: re.Pattern[str], text: str, lines: Iterable[tuple[int, int]]
) -> Iterator[tuple[int, int]]:
    """The lines (``(start, stop)`` offsets) that ``regex`` matches within, as
    detect-secrets matches a line: the search sees no further than the line's stop."""
    for start, stop in lines:
        if regex.search(text, start, stop) is not None:
            yield start, stop


def whole_text(regex: re.Pattern[str]) -> re.Pattern[str]:
    """``regex`` with ``^`` and ``$`` matching at every line, for matching a whole text
    where detect-secrets matches line by line."""
    return re.compile(regex.pattern, regex.flags | re.MULTILINE)


def line_around(text: str, at: int) -> tuple[int, int, int]:
    """The line of ``text`` holding offset ``at``, as detect-secrets reads lines: where it
    starts, where it stops (before its trailing whitespace) and where it ends (its line
    break, or the end of the text)."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    return start, start + len(text[start:end].rstrip()), end


def selective(needs: tuple[Words, ...], shortest: int = 3) -> bool:
    """Whether the most selective requirement's words are all at least ``shortest`` long
    (worth a line-by-line search rather than one pass over the text)."""
    words = _best(list(needs))
    return words is not None and min(len(w) for w in words) >= shortest
