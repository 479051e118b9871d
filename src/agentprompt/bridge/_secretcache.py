"""Remembered secret scans: a text scanned once is not scanned again while it is unchanged.

detect-secrets reads every line with every plugin, which makes it by far the slowest part
of packing a large repository. Its findings depend only on the file's name, its text and
detect-secrets' version, so they are kept keyed by those (the text by its BLAKE2 digest) in
the ``scans`` table of the project's cache database (:mod:`agentprompt.store.cachedb`). A
cache that cannot be opened is skipped: every text is then scanned, as without it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path

from agentprompt.repo.secrets import SecretFinding
from agentprompt.store.cachedb import open_cache, rows_in

__all__ = ["Scanner", "cached_scan", "text_digest"]

Scanner = Callable[[Sequence[tuple[str, str]]], dict[str, tuple[SecretFinding, ...]]]
"""Scans ``(path, text)`` pairs and returns the findings by path."""


def _version() -> str:
    from agentprompt.repo.secrets.stores import RULES_VERSION

    try:
        return f"{metadata.version('detect-secrets')}+{RULES_VERSION}"
    except metadata.PackageNotFoundError:
        return f"unknown+{RULES_VERSION}"


def text_digest(text: str) -> str:
    """The BLAKE2 digest (20 bytes, in hex) of ``text``'s UTF-8 form: what remembered scans
    and counts are keyed by."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=20).hexdigest()


def _key(version: str, path: str, digest: str) -> str:
    # detect-secrets reads the file type from the name, so the name is part of the key.
    return f"{version}\0{path.rpartition('/')[2]}\0{digest}"


def _findings(path: str, stored: str) -> tuple[SecretFinding, ...]:
    return tuple(
        SecretFinding(path=path, line=line, kind=kind) for line, kind in json.loads(stored)
    )


def cached_scan(
    items: Sequence[tuple[str, str]],
    scan: Scanner,
    where: Path,
    digests: Mapping[str, str] | None = None,
) -> dict[str, tuple[SecretFinding, ...]]:
    """The findings of every ``(path, text)``: remembered ones from the cache database at
    ``where``,
    the rest from ``scan`` (and then remembered). ``digests``: texts' :func:`text_digest`
    already known, by path (the others are worked out)."""
    db = open_cache(where)
    if db is None:
        return scan(items)
    version = _version()
    known_digests = digests or {}
    keys = {
        path: _key(version, path, known_digests.get(path) or text_digest(text))
        for path, text in items
    }
    found: dict[str, tuple[SecretFinding, ...]] = {}
    try:
        known: dict[str, str] = {}
        wanted = list(set(keys.values()))
        known.update(rows_in(db, "SELECT key, findings FROM scans WHERE key IN ({marks})", wanted))
        todo = []
        for path, text in items:
            hit = known.get(keys[path])
            if hit is None:
                todo.append((path, text))
            else:
                found[path] = () if hit == "[]" else _findings(path, hit)
        fresh = scan(todo) if todo else {}
        found.update(fresh)
        with db:
            db.executemany(
                "INSERT OR REPLACE INTO scans (key, findings) VALUES (?, ?)",
                [
                    (keys[p], json.dumps([[f.line, f.kind] for f in hits]) if hits else "[]")
                    for p, hits in fresh.items()
                ],
            )
    except sqlite3.Error:
        missing = [(p, t) for p, t in items if p not in found]
        found.update(scan(missing) if missing else {})
    finally:
        db.close()
    return found
