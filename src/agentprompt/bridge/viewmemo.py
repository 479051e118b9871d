"""The bridge's notes and summaries of a whole repository, remembered while nothing changed.

Packing a large repository needs every code file's seed 003 note (``exports: ...``) and its
browse-mode summary. Both are computed from the full symbols in the symbol cache, and
decoding those for ten thousand files costs more than everything else a warm pack does.
They depend only on the files' contents, so the finished notes and summaries are kept as
one blob in the symbol cache, under a key made of every code file's path and content hash:
any change to any file gives another key, and the view is computed again.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import agentprompt
from agentprompt.repo import symbolmap, symbols
from agentprompt.repo.extraction import Extraction

__all__ = ["NotesAndSummaries", "remembered_view"]

NotesAndSummaries = tuple[dict[str, str], dict[str, str]]
"""Notes by path, and summaries by path."""


@functools.cache
def _code_stamp() -> str:
    """A digest of the code that makes notes and summaries, so a changed agentprompt never
    reads a view an older one remembered."""
    digest = hashlib.blake2b(agentprompt.__version__.encode(), digest_size=12)
    for module in (symbolmap, symbols):
        with contextlib.suppress(OSError):  # without sources, the version alone stamps it
            digest.update(Path(module.__file__ or "").read_bytes())
    return digest.hexdigest()


def _key(extraction: Extraction) -> str | None:
    """The blob key for this extraction's files, or None when some results live only in
    memory (files the cache cannot hold), which the key could not vouch for."""
    if extraction.cache is None or extraction.memory:
        return None
    digest = hashlib.blake2b(digest_size=20)
    for path in sorted(extraction.files):
        row = extraction.files[path]
        digest.update(f"{path}\0{row.hash}\0{row.language or ''}\n".encode("utf-8", "replace"))
    return f"bridge-view/{_code_stamp()}/{digest.hexdigest()}"


def remembered_view(
    extraction: Extraction, compute: Callable[[], NotesAndSummaries]
) -> NotesAndSummaries:
    """The notes and summaries of ``extraction``'s files: from the cache when it holds them
    for exactly these contents, else ``compute()``'d and remembered."""
    key = _key(extraction)
    cache = extraction.cache
    if key is None or cache is None:
        return compute()
    blob = cache.blob(key)
    if blob is not None:
        try:
            notes, summaries = json.loads(blob)
            if isinstance(notes, dict) and isinstance(summaries, dict):
                return notes, summaries
        except (ValueError, TypeError):
            pass  # a damaged blob: computed again and replaced below
    notes, summaries = compute()
    cache.remember_blob(key, json.dumps([notes, summaries], ensure_ascii=False).encode())
    return notes, summaries
