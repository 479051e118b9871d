"""Ranking a whole repository for a task: read it (discovery, then extraction through the
symbol cache) and order every code file by its relevance, with the reasons.

:func:`read_repository` is the front half every ranked view of a repository shares (the
map fits and renders what it ranks): discovery reusing the content verdicts remembered
next to the symbol cache, and extraction that parses only what changed, begun while
discovery still runs on a first read of a git work tree. :func:`rank_repository` ranks what
it read for a task.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentprompt.repo.discovery import (
    Discovery,
    DiscoveryOptions,
    Exclusion,
    GitListing,
    Remembered,
    discover,
    git_listing,
    is_binary_verdict,
    is_generated_verdict,
    left_out_kind,
    likely_kept,
    load_verdicts,
    save_verdicts,
    verdicts_path,
)
from agentprompt.repo.extraction import (
    Extraction,
    HeadStart,
    ProgressCallback,
    default_cache_path,
    extract_repository,
    start_parsing,
)
from agentprompt.repo.rank._remembered import rank_task_extraction
from agentprompt.repo.rank._task import TaskRanking, check_task
from agentprompt.repo.symbols import language_for_path

__all__ = [
    "RankOptions",
    "RepositoryRanking",
    "discover_remembered",
    "left_out_files",
    "rank_repository",
    "ranked_repository",
    "read_repository",
    "remember_discovery",
    "root_relative",
    "skipped_files",
]


@dataclass(frozen=True, kw_only=True)
class RankOptions:
    """How a repository is read for ranking and what the ranking leans toward."""

    focus: tuple[str, ...] = ()
    """Files the ranking leans toward (relative to the root, or to the working folder)."""
    workers: int | None = None
    """Processes for a cold parse (default: every core)."""
    use_cache: bool = True
    """Keep extraction results in ``<root>/.agentprompt/cache/cache.db``."""
    cache_path: Path | None = None
    """Another place for the cache database."""
    discovery: DiscoveryOptions = field(default_factory=DiscoveryOptions)
    """Which files discovery keeps (e.g. ``include_generated``)."""


@dataclass(frozen=True, kw_only=True)
class RepositoryRanking:
    """Every code file of a repository ordered by its relevance to a task."""

    ranking: TaskRanking
    """The files, most relevant first, each with its score and reasons."""
    parsed: int
    """Files parsed in this run (the rest came from the cache)."""
    problems: tuple[str, ...] = ()
    """Files skipped, each with the reason."""
    warnings: tuple[str, ...] = ()
    """What went wrong with the symbol cache (the ranking was still made)."""
    left_out: tuple[Exclusion, ...] = ()
    """Files left out as generated or binary (see :func:`left_out_files`)."""


def rank_repository(
    root: Path,
    task: str,
    options: RankOptions | None = None,
    *,
    discovery: Discovery | None = None,
    progress: ProgressCallback | None = None,
) -> RepositoryRanking:
    """Every code file of ``root`` ordered by its relevance to ``task``, with the reasons;
    ``options`` say which cache, workers and focus files to use. Raises
    :class:`~agentprompt.repo.rank.InvalidTask` for a task that cannot be ranked for, before
    anything is read."""
    with ranked_repository(root, task, options, discovery=discovery, progress=progress) as (
        found,
        extraction,
        ranking,
    ):
        return RepositoryRanking(
            ranking=ranking,
            parsed=extraction.parsed,
            problems=(*skipped_files(found), *extraction.problems),
            warnings=extraction.all_warnings(),
            left_out=left_out_files(found),
        )


@contextlib.contextmanager
def ranked_repository(
    root: Path,
    task: str,
    options: RankOptions | None = None,
    *,
    discovery: Discovery | None = None,
    progress: ProgressCallback | None = None,
) -> Iterator[tuple[Discovery, Extraction, TaskRanking]]:
    """``root`` read (:func:`read_repository`) and its code files ranked for ``task``, the
    options' focus files leading: the discovery, the extraction (open until the block
    ends, to read the definitions of the files ranked) and the ranking. Raises
    :class:`~agentprompt.repo.rank.InvalidTask` for a task that cannot be ranked for,
    before anything is read."""
    check_task(task)
    options = options or RankOptions()
    with read_repository(root, options, discovery=discovery, progress=progress) as (
        found,
        extraction,
    ):
        focus = tuple(root_relative(found.root, p) for p in options.focus)
        ranking, _summary = rank_task_extraction(extraction, task, focus=focus)
        yield found, extraction, ranking


@contextlib.contextmanager
def read_repository(
    root: Path,
    options: RankOptions,
    *,
    discovery: Discovery | None = None,
    progress: ProgressCallback | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> Iterator[tuple[Discovery, Extraction]]:
    """``root``'s discovery (``discovery`` when given) and its extraction without details,
    through the symbol cache, which is closed when the block ends. ``meanwhile`` runs in a
    thread while a first read's parse workers do the work (a map loads its tokenizer then);
    it is waited for before the block starts, and what it raises is ignored (its caller
    meets the same problem when it does the work itself)."""
    loaded = None
    head = None
    helper = None
    try:
        if discovery is not None:
            found = discovery
        else:
            listing, head = _head_start(root, options)
            if head is not None and meanwhile is not None:
                helper = _in_thread(meanwhile)
            found, loaded = discover_remembered(
                root,
                options.cache_path,
                use_cache=options.use_cache,
                listing=listing,
                options=options.discovery,
            )
        extraction = extract_repository(
            found,
            cache_path=options.cache_path,
            use_cache=options.use_cache,
            workers=options.workers,
            progress=progress,
            details=False,
            head=head,
        )
        if helper is not None:
            helper.join()
        remember_discovery(extraction.cache.path if extraction.cache else None, found, loaded)
        try:
            yield found, extraction
        finally:
            if extraction.cache is not None:
                extraction.cache.close()
    finally:
        if head is not None:
            head.close()


def discover_remembered(
    root: Path,
    cache_path: Path | None,
    *,
    use_cache: bool = True,
    listing: GitListing | None = None,
    options: DiscoveryOptions | None = None,
) -> tuple[Discovery, dict[str, Remembered] | None]:
    """Discovery of ``root`` (with ``options``) reusing the content verdicts kept next to
    its symbol cache (``cache_path``, default the root's own), so an unchanged file's head
    is not read again, and git's ``listing`` when the caller has it; also returns what was
    loaded, for :func:`remember_discovery`."""
    if not use_cache:
        return discover(root, options, listing=listing), None
    loaded = load_verdicts(verdicts_path(cache_path or default_cache_path(root.resolve())))
    return discover(root, options, known=loaded, listing=listing), loaded


def remember_discovery(
    cache_path: Path | None, found: Discovery, loaded: Mapping[str, Remembered] | None
) -> None:
    """Keep ``found``'s content verdicts next to the symbol cache at ``cache_path``, when
    they changed since ``loaded``; nothing without a cache."""
    if cache_path is not None and found.sniffed:
        save_verdicts(verdicts_path(cache_path), found.sniffed, loaded=loaded)


def _head_start(root: Path, options: RankOptions) -> tuple[GitListing | None, HeadStart | None]:
    """For a first read of a git work tree (no symbol cache yet), git's listing and a parse
    of the code files it lists begun while discovery runs (see
    :func:`~agentprompt.repo.extraction.start_parsing`); (None, None) otherwise: with a
    cache, most files need no parse and guessing would waste the workers' time."""
    try:
        resolved = root.resolve(strict=True)
    except (OSError, RuntimeError):
        return None, None
    if not resolved.is_dir():
        return None, None
    if options.use_cache and (options.cache_path or default_cache_path(resolved)).exists():
        return None, None
    listing = git_listing(resolved)
    if listing is None:
        return None, None
    code = [n for n in listing.names if language_for_path(n) is not None]
    rules = options.discovery
    guess = likely_kept(resolved, code, rules)
    workers = options.workers if options.workers is not None else (os.cpu_count() or 1)
    return listing, start_parsing(resolved, guess, workers, rules.max_file_bytes)


def _in_thread(work: Callable[[], object]) -> threading.Thread:
    """``work`` started in a daemon thread, what it raises ignored."""

    def run() -> None:
        with contextlib.suppress(Exception):
            work()

    thread = threading.Thread(target=run, name="meanwhile", daemon=True)
    thread.start()
    return thread


_CONTENT_REASONS = ("UTF-8", "size cap", "read")


def left_out_files(found: Discovery) -> tuple[Exclusion, ...]:
    """Files discovery left out by their content as generated or minified, or as data (of
    any type), and code files it left out as binary: many on a large repository, so a door
    counts them and lists them only when asked."""
    return tuple(
        item
        for item in found.excluded
        if is_generated_verdict(item.reason)
        or left_out_kind(item.reason) == "data"
        or (is_binary_verdict(item.reason) and language_for_path(item.path) is not None)
    )


def skipped_files(found: Discovery) -> list[str]:
    """Code files discovery left out for their text (not UTF-8, over the size cap,
    unreadable), each with the reason; then discovery's own problems. The generated and
    binary ones are :func:`left_out_files`."""
    skipped = [
        f"{item.path}: {item.reason}"
        for item in found.excluded
        if language_for_path(item.path) is not None
        and not is_binary_verdict(item.reason)
        and any(word in item.reason for word in _CONTENT_REASONS)
    ]
    return [*skipped, *found.problems]


def root_relative(root: Path, path: str) -> str:
    """``path`` relative to ``root``: an absolute path or one relative to the working
    directory that lies inside ``root``, else taken as relative to ``root`` already."""
    candidate = Path(path)
    if not candidate.is_absolute():
        inside = root / candidate
        here = Path.cwd() / candidate
        if inside.exists() or not here.exists():
            return candidate.as_posix().removeprefix("./")
        candidate = here
    try:
        return candidate.resolve().relative_to(root.resolve()).as_posix()
    except (ValueError, OSError):
        return candidate.as_posix()
