"""Exact token counts of large prompts without counting unchanged text again.

OpenAI's BPE encodings first cut a text into pieces with a pre-tokenizer regex and merge
only within a piece, so the count of a text is the sum of its parts' counts when every cut
falls on a piece boundary. In ``o200k_base`` and ``cl100k_base`` no piece runs from a line
break into a following character that is neither whitespace nor ``/``: the pieces that
may contain ``\\n`` are whitespace runs, and punctuation runs that go on only with more
``\\r``, ``\\n`` or ``/``; letter and number pieces never contain a line break. So a text
cut right after ``\\n`` and before a printable ASCII character other than ``/`` counts
exactly as the sum of its parts (a property test checks this against the real tokenizer).

A bridge prompt is cut before each Markdown heading (``## path`` per file), each part is
counted once, in worker processes when much text is new, and its count is remembered by
the part's digest in the cache database the secret verdicts use (``counts`` table).
"""

from __future__ import annotations

import hashlib
import itertools
import multiprocessing
import os
import re
import sqlite3
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from agentprompt.bridge.secretcache import open_cache
from agentprompt.tokens import EXACT_ENCODINGS, Tokenizer, get_tokenizer

__all__ = ["CachedCounter", "KeyedSpan", "is_piece_boundary", "split_for_count"]

_SCHEMA = "CREATE TABLE IF NOT EXISTS counts (key TEXT PRIMARY KEY, tokens INTEGER NOT NULL)"
_HEADING = re.compile(r"\n(?=#{1,6} )")
# The same in UTF-8, where "\n" and "#" bytes are those characters only; a cut between
# them is always a piece boundary.
_HEADING_BYTES = re.compile(rb"\n(?=#{1,6} )")
_PARALLEL_CHARS = 4_000_000
"""Less new text than this is counted in-process (starting workers would cost more)."""
_CHUNK_CHARS = 2_000_000


def is_piece_boundary(text: str, at: int) -> bool:
    """Whether cutting ``text`` at ``at`` cannot split a pre-tokenizer piece: right after a
    line break and before a printable ASCII character other than ``/`` (or at either end)."""
    if at <= 0 or at >= len(text):
        return True
    after = text[at]
    return text[at - 1] == "\n" and "!" <= after <= "~" and after != "/"


def split_for_count(text: str) -> list[str]:
    """``text`` cut before every Markdown heading that starts a line, at piece boundaries
    only; joining the parts gives ``text`` back."""
    cuts = [m.end() for m in _HEADING.finditer(text) if is_piece_boundary(text, m.end())]
    edges = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(edges) if b > a]


KeyedSpan = tuple[int, int, str]
"""``(start, end, key)``: ``text[start:end]`` is identified by ``key`` (equal keys, equal
texts), so its remembered count can be used without reading it."""


def _count_chunk(job: tuple[str, list[str]]) -> list[int]:
    """Count parts in a worker."""
    encoding, parts = job
    counter = get_tokenizer(encoding)
    return [counter.count(part) for part in parts]


