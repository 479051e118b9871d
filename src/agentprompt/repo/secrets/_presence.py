"""Which of the secret rules' words and gates a text holds, found in one pass over it.

The rules' pass (:mod:`agentprompt.repo.secrets._filter`) asks of each text, rule after
rule, whether it holds a word the rule needs (``word in lowered``), a hit of the rule's
gate (:mod:`agentprompt.repo.secrets._gates`) or of a high-entropy plugin's quoted-string
gate, and a keyword's core: some thirty passes over every text, most of them finding
nothing. Hyperscan, a multi-pattern matcher, answers all of them in one pass over the
lowercased text and one over the text itself; it also lists where the keyword plugin's
keywords begin (:meth:`PresenceIndex.starts`), which the rules otherwise find core word by
core word.

The words are ASCII, and UTF-8 never puts an ASCII byte inside another character's bytes,
so a word is in a text's UTF-8 bytes exactly when it is in the ``str``: words are looked
for in every text. Patterns and keyword places only in ASCII texts (nearly every source
file): there each character is one byte, so a pattern matches the bytes exactly where it
matches the ``str`` (Python's ``\\d`` or ``\\w`` match only ASCII characters in an
ASCII text, as in Hyperscan's reading) and byte offsets are character offsets. For the
others, and on a machine without the ``hyperscan`` package, the rules ask ``re`` and
``str`` as before. Patterns are compiled as written for ``re`` (literals, character classes, bounded
repeats and groups, which both read alike); one Hyperscan cannot compile leaves the whole
index unused rather than half right.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Held", "PresenceIndex", "presence_index"]


@dataclass(frozen=True, kw_only=True)
class Held:
    """What one text holds of the index's words and patterns."""

    words: frozenset[str]
    """The words found in the lowercased text."""
    patterns: frozenset[str] | None
    """The source of each pattern with a match (in the lowercased text for the lowered
    patterns, in the text itself for the others); None for a text that is not ASCII (not
    asked)."""


@dataclass(frozen=True, kw_only=True)
class PresenceIndex:
    """Compiled words and patterns, asked of one text at a time (see :meth:`held`)."""

    words: Any
    """The Hyperscan database of the words alone (for texts that are not ASCII)."""
    lowered: Any
    """The one searched in a lowercased ASCII text (words, lowered patterns)."""
    raw: Any
    """The one searched in an ASCII text itself (None when there is no raw pattern)."""
    names: tuple[tuple[str, str], ...]
    """Each pattern id's kind (``word`` or ``pattern``) and what it stands for."""
    located: Any
    """The keywords whose starts are listed, each reported at every place it ends
    (None when there are none)."""
    lengths: tuple[int, ...]
    """Each located keyword's length, by its id."""
    busy: threading.Lock = field(default_factory=threading.Lock, compare=False)
    """Held during a scan: a database has one scratch space, which two threads cannot share."""

    def held(self, text: str, lowered: str) -> Held:
        """What ``text`` holds of the words and patterns (``lowered`` is it in lower case,
        with every character where it was)."""
        found: set[int] = set()

        def hit(pattern: int, _start: int, _end: int, _flags: int, _context: object) -> None:
            found.add(pattern)

        if not text.isascii():
            with self.busy:
                self.words.scan(lowered.encode("utf-8", "surrogatepass"), match_event_handler=hit)
            return Held(words=frozenset(self.names[i][1] for i in found), patterns=None)
        with self.busy:
            self.lowered.scan(lowered.encode("ascii"), match_event_handler=hit)
            if self.raw is not None:
                self.raw.scan(text.encode("ascii"), match_event_handler=hit)
        words = frozenset(self.names[i][1] for i in found if self.names[i][0] == "word")
        patterns = frozenset(self.names[i][1] for i in found if self.names[i][0] == "pattern")
        return Held(words=words, patterns=patterns)

    def starts(self, text: str, lowered: str) -> set[int] | None:
        """Every offset in ``lowered`` at which a located keyword begins, overlapping ones
        included; None when ``text`` is not ASCII or no keyword is located."""
        if self.located is None or not text.isascii():
            return None
        found: set[int] = set()
        lengths = self.lengths

        def hit(keyword: int, _start: int, end: int, _flags: int, _context: object) -> None:
            found.add(end - lengths[keyword])

        with self.busy:
            self.located.scan(lowered.encode("ascii"), match_event_handler=hit)
        return found


def _literal(word: str) -> bytes:
    """``word`` as a Hyperscan pattern matching exactly it (every byte escaped)."""
    return "".join(f"\\x{ord(c):02x}" for c in word).encode("ascii")


def _database(expressions: list[bytes], ids: list[int], *, every: bool = False) -> Any:
    import hyperscan

    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    # Without ``every``, one report per pattern and scan: only whether it is there.
    flags = 0 if every else hyperscan.HS_FLAG_SINGLEMATCH
    database.compile(
        expressions=expressions, ids=ids, elements=len(expressions), flags=[flags] * len(ids)
    )
    return database


def presence_index(
    words: Iterable[str],
    lowered_patterns: Iterable[re.Pattern[str]],
    raw_patterns: Iterable[re.Pattern[str]],
    keywords: Iterable[str] = (),
) -> PresenceIndex | None:
    """An index of ASCII ``words`` and ``lowered_patterns`` (both searched in the
    lowercased text), ``raw_patterns`` (searched in the text itself), and of where
    ``keywords`` begin in a lowercased ASCII text; None without the ``hyperscan`` package,
    or when it cannot compile them all."""
    try:
        import hyperscan
    except ImportError:
        return None
    # Keyword places are listed only in ASCII texts, where no other keyword can begin.
    located = [word for word in dict.fromkeys(keywords) if word and word.isascii()]
    names: list[tuple[str, str]] = []
    low: list[bytes] = []
    for word in dict.fromkeys(words):
        if not word or not word.isascii():
            return None
        names.append(("word", word))
        low.append(_literal(word))
    for source in dict.fromkeys(p.pattern for p in lowered_patterns):
        names.append(("pattern", source))
        low.append(source.encode("ascii"))
    raw_sources = list(dict.fromkeys(p.pattern for p in raw_patterns))
    raw_ids = list(range(len(names), len(names) + len(raw_sources)))
    names.extend(("pattern", source) for source in raw_sources)
    count = sum(1 for kind, _ in names if kind == "word")
    if not count:
        return None
    try:
        return PresenceIndex(
            words=_database(low[:count], list(range(count))),
            lowered=_database(low, list(range(len(low)))),
            raw=_database([s.encode("ascii") for s in raw_sources], raw_ids)
            if raw_sources
            else None,
            names=tuple(names),
            located=_database([_literal(w) for w in located], list(range(len(located))), every=True)
            if located
            else None,
            lengths=tuple(len(w) for w in located),
        )
    except (hyperscan.error, UnicodeEncodeError):
        return None
