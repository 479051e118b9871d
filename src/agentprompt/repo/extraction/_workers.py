"""Parsing files for the symbol cache: in this process, or spread over worker processes.

:func:`parse_all` parses a list of files (in chunks over every core when there are many)
and stores the rows as they come; :func:`start_parsing` begins such a parse before
discovery has finished (a first map's head start), and :func:`parse_all` then takes over
its workers and its results. :mod:`agentprompt.repo.extraction._repository` decides what needs
parsing; this module only parses.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import BrokenExecutor, Future, ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agentprompt.repo.extraction._cache import (
    CacheRow,
    SymbolCache,
    content_hash,
    row_for,
    storable,
)
from agentprompt.repo.symbols import FileSymbols, extract_symbols
from agentprompt.shares import process_pool

__all__ = [
    "PARALLEL_THRESHOLD",
    "WORKER_LOST",
    "Deriver",
    "HeadStart",
    "ProgressCallback",
    "Result",
    "extract_chunk",
    "extract_one",
    "parse_all",
    "start_parsing",
]

ProgressCallback = Callable[[int, int], None]
"""Called as ``progress(done, total)`` while files are parsed."""

PARALLEL_THRESHOLD = 200
"""Fewer files than this are parsed in-process (starting workers would cost more)."""
_CHUNK = 16
_STORE_BATCH = 512
"""Rows stored in one transaction during a parallel parse."""

Result = tuple[str, CacheRow | None, str | None]
"""One file's extraction: (path, cache row, problem)."""

Deriver = Callable[[Path, FileSymbols], Any]
"""Makes something of one file's symbols (given the repository root) where they were just
extracted, in the worker, kept as the row's :attr:`~CacheRow.derived`; a module-level
function, so that it can be sent to worker processes."""

WORKER_LOST = "not parsed: the parser's process died while reading it (killed, or crashed on it)"
"""The problem of a file that took its parse worker down each time it was read."""


def extract_one(
    root: str, path: str, details: bool = True, derive: Deriver | None = None
) -> tuple[str, CacheRow | None, str | None]:
    """Read and parse one file: (path, cache row, problem); with ``derive``, the row
    carries what it made of the symbols.

    The file is stat-ed before and after it is read; when it changed meanwhile the row gets
    an impossible mtime (-1), so the next run parses it again. Any failure of the parser on
    one file (a recursion limit on absurd nesting, say) is that file's problem, not the run's.
    """
    full = os.path.join(root, path)
    try:
        before = os.stat(full)
        with open(full, "rb") as handle:
            data = handle.read()
        after = os.stat(full)
    except OSError as exc:
        return path, None, f"{path}: cannot be read ({exc.strerror or type(exc).__name__})"
    try:
        entry = extract_symbols(path, data, details=details)
    except (RecursionError, MemoryError, ValueError, RuntimeError) as exc:
        return path, None, f"{path}: could not be parsed ({type(exc).__name__})"
    if entry.problem is not None:
        return path, None, f"{path}: {entry.problem}"
    steady = (before.st_size, before.st_mtime_ns) == (after.st_size, after.st_mtime_ns)
    mtime = after.st_mtime_ns if steady and after.st_size == len(data) else -1
    row = row_for(entry, after.st_size, mtime, content_hash(data))
    if derive is not None:
        row = replace(row, derived=derive(Path(root), entry))
    return path, row, None


def extract_chunk(
    root: str, paths: Sequence[str], details: bool, derive: Deriver | None = None
) -> list[tuple[str, CacheRow | None, str | None]]:
    """Parse ``paths`` in a worker process."""
    return [extract_one(root, p, details, derive) for p in paths]


def _light(
    results: list[tuple[str, CacheRow | None, str | None]],
) -> list[tuple[str, CacheRow | None, str | None]]:
    """``results`` without the rows' JSON and references, once they are stored (rows the
    cache cannot hold are kept whole)."""
    return [
        (path, row if row is None or not storable(path) else _stripped(row), problem)
        for path, row, problem in results
    ]


