"""detect-secrets' keyword plugin as whole-text rules: where its keywords begin, and the
keyword regexes' matches on the lines holding one (see :mod:`agentprompt.repo.secrets._filter`
for why whole-text matching never misses what its per-line matching finds).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from agentprompt.repo.secrets._regexneeds import line_around, lines_matching, whole_text

__all__ = ["Keyword", "keyword_rule", "keyword_spans"]


@dataclass(frozen=True)
class Keyword:
    """The keyword plugin: its keywords as plain lowercase words (for lowercased text), the
    same as one case-insensitive regex (for any text), and its regexes, split into those
    that begin with a keyword (tried only where one begins) and the others."""

    words: tuple[str, ...]
    cores: tuple[tuple[str, tuple[tuple[str, int], ...]], ...]
    """A few short words, each with the keywords that hold it and where: every keyword
    holds one, so finding the cores finds the keywords (empty: find each keyword)."""
    gate: re.Pattern[str]
    anchored: tuple[re.Pattern[str], ...]
    free: tuple[re.Pattern[str], ...]


_WORD = re.compile(r"[a-zñ]+(?:_\?[a-zñ]+)?")


def keyword_rule() -> Keyword:
    """The rules of the installed detect-secrets' keyword plugin, ready for whole texts."""
    from detect_secrets.plugins import keyword

    tables = [keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP, *keyword.REGEX_BY_FILETYPE.values()]
    regexes = {regex.pattern: whole_text(regex) for table in tables for regex in table}
    lead = keyword.DENYLIST_REGEX
    anchored = tuple(r for r in regexes.values() if r.pattern.startswith(lead))
    free = tuple(r for r in regexes.values() if not r.pattern.startswith(lead))
    words: list[str] = []
    for entry in keyword.DENYLIST:
        if not _WORD.fullmatch(entry):  # not a plain word: search by regex only
            words = []
            break
        words.extend({entry.replace("_?", "_"), entry.replace("_?", "")})
    gate = re.compile(f"(?=(?:{'|'.join(keyword.DENYLIST)}))", re.IGNORECASE)
    return Keyword(words=tuple(words), cores=_cores(words), gate=gate, anchored=anchored, free=free)


# Short words the keywords are made of; fewer text passes than one per keyword.
_CORES = ("key", "pass", "pwd", "secret", "contrase")


def _cores(words: list[str]) -> tuple[tuple[str, tuple[tuple[str, int], ...]], ...]:
    """Each core with the keywords holding it (a keyword goes to its first core) and the
    offset of the core in each; empty when some keyword holds no core."""
    holders: dict[str, list[tuple[str, int]]] = {core: [] for core in _CORES}
    for word in dict.fromkeys(words):
        core = next((core for core in _CORES if core in word), None)
        if core is None:
            return ()
        holders[core].append((word, word.index(core)))
    return tuple((core, tuple(held)) for core, held in holders.items() if held)


def _keyword_starts(rule: Keyword, text: str, lowered: str | None) -> Iterator[int]:
    """Every place a keyword begins (case-insensitively), overlapping ones included. A
    keyword at ``s`` holding its core at offset ``o`` puts the core at ``s + o``, so
    checking every core hit for the keywords that hold it finds every keyword."""
    if rule.cores and lowered is not None:
        for core, held in rule.cores:
            at = lowered.find(core)
            while at >= 0:
                for word, offset in held:
                    if at >= offset and lowered.startswith(word, at - offset):
                        yield at - offset
                at = lowered.find(core, at + 1)
    elif rule.words and lowered is not None:
        for word in rule.words:
            at = lowered.find(word)
            while at >= 0:
                yield at
                at = lowered.find(word, at + 1)
    else:
        for found in rule.gate.finditer(text):
            yield found.start()


def keyword_spans(
    rule: Keyword, text: str, lowered: str | None, starts: Iterable[int] | None = None
) -> Iterator[tuple[int, int]]:
    """The keyword regexes' matches within the lines holding a keyword start: a match
    at each start of those that must begin with a keyword, and any match of the others,
    each of which ends in a keyword (so a line it matches within holds a keyword start).
    Each is searched no further than the line's stop, as detect-secrets reads the line.
    ``starts``: every place a keyword begins, when the caller found them already."""
    lines: list[tuple[int, int]] = []
    end = stop = -1
    places = set(_keyword_starts(rule, text, lowered) if starts is None else starts)
    for at in sorted(places):
        if at > end:
            begin, stop, end = line_around(text, at)
            lines.append((begin, stop))
        for regex in rule.anchored:
            found = regex.match(text, at, stop)
            if found is not None:
                yield found.span()
    for regex in rule.free:
        yield from lines_matching(regex, text, lines)
