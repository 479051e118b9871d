"""The rows of the symbol cache: what one file's extraction result is stored as.

A row keeps the names a file defines and uses as plain text columns (what ranking reads
for every file) apart from the full symbols as compact JSON (decoded only for the files a
map shows).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from agentprompt.repo.symbols import FileSymbols, ImportEntry, SymbolEntry

__all__ = ["CacheRow", "CachedFile", "content_hash", "from_json", "row_for", "to_json"]


def content_hash(data: bytes) -> str:
    """The hash a file's content is compared by."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


@dataclass(frozen=True, kw_only=True)
class CachedFile:
    """The light part of a cached row: what ranking needs."""

    path: str
    """The file's path."""
    size: int
    """Size in bytes when it was extracted."""
    mtime_ns: int
    """Modification time when it was extracted."""
    hash: str
    """Content hash when it was extracted."""
    language: str | None
    """The language it was read as."""
    defs_text: str
    """Names it defines at module level, space-separated."""
    members_text: str
    """Names it defines inside classes (methods, properties), space-separated."""
    names_hash: str
    """Hash of the names it defines and uses: equal hashes mean an equal reference graph."""
    detailed: bool = True
    """Whether the full symbols are stored too (see :attr:`FileSymbols.detailed`)."""

    @cached_property
    def defs(self) -> tuple[str, ...]:
        """Names it defines at module level."""
        return tuple(self.defs_text.split())

    @cached_property
    def members(self) -> tuple[str, ...]:
        """Names it defines inside classes (methods, properties)."""
        return tuple(self.members_text.split())


def to_json(entry: FileSymbols) -> str:
    """``entry`` as compact JSON text."""
    data = {
        "path": entry.path,
        "language": entry.language,
        "lines": entry.lines,
        "syntax_errors": entry.syntax_errors,
        "problem": entry.problem,
        # Tuples are written as JSON arrays as they are: no lists are built for them.
        "symbols": [
            (
                s.kind,
                s.name,
                s.line,
                s.end_line,
                s.signature,
                s.params,
                s.returns,
                s.parent,
                s.depth,
                s.bases,
                s.markers,
                s.calls,
            )
            for s in entry.symbols
        ],
        "imports": [(i.module, i.names, i.local, i.line) for i in entry.imports],
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def from_json(text: str, references: tuple[str, ...] = ()) -> FileSymbols:
    """The :class:`FileSymbols` that :func:`to_json` wrote (references are stored apart)."""
    data: dict[str, Any] = json.loads(text)
    return FileSymbols(
        path=data["path"],
        language=data["language"],
        lines=data["lines"],
        syntax_errors=data["syntax_errors"],
        problem=data["problem"],
        references=references,
        symbols=tuple(
            SymbolEntry(
                kind=s[0],
                name=s[1],
                line=s[2],
                end_line=s[3],
                signature=s[4],
                params=tuple(s[5]),
                returns=s[6],
                parent=s[7],
                depth=s[8],
                bases=tuple(s[9]),
                markers=tuple(s[10]),
                calls=tuple(s[11]),
            )
            for s in data["symbols"]
        ),
        imports=tuple(
            ImportEntry(module=i[0], names=tuple(i[1]), local=i[2], line=i[3])
            for i in data["imports"]
        ),
    )


@dataclass(frozen=True, kw_only=True)
class CacheRow:
    """One file's stored extraction result: its light part, references and full JSON."""

    light: CachedFile
    """What ranking needs (sizes, hashes, names defined)."""
    refs: str
    """The identifiers it uses, space-separated (empty once stored, to travel light)."""
    data: str
    """The full :class:`FileSymbols` as :func:`to_json` text (empty once stored, and for a
    file extracted without details)."""
    derived: Any = None
    """What the extraction's ``derive`` made of the symbols where they were extracted (None
    when it was not asked for), so the caller need not decode the JSON for it."""

    def values(self) -> tuple[Any, ...]:
        """The row's columns in the ``files`` table's order."""
        f = self.light
        return (
            f.path,
            f.size,
            f.mtime_ns,
            f.hash,
            f.language,
            f.defs_text,
            f.members_text,
            f.names_hash,
            int(f.detailed),
            self.refs,
            self.data,
        )


def row_for(entry: FileSymbols, size: int, mtime_ns: int, digest: str) -> CacheRow:
    """The database row that stores ``entry``."""
    top = " ".join(
        dict.fromkeys(s.name for s in entry.symbols if s.depth == 0 and _linkable(s.name))
    )
    inner = " ".join(
        dict.fromkeys(s.name for s in entry.symbols if s.depth > 0 and _linkable(s.name))
    )
    refs = " ".join(entry.references)
    names = content_hash(f"{top}\n{inner}\n{refs}".encode())
    light = CachedFile(
        path=entry.path,
        size=size,
        mtime_ns=mtime_ns,
        hash=digest,
        language=entry.language,
        defs_text=top,
        members_text=inner,
        names_hash=names,
        detailed=entry.detailed,
    )
    return CacheRow(light=light, refs=refs, data=to_json(entry) if entry.detailed else "")


def _linkable(name: str) -> bool:
    """Whether a defined name can link files: one word, and not a dunder like ``__all__``."""
    return " " not in name and not (name.startswith("__") and name.endswith("__"))