def _stripped(row: CacheRow) -> CacheRow:
    """``row`` without its JSON and references."""
    return CacheRow(light=row.light, refs="", data="", derived=row.derived)


@dataclass(frozen=True, kw_only=True)
class HeadStart:
    """A parse without details begun before discovery finished (see :func:`start_parsing`):
    the worker pool, and each chunk of paths already handed to it."""

    pool: ProcessPoolExecutor
    """The workers, which the extraction goes on using."""
    begun: tuple[tuple[tuple[str, ...], Future[list[Result]]], ...]
    """Each chunk handed out, with its coming results."""

    def close(self) -> None:
        """Stop the workers (chunks not yet parsed are dropped)."""
        self.pool.shutdown(wait=True, cancel_futures=True)


def start_parsing(
    root: Path, paths: Sequence[str], workers: int, max_bytes: int = 1_000_000
) -> HeadStart | None:
    """Start parsing ``paths`` (names only, as a map wants) while the caller still works out
    which files are in: a first map of a repository then uses the core that discovery
    leaves idle. None when there are too few paths or cores for workers to pay off.
    :func:`extract_repository` uses the results of the files discovery kept whose size and
    mtime are still those the parse saw, and drops the rest.

    Discovery has not vetted these paths yet, so only regular files (not symlinks, devices
    or pipes, nor files in a folder reached through a link) of at most ``max_bytes`` are
    read; the others are left to the parse that follows discovery, if discovery keeps them."""
    if workers <= 1 or len(paths) < PARALLEL_THRESHOLD:
        return None
    pool = process_pool(workers)
    chunks = [tuple(paths[i : i + _CHUNK]) for i in range(0, len(paths), _CHUNK)]
    real = os.path.realpath(root)  # the folders' own real paths are compared with it
    begun = tuple((chunk, pool.submit(_guessed_chunk, real, chunk, max_bytes)) for chunk in chunks)
    return HeadStart(pool=pool, begun=begun)


def _guessed_chunk(root: str, paths: Sequence[str], max_bytes: int) -> list[Result]:
    """Parse (names only) those of ``paths`` that are plain files of at most ``max_bytes``,
    in a worker process; the others get no result. A path whose folder is reached through
    a link (it may lead out of the resolved ``root``) is left to discovery too."""
    results = []
    folders: dict[str, bool] = {}
    for path in paths:
        full = os.path.join(root, path)
        folder = os.path.dirname(full)
        if folder not in folders:
            folders[folder] = os.path.realpath(folder) == folder
        if not folders[folder]:
            continue
        try:
            found = os.lstat(full)
        except OSError:
            continue
        if stat.S_ISREG(found.st_mode) and found.st_size <= max_bytes:
            results.append(extract_one(root, path, False))
    return results


