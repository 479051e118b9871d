"""The repository map pipeline: read (discover, extract through the cache), rank, fit,
render.

:func:`build_map` returns a :class:`RepoMap` whose text fits the token budget exactly: the
ranked entries (a file's header, then its definitions by importance) are taken in order,
and a search over how many to include finds the largest prefix whose rendered map, legend
and all, still fits. Reading and ranking are the ranking part's
(:func:`~agentprompt.repo.rank.read_repository`,
:func:`~agentprompt.repo.rank.rank_extraction`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from agentprompt.repo.discovery import Discovery, DiscoveryOptions, Exclusion
from agentprompt.repo.extraction import Extraction, ProgressCallback
from agentprompt.repo.map._fit import fit_map
from agentprompt.repo.map.render import MapFile
from agentprompt.repo.rank import (
    RankOptions,
    RankReason,
    RankSummary,
    TaskRanking,
    check_task,
    left_out_files,
    rank_extraction,
    rank_task_extraction,
    read_repository,
    root_relative,
    skipped_files,
)
from agentprompt.tokens import shared_counter

__all__ = ["MapOptions", "RankedFile", "RepoMap", "build_map"]


@dataclass(frozen=True, kw_only=True)
class MapOptions:
    """What a map is for and how big it may be."""

    tokens: int = 1024
    """The token budget the whole map (legend included) must fit."""
    focus: tuple[str, ...] = ()
    """Files the ranking leans toward."""
    mentions: tuple[str, ...] = ()
    """Identifiers the ranking leans toward."""
    task: str | None = None
    """A task text: the files and identifiers it names are leaned toward."""
    in_context: tuple[str, ...] = ()
    """Files whose full text the model already has: left out of the map, leaned toward."""
    model: str | None = None
    """The model whose tokenizer counts the budget (default: o200k_base)."""
    workers: int | None = None
    """Processes for a cold parse (default: every core)."""
    use_cache: bool = True
    """Keep extraction results in ``<root>/.agentprompt/cache/cache.db``."""
    cache_path: Path | None = None
    """Another place for the cache database."""
    discovery: DiscoveryOptions = field(default_factory=DiscoveryOptions)
    """Which files discovery keeps (e.g. ``include_generated``)."""


@dataclass(frozen=True, kw_only=True)
class RankedFile:
    """A file shown in the map, with what was shown of it."""

    path: str
    """The file's path."""
    language: str | None
    """The language it was read as."""
    rank: float
    """Its relevance to the task when there is one, else its personalised PageRank."""
    file_refs: int
    """How many other files refer to it."""
    entry: MapFile
    """What the map renders for it."""
    reasons: tuple[RankReason, ...] = ()
    """Why it ranks where it does for the task (empty without a task)."""


@dataclass(frozen=True, kw_only=True)
class RepoMap:
    """A rendered, budget-fitted repository map."""

    text: str
    """The map, legend first."""
    tokens: int
    """Its exact token count."""
    budget: int
    """The budget it was fitted to."""
    tokenizer: str
    """The encoding it was counted with."""
    files: tuple[RankedFile, ...]
    """The files shown, by path."""
    omitted: int
    """Code files ranked but left out for lack of budget."""
    parsed: int
    """Files parsed in this run (the rest came from the cache)."""
    problems: tuple[str, ...] = ()
    """Files skipped, each with the reason."""
    warnings: tuple[str, ...] = ()
    """What went wrong with the symbol cache (the map was still built)."""
    left_out: tuple[Exclusion, ...] = ()
    """Files left out as generated or binary
    (:func:`~agentprompt.repo.rank.left_out_files`)."""
    ranks: Mapping[str, float] = field(default_factory=dict)
    """Every code file's rank (its relevance to the task when there is one)."""
    sources: Mapping[str, str] = field(default_factory=dict)
    """Every code file's content hash as it was read, so a map entry shown earlier can be
    told still true of its file (the hash is unchanged) or not."""
    relevance: TaskRanking | None = None
    """Every code file ordered by its relevance to the task, with the reasons (None
    without a task)."""
    unknown_focus: tuple[str, ...] = ()
    """Focus and in-context paths that name no code file of the repository (no effect)."""


def build_map(
    root: Path,
    options: MapOptions | None = None,
    *,
    discovery: Discovery | None = None,
    progress: ProgressCallback | None = None,
) -> RepoMap:
    """The repository map of ``root`` for ``options`` (see :class:`MapOptions`)."""
    options = options or MapOptions()
    if options.task is not None:
        check_task(options.task)
    with read_repository(
        root,
        _reading(options),
        discovery=discovery,
        progress=progress,
        meanwhile=partial(shared_counter, options.model),
    ) as (found, extraction):
        return _rank_and_fit(found, extraction, options)


def _reading(options: MapOptions) -> RankOptions:
    """How the repository is read for ``options``: its cache, workers and discovery rules
    (the map's focus files are its own)."""
    return RankOptions(
        workers=options.workers,
        use_cache=options.use_cache,
        cache_path=options.cache_path,
        discovery=options.discovery,
    )


def _focus(found: Discovery, options: MapOptions) -> tuple[str, ...]:
    """The focus and in-context files, relative to the root: what the ranking leans toward."""
    return tuple(root_relative(found.root, p) for p in (*options.focus, *options.in_context))


def _task_ranking(
    found: Discovery, extraction: Extraction, options: MapOptions, task: str
) -> tuple[TaskRanking, RankSummary]:
    """The ranking for ``task`` (the mentioned words count as part of it, the focus files
    seed its graph step) and the summary a map fits with."""
    text = " ".join((task, *options.mentions))
    return rank_task_extraction(extraction, text, focus=_focus(found, options))


def _rank_and_fit(found: Discovery, extraction: Extraction, options: MapOptions) -> RepoMap:
    relevance = None
    if options.task is not None:
        relevance, summary = _task_ranking(found, extraction, options, options.task)
    else:
        summary = rank_extraction(
            extraction, focus=_focus(found, options), mentions=options.mentions
        )
    ranks = summary.ranks
    reasons = {f.path: f.reasons for f in relevance.files} if relevance is not None else {}
    excluded = {root_relative(found.root, p) for p in options.in_context}
    ranked_paths = sorted(
        (p for p in extraction.files if p not in excluded), key=lambda p: (-ranks.get(p, 0.0), p)
    )
    counter = shared_counter(options.model)
    terms = relevance.terms if relevance is not None else frozenset()
    text, tokens, shown = fit_map(ranked_paths, extraction, summary, counter, options.tokens, terms)
    ranked = tuple(
        RankedFile(
            path=path,
            language=entry.symbols.language,
            rank=ranks.get(path, 0.0),
            file_refs=summary.referrers.get(path, 0),
            entry=entry,
            reasons=reasons.get(path, ()),
        )
        for path, entry in sorted(shown.items())
    )
    return RepoMap(
        text=text,
        tokens=tokens,
        budget=options.tokens,
        tokenizer=counter.name,
        files=ranked,
        omitted=len(ranked_paths) - len(ranked),
        parsed=extraction.parsed,
        problems=(*skipped_files(found), *extraction.problems),
        warnings=extraction.all_warnings(),
        left_out=left_out_files(found),
        ranks=ranks,
        sources={path: cached.hash for path, cached in extraction.files.items()},
        relevance=relevance,
        unknown_focus=tuple(
            p
            for p in (*options.focus, *options.in_context)
            if root_relative(found.root, p) not in extraction.files
        ),
    )
