"""Ranking an extracted repository's files, remembered and updated between runs.

:func:`rank_extraction` first looks for a ranking remembered for exactly these files'
names and this personalisation; failing that it updates the reference graph remembered
from an earlier run (see :mod:`agentprompt.repo.rank._update`) when few files changed, and
builds it from scratch otherwise.
"""

from __future__ import annotations

import gc
import heapq
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace

from agentprompt.repo.discovery import is_test_path
from agentprompt.repo.extraction import Extraction, SymbolCache, content_hash
from agentprompt.repo.rank._centrality import pagerank
from agentprompt.repo.rank._graph import MAX_DEFINERS, MAX_MEMBER_DEFINERS, build_graph
from agentprompt.repo.rank._summary import RankSummary, definers_of, personalization, summarize
from agentprompt.repo.rank._task import (
    INDEX_VERSION,
    FileDocument,
    LexicalIndex,
    TaskRanking,
    rank_for_task,
)
from agentprompt.repo.rank._update import FileNames, GraphState, state_from_graph, update_state

__all__ = ["lexical_index", "paused_collection", "rank_extraction", "rank_task_extraction"]

PREFETCH = 40
"""How many of the top-ranked files a first map extracts with details ahead of fitting
(the fitting's first look takes 32)."""

TASK_TOLERANCE = 1e-6
"""PageRank's tolerance for a task's graph step: its ranks only add a fifth of a score
(:data:`~agentprompt.repo.rank._task.GRAPH_WEIGHT`), so forty fewer iterations over a large
graph cost nothing a ranking shows."""

MAX_UPDATED = 200
"""More changed files than this and the reference graph is built anew rather than updated."""


def rank_extraction(
    extraction: Extraction,
    *,
    focus: tuple[str, ...] = (),
    mentions: Iterable[str] = (),
    seeds: Mapping[str, float] | None = None,
) -> RankSummary:
    """The ranking of ``extraction``'s files toward ``focus`` files (root-relative paths)
    and ``mentions``, or toward ``seeds`` (jump weights by path) when given (a task's graph
    step, see :func:`rank_task_extraction`); remembered in the cache for an unchanged
    reference graph, and computed by updating the remembered graph when only a few files
    changed."""
    with paused_collection():
        return _rank(extraction, focus, mentions, seeds)


def rank_task_extraction(
    extraction: Extraction, task: str, *, focus: tuple[str, ...] = ()
) -> tuple[TaskRanking, RankSummary]:
    """``extraction``'s files ordered by their relevance to ``task`` (see
    :func:`~agentprompt.repo.rank.rank_for_task`), its graph step served by the
    remembered reference graph, and the summary a map needs with those scores as ranks.
    ``focus`` files seed the graph step too."""
    summaries: list[RankSummary] = []

    def propagate(seeds: Mapping[str, float]) -> Mapping[str, float]:
        jumps = dict(seeds)
        for path in focus:
            jumps[path] = jumps.get(path, 0.0) + 1.0
        summaries.append(rank_extraction(extraction, seeds=jumps))
        return summaries[-1].ranks

    with paused_collection():
        index = lexical_index(extraction)
        ranking = rank_for_task(task, index, propagate=propagate)
    summary = summaries[-1] if summaries else rank_extraction(extraction, focus=focus)
    return ranking, replace(summary, ranks=ranking.scores())


def lexical_index(extraction: Extraction) -> LexicalIndex:
    """The lexical index of ``extraction``'s files, remembered in the symbol cache while
    no file's names change (then it is built again from the cached names)."""
    files = extraction.files
    material = _names_material(extraction)
    stamp = content_hash(f"{material}\n{INDEX_VERSION}".encode("utf-8", "surrogatepass")).encode()
    cache = extraction.cache
    data = cache.blob(_INDEX_KEY) if cache is not None else None
    if data is not None and data.startswith(stamp + b"\0"):
        remembered = LexicalIndex.from_bytes(data[len(stamp) + 1 :])
        if remembered is not None:
            return remembered
    uses = extraction.references()
    index = LexicalIndex.build(
        FileDocument(
            path=path,
            defs=tuple(row.defs_text.split()),
            members=tuple(row.members_text.split()),
            uses=uses.get(path, ()),
            is_test=is_test_path(path),
        )
        for path, row in files.items()
    )
    if cache is not None:
        cache.remember_blob(_INDEX_KEY, stamp + b"\0" + index.to_bytes())
    return index


_INDEX_KEY = "lexical-index"
"""Where the lexical index is remembered (one at a time, stamped with what it indexes)."""


def _names_material(extraction: Extraction) -> str:
    """Every file's path and names hash, one a line: equal texts mean equal names (what the
    reference graph and the lexical index are built from)."""
    return "\n".join(f"{p}\0{f.names_hash}" for p, f in sorted(extraction.files.items()))