class CachedCounter:
    """A :class:`~agentprompt.tokens.Tokenizer` whose counts are exact sums of remembered
    part counts (see the module's docstring); without ``where`` it only splits and sums."""

    def __init__(self, base: Tokenizer, where: Path | None, *, workers: int | None = None):
        self._base = base
        self._where = where
        self._workers = workers if workers is not None else (os.cpu_count() or 1)

    @property
    def name(self) -> str:
        """The base encoding's name."""
        return self._base.name

    @property
    def exact(self) -> bool:
        """As exact as the base tokenizer."""
        return self._base.exact

    def count(self, text: str, known: Sequence[KeyedSpan] = ()) -> int:
        """The exact token count of ``text``. ``known``: spans of ``text`` whose content is
        already identified by a key (see :data:`KeyedSpan`), so their text is neither cut
        nor digested; a span that does not start and end on piece boundaries is ignored."""
        keys: list[str] = []
        pending: dict[str, str | tuple[int, int]] = {}
        at = 0
        for start, end, ident in sorted(known):
            if start < at or not (is_piece_boundary(text, start) and is_piece_boundary(text, end)):
                continue
            self._cut(text, at, start, keys, pending)
            key = f"{self._base.name}\0span\0{ident}"
            keys.append(key)
            pending.setdefault(key, (start, end))
            at = end
        self._cut(text, at, len(text), keys, pending)
        if len(keys) == 1 and not known:
            return self._base.count(text)  # nothing to cut: no use remembering it
        remembered = self._recall(set(keys))
        todo = {k: v for k, v in pending.items() if k not in remembered}
        parts = [v if isinstance(v, str) else text[v[0] : v[1]] for v in todo.values()]
        learned = dict(zip(todo, self._count_all(parts), strict=True))
        self._remember(learned)
        remembered.update(learned)
        return sum(remembered[k] for k in keys)

    def _cut(
        self,
        text: str,
        start: int,
        end: int,
        keys: list[str],
        pending: dict[str, str | tuple[int, int]],
    ) -> None:
        """Cut ``text[start:end]`` before each heading, and add each part's key (by digest)
        to ``keys`` and its text to ``pending``."""
        if end <= start:
            return
        # Cut and digest the UTF-8 bytes: a compact copy, and no copy of the parts (a
        # text of a few hundred megabytes is stored four bytes a character in Python).
        whole = text if (start, end) == (0, len(text)) else text[start:end]
        data = whole.encode("utf-8", "surrogatepass")
        cuts = [m.end() for m in _HEADING_BYTES.finditer(data)]
        view = memoryview(data)
        for a, b in itertools.pairwise([0, *cuts, len(data)]):
            if b > a:
                piece = view[a:b]
                key = f"{self._base.name}\0{hashlib.blake2b(piece, digest_size=20).hexdigest()}"
                keys.append(key)
                if key not in pending:
                    pending[key] = str(piece, "utf-8", "surrogatepass")

    def _count_all(self, parts: Sequence[str]) -> list[int]:
        size = sum(len(p) for p in parts)
        if self._workers <= 1 or size < _PARALLEL_CHARS or not _is_bpe(self._base):
            return [self._base.count(p) for p in parts]
        chunks: list[list[str]] = [[]]
        filled = 0
        for part in parts:
            if filled >= _CHUNK_CHARS:
                chunks.append([])
                filled = 0
            chunks[-1].append(part)
            filled += len(part)
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        counts: list[int] = []
        with ProcessPoolExecutor(
            max_workers=self._workers, mp_context=multiprocessing.get_context(method)
        ) as pool:
            for done in pool.map(_count_chunk, [(self._base.name, c) for c in chunks]):
                counts.extend(done)
        return counts

    def _recall(self, keys: set[str]) -> dict[str, int]:
        if self._where is None:
            return {}
        db = open_cache(self._where, _SCHEMA)
        if db is None:
            return {}
        wanted = list(keys)
        known: dict[str, int] = {}
        try:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                rows = db.execute(f"SELECT key, tokens FROM counts WHERE key IN ({marks})", chunk)
                known.update((str(k), int(n)) for k, n in rows.fetchall())
        except sqlite3.Error:
            return {}
        finally:
            db.close()
        return known

    def _remember(self, learned: dict[str, int]) -> None:
        if self._where is None or not learned:
            return
        db = open_cache(self._where, _SCHEMA)
        if db is None:
            return
        try:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO counts (key, tokens) VALUES (?, ?)", learned.items()
                )
        except sqlite3.Error:
            pass
        finally:
            db.close()


def _is_bpe(counter: Tokenizer) -> bool:
    """Whether workers can count with the same tables (rebuilt there from the name)."""
    return counter.exact and counter.name in EXACT_ENCODINGS
