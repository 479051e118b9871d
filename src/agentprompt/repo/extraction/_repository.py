"""Extraction of a whole repository through the cache, in parallel when there is much to do.

:func:`extract_repository` compares each discovered file with its cached row (size and
mtime first, content hash when those moved), parses only what changed (over every core in
chunks when there is much: :mod:`agentprompt.repo.extraction._workers`), and stores the results.
Files that cannot be read, are not UTF-8 or are binary are reported once each and
skipped.

A map ranks every file but shows a few, so it extracts without details
(``details=False``: names and references only, the costly half of the walk skipped);
:meth:`Extraction.symbols` extracts the files it is asked for again, with details, the
first time they are wanted, and stores them.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentprompt.repo.discovery import Discovery
from agentprompt.repo.extraction._cache import (
    CachedFile,
    SymbolCache,
    content_hash,
    default_cache_path,
    from_json,
    storable,
)
from agentprompt.repo.extraction._workers import (
    Deriver,
    HeadStart,
    ProgressCallback,
    Result,
    extract_chunk,
    parse_all,
    start_parsing,
)
from agentprompt.repo.symbols import FileSymbols, language_for_path

__all__ = ["Extraction", "HeadStart", "ProgressCallback", "extract_repository", "start_parsing"]

_NO_NAMES = content_hash(b"\n\n")
"""The names hash of a file that defines and uses nothing."""


@dataclass(frozen=True, kw_only=True)
class Extraction:
    """The cached extraction state of every code file in a repository."""

    root: Path
    """The repository root."""
    files: dict[str, CachedFile]
    """Light rows (names defined and used) of every code file that could be read, by path;
    files in a language without a grammar are here too, with no names (never read)."""
    cache: SymbolCache | None
    """Where full symbols can be loaded from (None when the cache was not used)."""
    parsed: int
    """How many files were parsed in this run."""
    problems: tuple[str, ...]
    """Files that were skipped, each with the reason (reported once)."""
    memory: dict[str, tuple[str, str]]
    """Results (JSON, references) of files parsed without a cache (or whose names cannot be
    cache keys), by path; the JSON is empty for a file extracted without details."""
    derived: dict[str, Any] = field(default_factory=dict)
    """What ``derive`` made of each file parsed in this run (see
    :func:`extract_repository`), by path."""
    previous: dict[str, tuple[str, str, str, str]] = field(default_factory=dict)
    """What the cache held before this run for files parsed again or gone: (names hash,
    defs, members, references) by path, so a remembered graph can be updated."""
    warnings: tuple[str, ...] = ()
    """What went wrong with the cache (rebuilt, unusable): the run went on without it."""
    workers: ProcessPoolExecutor | None = None
    """Parse workers still running (a head start's), which extract the files
    :meth:`symbols` wants details of in parallel."""
    coming: dict[str, Future[list[Result]]] = field(default_factory=dict)
    """Files handed to :attr:`workers` for their details (see :meth:`prefetch`)."""
    processes: int | None = None
    """How many processes a parse for details may use (None: every core), as the caller
    asked of the extraction."""

    def all_warnings(self) -> tuple[str, ...]:
        """:attr:`warnings`, and what went wrong with the cache since (storing the rows
        extracted for details, remembering a ranking), which the run went on without."""
        late = self.cache.warning if self.cache is not None else None
        return self.warnings if late is None or late in self.warnings else (*self.warnings, late)

    def references(self) -> dict[str, tuple[str, ...]]:
        """The identifiers every extracted file uses, by path."""
        found = self.cache.references() if self.cache is not None else {}
        for path, (_data, refs) in self.memory.items():
            found[path] = tuple(refs.split())
        return {p: found.get(p, ()) for p in self.files}

    def symbols(self, paths: Iterable[str]) -> dict[str, FileSymbols]:
        """The full extraction results of ``paths`` (those that could be read); files
        extracted without details are extracted again, with them, and stored."""
        wanted = [p for p in dict.fromkeys(paths) if p in self.files]
        found = self.cache.symbols(wanted) if self.cache is not None else {}
        for path in wanted:
            if path in self.memory:
                data, refs = self.memory[path]
                if data:
                    found[path] = from_json(data, tuple(refs.split()))
            elif self.files[path].language is None:
                found[path] = FileSymbols(path=path, language=None)
        missing = [p for p in wanted if p not in found]
        if missing:
            found.update(self._detailed(missing))
        return found

    def prefetch(self, paths: Iterable[str]) -> None:
        """Hand ``paths`` that have no details yet to the workers (when a head start left
        some), so that :meth:`symbols` finds them extracted: ranking names the files a map
        will show while the workers would otherwise be idle."""
        if self.workers is None:
            return
        todo = [
            p
            for p in dict.fromkeys(paths)
            if p in self.files
            and not self.files[p].detailed
            and self.files[p].language is not None
            and p not in self.coming
        ]
        if todo:
            try:
                # One task, so one worker: the other core stays with the ranking going on.
                coming = self.workers.submit(extract_chunk, str(self.root), todo, True)
            except BrokenExecutor:
                return  # a worker died: :meth:`symbols` parses what it wants itself
            self.coming.update(dict.fromkeys(todo, coming))

    def _processes(self) -> int:
        return self.processes if self.processes is not None else (os.cpu_count() or 1)

    def _detailed(self, paths: list[str]) -> dict[str, FileSymbols]:
        """``paths`` extracted again with details (kept in the cache or in memory)."""
        # Wanted now, while this process waits: two files a task, so every worker gets some.
        for start in range(0, len(paths), 2):
            self.prefetch(paths[start : start + 2])
        needed = {self.coming[p] for p in paths if p in self.coming}
        rows: list[Result] = []
        for coming in dict.fromkeys(self.coming.values()):
            if coming in needed or coming.done():  # a prefetched file done is kept, asked or not
                try:
                    rows.extend(coming.result())
                except BrokenExecutor:
                    continue  # lost with a worker that died: parsed below when asked for
        for path, _row, _problem in rows:
            self.coming.pop(path, None)
        done = {path for path, _row, _problem in rows}
        missing = [p for p in paths if p not in done]
        if missing:
            rows.extend(parse_all(self.root, missing, self._processes(), None, None, details=True))
        asked = set(paths)
        found: dict[str, FileSymbols] = {}
        for path, row, _problem in rows:
            if row is None:
                continue  # unreadable now: reported when it was first skipped
            if path in asked:
                found[path] = from_json(row.data, tuple(row.refs.split()))
            if self.cache is None or not storable(path):
                self.memory[path] = (row.data, row.refs)
        if self.cache is not None:
            self.cache.store(row for _, row, _ in rows if row is not None)
        return found


def extract_repository(
    discovery: Discovery,
    *,
    cache_path: Path | None = None,
    use_cache: bool = True,
    workers: int | None = None,
    progress: ProgressCallback | None = None,
    details: bool = True,
    head: HeadStart | None = None,
    derive: Deriver | None = None,
) -> Extraction:
    """Extraction results for every code file of ``discovery``, parsing only what changed.

    With ``details=False`` files are parsed for their names and references only, and a
    cached row without details is as good as one with them (see the module's docstring).
    ``head``: a parse :func:`start_parsing` began before ``discovery`` was made; its
    workers stay for :meth:`Extraction.symbols` until the caller closes it. ``derive``
    is called on each parsed file's symbols where they were extracted (see
    :data:`~agentprompt.repo.extraction._workers.Deriver`), its results kept in
    :attr:`Extraction.derived`: a caller that wants something of every file's symbols
    then needs to decode only those of the files not parsed in this run.
    """
    if head is not None and details:
        head.close()  # it parsed without details
        head = None
    root = discovery.root
    code = [f for f in discovery.files if language_for_path(f.path) is not None]
    problems: list[str] = []
    warnings: list[str] = []
    cache = None
    where = cache_path or default_cache_path(root)
    # An empty or code-free folder gets no cache (nothing would be written to it).
    if use_cache and (code or where.exists()):
        try:
            cache = SymbolCache(where)
        except (OSError, sqlite3.Error) as exc:
            warnings.append(
                f"the symbol cache {where} cannot be used ({exc}); every file is parsed without it"
            )
    known = cache.entries() if cache is not None else {}
    files: dict[str, CachedFile] = {}
    maybe: list[str] = []
    to_parse: list[str] = []
    for item in code:
        row = known.get(item.path)
        if row is not None and details and not row.detailed:
            to_parse.append(item.path)  # parsed again for its details
        elif row is not None and row.size == item.size and row.mtime_ns == item.mtime_ns:
            files[item.path] = row
        else:
            maybe.append(item.path)
    touched: list[tuple[int, int, str]] = []
    for path in maybe:
        row = known.get(path)
        if row is None:
            to_parse.append(path)
            continue
        try:
            data = (root / path).read_bytes()
            stat = (root / path).stat()
        except OSError as exc:
            problems.append(f"{path}: cannot be read ({exc.strerror or type(exc).__name__})")
            continue
        if content_hash(data) == row.hash:
            touched.append((stat.st_size, stat.st_mtime_ns, path))
            files[path] = CachedFile(
                path=path,
                size=stat.st_size,
                mtime_ns=stat.st_mtime_ns,
                hash=row.hash,
                language=row.language,
                defs_text=row.defs_text,
                members_text=row.members_text,
                names_hash=row.names_hash,
                detailed=row.detailed,
            )
        else:
            to_parse.append(path)
    for item in discovery.files:
        if item.path not in files and language_for_path(item.path) is None:
            files[item.path] = CachedFile(
                path=item.path,
                size=item.size,
                mtime_ns=item.mtime_ns,
                hash="",
                language=None,
                defs_text="",
                members_text="",
                names_hash=_NO_NAMES,
            )
    count = workers if workers is not None else (os.cpu_count() or 1)
    # Largest files first, in small chunks, so no worker is left with a long tail at the end.
    sizes = {f.path: f.size for f in code}
    to_parse.sort(key=lambda p: -sizes.get(p, 0))
    current = {f.path for f in code}
    previous = {}
    if cache is not None:
        previous = cache.names_of(
            [*(p for p in to_parse if p in known), *(p for p in known if p not in current)]
        )
    results = parse_all(
        root,
        to_parse,
        count,
        progress,
        cache,
        details=details,
        head=head,
        stamps={f.path: (f.size, f.mtime_ns) for f in code},
        derive=derive,
    )
    memory: dict[str, tuple[str, str]] = {}
    derived: dict[str, Any] = {}
    for path, made, problem in results:
        if problem is not None:
            problems.append(problem)
        if made is None:
            continue
        files[path] = made.light
        if made.derived is not None:
            derived[path] = made.derived
        if cache is None or not storable(path):
            memory[path] = (made.data, made.refs)
    if cache is not None:
        cache.touch(touched)
        cache.forget(p for p in known if p not in current)
        if cache.warning:
            warnings.append(cache.warning)
    return Extraction(
        root=root,
        files=files,
        cache=cache,
        parsed=len(to_parse),
        problems=tuple(problems),
        memory=memory,
        derived=derived,
        previous=previous,
        warnings=tuple(warnings),
        workers=head.pool if head is not None else None,
        processes=count,
    )