def parse_all(
    root: Path,
    paths: list[str],
    workers: int,
    progress: ProgressCallback | None,
    cache: SymbolCache | None,
    *,
    details: bool,
    head: HeadStart | None = None,
    stamps: Mapping[str, tuple[int, int]] | None = None,
    retry: bool = True,
    derive: Deriver | None = None,
) -> list[Result]:
    """Parse ``paths``; rows are stored in ``cache`` as they come (one writer, so no waits
    for the database lock), and only their light part is kept. With ``head``, the results
    it already has are used for the paths whose ``stamps`` (size, mtime) they match.

    A worker that dies (the system killed it, say) breaks the pool, and the results not yet
    in are lost with it: those files are parsed again (new workers, or this process for a
    few). When that parse breaks too (``retry`` False), a file kills its worker: the rest
    are parsed one by one to find it (see :func:`_one_by_one`). ``derive``: see
    :data:`Deriver` (the head start's rows have nothing derived)."""
    total = len(paths)
    results: list[Result] = []
    if head is None and (workers <= 1 or total < PARALLEL_THRESHOLD):
        for i, path in enumerate(paths):
            results.append(extract_one(str(root), path, details, derive))
            if progress is not None and (i % 50 == 0 or i + 1 == total):
                progress(i + 1, total)
        return _stored(results, cache)
    own = head is None
    if head is None:
        pool = process_pool(workers)
        head = HeadStart(pool=pool, begun=())
    wanted = set(paths)
    handed = {path for chunk, _ in head.begun for path in chunk}
    rest = [p for p in paths if p not in handed]
    later: list[tuple[tuple[str, ...], Future[list[Result]]]] = []
    broken = False
    try:
        for i in range(0, len(rest), _CHUNK):
            chunk = tuple(rest[i : i + _CHUNK])
            later.append(
                (chunk, head.pool.submit(extract_chunk, str(root), chunk, details, derive))
            )
    except BrokenExecutor:
        broken = True  # a head start's worker died: what was not handed out is parsed below
    done: set[str] = set()
    pending: list[Result] = []
    try:
        for _chunk, coming in (*head.begun, *later):
            try:
                parsed = coming.result()
            except BrokenExecutor:
                broken = True  # this chunk's results died with a worker: parsed again below
                continue
            for result in parsed:
                path, row = result[0], result[1]
                if path not in wanted or _stale(row, (stamps or {}).get(path)):
                    continue  # guessed wrong (discovery left it out), or changed since
                done.add(path)
                pending.append(result)
            # One transaction per few hundred files rather than one per chunk: fewer
            # commits for the main process while the workers parse.
            if len(pending) >= _STORE_BATCH:
                results.extend(_stored(pending, cache))
                pending = []
            if progress is not None:
                progress(len(results) + len(pending), total)
    finally:
        if own:
            head.close()
    results.extend(_stored(pending, cache))
    # Changed since guessed, not a plain file when guessed, or lost with a worker.
    again = [p for p in paths if p not in done]
    if broken and not retry:
        return [*results, *_one_by_one(root, again, cache, details)]
    if again:
        results.extend(
            parse_all(
                root,
                again,
                workers,
                None,
                cache,
                details=details,
                retry=not broken,
                derive=derive,
            )
        )
    return results


def _one_by_one(
    root: Path, paths: list[str], cache: SymbolCache | None, details: bool
) -> list[Result]:
    """Parse ``paths`` in order, one a task, in a single worker: when it dies, the file it
    was reading (the first whose result is missing, as results come back in order) is
    reported as :data:`WORKER_LOST` and a new worker takes the files after it."""
    results: list[Result] = []
    todo = paths
    while todo:
        pool = process_pool(1)
        try:
            coming: list[Future[Result]] = []
            with contextlib.suppress(BrokenExecutor):  # it may die before all are handed in
                for path in todo:
                    coming.append(pool.submit(extract_one, str(root), path, details))
            rest = todo[len(coming) :]
            for at, future in enumerate(coming):
                try:
                    results.append(future.result())
                except BrokenExecutor:
                    results.append((todo[at], None, f"{todo[at]}: {WORKER_LOST}"))
                    rest = todo[at + 1 :]
                    break
            todo = rest
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return _stored(results, cache)


def _stale(row: CacheRow | None, stamp: tuple[int, int] | None) -> bool:
    """Whether ``row`` was made from another version of its file than the one discovery saw
    (size and mtime ``stamp``)."""
    return row is not None and stamp is not None and (row.light.size, row.light.mtime_ns) != stamp


def _stored(
    results: list[tuple[str, CacheRow | None, str | None]], cache: SymbolCache | None
) -> list[tuple[str, CacheRow | None, str | None]]:
    """Store ``results``' rows in ``cache`` (when there is one) and keep their light part."""
    if cache is None:
        return results
    cache.store(row for _, row, _ in results if row is not None)
    return _light(results)
