"""The bridge's notes and summaries of a whole repository, remembered file by file.

Packing a large repository needs every code file's tree note (``exports: ...``) and its
browse-mode summary. Both are computed from the full symbols in the symbol cache, and
decoding those for ten thousand files costs more than everything else a warm pack does.
They depend only on each file's content, so the finished notes and summaries are kept, with
each file's content hash, as one blob in the symbol cache: a later view decodes the symbols
of the changed files only, and the blob is rewritten when anything changed. The blob's key
names the code that makes notes and summaries, so another version never reads it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
from collections.abc import Callable, Iterable
from pathlib import Path

import agentprompt
from agentprompt.repo.extraction import Extraction
from agentprompt.repo.map import render as symbolmap
from agentprompt.repo.symbols import entries, extract

__all__ = ["Computer", "NotesAndSummaries", "remembered_view"]

NotesAndSummaries = tuple[dict[str, str], dict[str, str]]
"""Notes by path, and summaries by path."""


@functools.cache
def _code_stamp() -> str:
    """A digest of the code that makes notes and summaries, so a changed agentprompt never
    reads a view an older one remembered."""
    digest = hashlib.blake2b(agentprompt.__version__.encode(), digest_size=12)
    for module in (symbolmap, extract, entries):
        with contextlib.suppress(OSError):  # without sources, the version alone stamps it
            digest.update(Path(module.__file__ or "").read_bytes())
    return digest.hexdigest()


Computer = Callable[[Iterable[str]], NotesAndSummaries]
"""Computes the notes and summaries of the given paths (from their symbols)."""

_Entries = dict[str, list[str | None]]
"""By path: the content hash, the note (or None) and the summary (or None)."""


def _load(blob: bytes | None) -> _Entries:
    if blob is None:
        return {}
    try:
        entries = json.loads(blob)
    except (ValueError, TypeError):
        return {}  # a damaged blob: everything is computed again and the blob replaced
    if not isinstance(entries, dict):
        return {}
    return {
        path: entry
        for path, entry in entries.items()
        if isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)
    }


def remembered_view(extraction: Extraction, compute: Computer) -> NotesAndSummaries:
    """The notes and summaries of ``extraction``'s files: remembered ones for files whose
    content hash is unchanged, ``compute``'d (and remembered) for the others."""
    cache = extraction.cache
    if cache is None:
        return compute(extraction.files)
    key = f"bridge-view/{_code_stamp()}"
    entries = _load(cache.blob(key))
    notes: dict[str, str] = {}
    summaries: dict[str, str] = {}
    todo: list[str] = []
    for path, row in extraction.files.items():
        entry = entries.get(path)
        if path in extraction.memory or entry is None or entry[0] != row.hash:
            todo.append(path)
            continue
        note, summary = entry[1], entry[2]
        if isinstance(note, str):
            notes[path] = note
        if isinstance(summary, str):
            summaries[path] = summary
    if todo:
        fresh_notes, fresh_summaries = compute(todo)
        notes.update(fresh_notes)
        summaries.update(fresh_summaries)
    if todo or len(entries) != len(extraction.files):
        kept = {
            path: [row.hash, notes.get(path), summaries.get(path)]
            for path, row in extraction.files.items()
            if path not in extraction.memory
        }
        cache.remember_blob(key, json.dumps(kept, ensure_ascii=False).encode())
    return notes, summaries
