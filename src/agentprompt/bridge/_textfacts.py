"""What the bridge must know of each file's text, remembered while the file is unchanged.

Packing a large repository again reads every file, and then used to look at all of the
text twice more: a BLAKE2 digest of each file for its remembered secret verdict and token
count, and a search for backtick and tilde runs for a fence that the content cannot close.
These, with the text's length and whether it ends a line (all a prompt's frame around the
text needs, so a whole repository's prompt can be written without holding every text),
depend on the text only, so they are kept per path in the project's cache database
(``texts`` table, :mod:`agentprompt.store.cachedb`) with the file's stamp: size, modification
time, change time and inode, as discovery's verdict memo keeps them
(:mod:`agentprompt.repo.discovery._sniff_memo`).

A remembered row is trusted only when the text read is known to be the one its stamp
describes: discovery's stamp (taken before reading) equals the stamp taken right after
reading (:func:`agentprompt.repo.discovery.read_texts`), so the file did not change in
between. A file modified within two seconds before the row would be written is not
remembered ("racily clean", as git calls it: a second write in the same clock tick could
leave the stamp unchanged), so its text is looked at again next time.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agentprompt.bridge._render import fence_for
from agentprompt.bridge._secretcache import text_digest
from agentprompt.repo.discovery import SniffStamp
from agentprompt.store.cachedb import open_cache, rows_in

__all__ = ["TextFacts", "recall_facts", "text_facts"]

_RACY_NS = 2_000_000_000
"""A file changed this recently is not remembered (see the module's docstring)."""


@dataclass(frozen=True)
class TextFacts:
    """What the bridge needs of one file's text besides the text itself."""

    digest: str
    """:func:`~agentprompt.bridge._secretcache.text_digest` of the text."""
    fence: str
    """:func:`~agentprompt.bridge._render.fence_for` of the text."""
    chars: int
    """The text's length in characters."""
    ends_line: bool
    """The text is empty or ends with a line break (its closing fence needs none before
    it)."""


def _facts(text: str) -> TextFacts:
    return TextFacts(
        digest=text_digest(text),
        fence=fence_for(text),
        chars=len(text),
        ends_line=not text or text.endswith("\n"),
    )


def _stamp_key(stamp: SniffStamp) -> str:
    return ":".join(map(str, stamp))


def text_facts(
    texts: Mapping[str, str],
    before: Mapping[str, SniffStamp],
    after: Mapping[str, SniffStamp],
    where: Path | None,
) -> dict[str, TextFacts]:
    """The facts of every text in ``texts`` (by path): remembered ones from the database at
    ``where`` where ``before`` and ``after`` (the file's stamps before and after reading)
    agree with the remembered stamp, the rest worked out (and remembered when steady)."""
    steady = {
        path: _stamp_key(stamp)
        for path, stamp in after.items()
        if path in texts and before.get(path) == stamp
    }
    db = open_cache(where) if where is not None and steady else None
    if db is None:
        return {path: _facts(text) for path, text in texts.items()}
    try:
        known = _recall(db, steady)
        found: dict[str, TextFacts] = {}
        fresh: list[tuple[str, str, str, int, int, bool]] = []
        now = time.time_ns()
        for path, text in texts.items():
            hit = known.get(path)
            if hit is not None:
                found[path] = hit
                continue
            found[path] = facts = _facts(text)
            stamp = after.get(path)
            if path in steady and stamp is not None and now - max(stamp[1], stamp[2]) > _RACY_NS:
                fresh.append(
                    (
                        path,
                        steady[path],
                        facts.digest,
                        len(facts.fence),
                        facts.chars,
                        facts.ends_line,
                    )
                )
        if fresh:
            with db:
                db.executemany(
                    "INSERT OR REPLACE INTO texts (path, stamp, digest, fence, chars, "
                    "ends_line) VALUES (?, ?, ?, ?, ?, ?)",
                    fresh,
                )
        return found
    except sqlite3.Error:
        return {path: _facts(text) for path, text in texts.items()}
    finally:
        db.close()


def recall_facts(stamps: Mapping[str, SniffStamp], where: Path) -> dict[str, TextFacts]:
    """The facts remembered at ``where`` of the files whose stamp (discovery's, taken
    before any reading) is the remembered one, without reading them: a text read later
    with that same stamp after reading is the text they describe."""
    db = open_cache(where) if stamps else None
    if db is None:
        return {}
    try:
        return _recall(db, {path: _stamp_key(stamp) for path, stamp in stamps.items()})
    except sqlite3.Error:
        return {}
    finally:
        db.close()


def _recall(db: sqlite3.Connection, steady: Mapping[str, str]) -> dict[str, TextFacts]:
    """The remembered facts of the paths in ``steady`` whose stamp still matches."""
    found: dict[str, TextFacts] = {}
    wanted = list(steady)
    query = "SELECT path, stamp, digest, fence, chars, ends_line FROM texts WHERE path IN ({marks})"
    for path, stamp, digest, fence, chars, ends_line in rows_in(db, query, wanted):
        if steady.get(path) == stamp and isinstance(fence, int) and fence >= 3:
            found[path] = TextFacts(
                digest=str(digest), fence="`" * fence, chars=int(chars), ends_line=bool(ends_line)
            )
    return found