@contextmanager
def paused_collection() -> Iterator[None]:
    """Pause Python's cycle collector for the block, as ranking and fitting a large
    repository allocate hundreds of thousands of containers (links, definers, entries) that
    form no cycles: each collection the allocations trigger walks them and the extraction
    for nothing, about a fifth of a cold ranking's time. Reference counting still frees
    everything, and a collector the caller had disabled stays disabled."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _rank(
    extraction: Extraction,
    focus: tuple[str, ...],
    mentions: Iterable[str],
    seeds: Mapping[str, float] | None,
) -> RankSummary:
    files = extraction.files
    tolerance = 1e-10 if seeds is None else TASK_TOLERANCE
    words: set[str] = set(mentions) if seeds is None else set()
    defs: dict[str, list[str]] = {}
    members: dict[str, list[str]] = {}
    if words:
        defs, members = _names(extraction)
    definers = definers_of(words, defs, members)
    if seeds is not None:
        personal = {path: weight for path, weight in seeds.items() if path in files}
    else:
        personal = personalization(files, focus=focus, mentioned=words, definers=definers)
    boosted = sorted(definers)
    material = _names_material(extraction)
    material += f"\n{sorted(personal.items())}\n{boosted}\n{MAX_DEFINERS},{MAX_MEMBER_DEFINERS}"
    key = "rank:" + content_hash(material.encode("utf-8", "surrogatepass"))
    state_key = "graph:" + content_hash(f"{boosted}\n{MAX_DEFINERS},{MAX_MEMBER_DEFINERS}".encode())
    cache = extraction.cache
    remembered = cache.memo(key) if cache is not None else None
    if remembered is not None:
        try:
            return RankSummary.from_json(remembered)
        except (ValueError, KeyError, TypeError):
            pass
    if cache is not None:
        updated = _updated_state(extraction, cache, state_key, personal, tolerance)
        if updated is not None:
            state, moved = updated
            summary = state.summary()
            # A task's jump weights rarely come again: its ranking is not remembered, and
            # the graph is stored again only when files changed (its ranks are merely where
            # the next iteration starts).
            if moved or seeds is None:
                cache.remember_blob(state_key, state.to_bytes())
            if seeds is None:
                cache.remember(key, summary.to_json())
            return summary
    if not words:
        defs, members = _names(extraction)
    graph = build_graph(defs, extraction.references(), boosted, members)
    if extraction.workers is not None:
        # The files a map will show are extracted with details by the idle workers while
        # the ranking goes on: first a guess (the files most others refer to), then the
        # top of the ranking itself.
        referred = graph.referrers
        extraction.prefetch(heapq.nlargest(PREFETCH // 2, referred, key=lambda p: referred[p]))
    ranks = pagerank(graph, personal, tolerance=tolerance)
    if extraction.workers is not None:
        extraction.prefetch(heapq.nlargest(PREFETCH, ranks, key=lambda p: ranks[p]))
    summary = summarize(graph, ranks)
    if cache is not None:
        cache.remember(key, summary.to_json())
        names = {p: f.names_hash for p, f in files.items()}
        state = state_from_graph(graph, names, ranks, summary.other_users, boosted)
        cache.remember_blob(state_key, state.to_bytes())
    return summary


def _updated_state(
    extraction: Extraction,
    cache: SymbolCache,
    key: str,
    personal: Mapping[str, float],
    tolerance: float,
) -> tuple[GraphState, bool] | None:
    """The remembered graph under ``key`` updated for the files whose names changed, and
    whether any had; None when there is none or it cannot be updated (then the graph is
    built anew)."""
    data = cache.blob(key)
    state = GraphState.from_bytes(data) if data is not None else None
    if state is None:
        return None
    files = extraction.files
    changed_paths = [p for p, f in files.items() if state.names.get(p) != f.names_hash]
    gone = [p for p in state.names if p not in files]
    if len(changed_paths) + len(gone) > MAX_UPDATED:
        return None
    current = cache.names_of(changed_paths)
    changed: dict[str, tuple[FileNames | None, FileNames | None]] = {}
    for path in (*changed_paths, *gone):
        old = None
        if path in state.names:
            before = extraction.previous.get(path)
            if before is None or before[0] != state.names[path]:
                return None
            old = _file_names(before)
        new = None
        if path in files:
            now = current.get(path)
            if now is None or now[0] != files[path].names_hash:
                return None
            new = _file_names(now)
        changed[path] = (old, new)

    def users_of(names: set[str]) -> dict[str, tuple[str, ...]]:
        return {p: refs for p, refs in cache.users_of(names).items() if p in files}

    updated = update_state(state, changed, users_of, files, personal, tolerance=tolerance)
    return updated, bool(changed)


def _names(extraction: Extraction) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The names each file defines at module level and in classes, split from the rows'
    text directly: the rows' cached tuples cost a locked property access per file."""
    files = extraction.files.items()
    return (
        {p: f.defs_text.split() for p, f in files},
        {p: f.members_text.split() for p, f in files},
    )


def _file_names(row: tuple[str, str, str, str]) -> FileNames:
    return FileNames(
        names_hash=row[0],
        defs=tuple(row[1].split()),
        members=tuple(row[2].split()),
        refs=tuple(row[3].split()),
    )
