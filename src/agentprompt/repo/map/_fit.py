"""Fitting a ranked repository map to its token budget.

Each ranked file contributes entries (its header, then its definitions by importance);
:func:`fit_map` finds the largest prefix of those entries, in score order, whose rendered
map still fits the budget (the budget's own prefix search,
:func:`agentprompt.budget.largest_fitting`, over the exact count of each rendered map),
loading full symbols only for the files near the top.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import partial
from itertools import chain

from agentprompt.budget import largest_fitting
from agentprompt.repo.discovery import is_test_path
from agentprompt.repo.extraction import Extraction
from agentprompt.repo.map._resolve import ImportResolver
from agentprompt.repo.map.render import MapFile, render_map
from agentprompt.repo.rank import RankSummary, paused_collection, split_identifier
from agentprompt.repo.symbols import FileSymbols
from agentprompt.tokens import Tokenizer

__all__ = [
    "defined_names",
    "fit_map",
    "known_calls",
    "map_entries",
    "map_file",
    "select_entries",
]

TASK_TERM_WEIGHT = 4.0
"""How many times more a definition whose name holds a task's term weighs in its file."""

_FIRST_PROBE = 32
_UNREAD_WEIGHT = 0.5
"""Entries of files in a language without a grammar score this fraction of their rank."""
_KIND_WEIGHTS = {
    "class": 1.0,
    "function": 1.0,
    "async function": 1.0,
    "method": 0.6,
    "async method": 0.6,
    "property": 0.4,
    "variable": 0.4,
}


def _name_weight(name: str) -> float:
    """Dunder names (``__all__``) matter least, private ones (``_helper``) less."""
    if name.startswith("__") and name.endswith("__"):
        return 0.1
    return 0.3 if name.startswith("_") else 1.0


def map_entries(
    path: str,
    symbols: FileSymbols,
    rank: float,
    summary: RankSummary,
    terms: frozenset[str] = frozenset(),
) -> list[tuple[float, str, int]]:
    """Ranked entries of one file: (score, path, symbol index or -1 for the header); a
    definition whose name holds one of a task's ``terms`` (see
    :func:`~agentprompt.repo.rank.split_identifier`) weighs :data:`TASK_TERM_WEIGHT`
    times more, so a file's definitions the task speaks of are shown first."""
    if symbols.language is None:
        # A file no grammar reads is a bare path: after the code files of its rank.
        return [(rank * _UNREAD_WEIGHT, path, -1)]
    found = [(rank * 1.001, path, -1)]
    if is_test_path(path) or not symbols.symbols:
        return found
    weights = [
        math.log2(2 + summary.other_users.get(s.name, 0))
        * _KIND_WEIGHTS[s.kind]
        * _name_weight(s.name)
        * (TASK_TERM_WEIGHT if terms and terms.intersection(split_identifier(s.name)) else 1.0)
        for s in symbols.symbols
    ]
    top = max(weights)
    for i, weight in enumerate(weights):
        found.append((rank * weight / top, path, i))
    return found


def known_calls(symbols: FileSymbols, defined: frozenset[str]) -> FileSymbols:
    """``symbols`` with only the calls to names some repository file defines (``symbols``
    itself when there is nothing to leave out)."""
    if all(c in defined for s in symbols.symbols for c in s.calls):
        return symbols
    return replace(
        symbols,
        symbols=tuple(
            replace(s, calls=tuple(c for c in s.calls if c in defined)) for s in symbols.symbols
        ),
    )


def map_file(
    symbols: FileSymbols,
    shown: set[int],
    summary: RankSummary,
    resolver: ImportResolver,
    defined: frozenset[str],
) -> MapFile:
    """What the map shows of one file; calls to names no repository file defines (the
    standard library's ``join``, ``get``...) are left out, since they say nothing about the
    repository."""
    symbols = known_calls(symbols, defined)
    refs = {}
    for i in shown:
        users = summary.other_users.get(symbols.symbols[i].name, 0)
        if users:
            refs[i] = users
    local: dict[str, None] = {}
    external: dict[str, None] = {}
    for item in symbols.imports:
        target = resolver.resolve(symbols.path, symbols.language, item)
        if target is not None and target != symbols.path:
            local[target] = None
        elif item.local:
            local[item.module] = None
        elif item.module != "__future__":
            external[_top_module(symbols.language, item.module)] = None
    return MapFile(
        symbols=symbols,
        shown=frozenset(shown),
        file_refs=summary.referrers.get(symbols.path, 0),
        symbol_refs=refs,
        local_imports=tuple(local),
        external_imports=tuple(external),
    )


def _top_module(language: str | None, module: str) -> str:
    if language == "python":
        return module.split(".")[0]
    if language == "rust":
        return module.split("::")[0]
    return module


def select_entries(entries: list[tuple[float, str, int]], count: int) -> dict[str, set[int]]:
    """The symbol indexes shown per file when the first ``count`` entries are taken."""
    chosen: dict[str, set[int]] = {}
    for _score, path, index in entries[:count]:
        shown = chosen.setdefault(path, set())
        if index >= 0:
            shown.add(index)
    return chosen


def fit_map(
    ranked_paths: list[str],
    extraction: Extraction,
    summary: RankSummary,
    counter: Tokenizer,
    budget: int,
    terms: frozenset[str] = frozenset(),
) -> tuple[str, int, dict[str, MapFile]]:
    """The largest prefix of ranked entries whose map fits ``budget`` (definitions holding
    a task's ``terms`` first within their file, see :func:`map_entries`)."""
    with paused_collection():
        return _fit(ranked_paths, extraction, summary, counter, budget, terms)


def _fit(
    ranked_paths: list[str],
    extraction: Extraction,
    summary: RankSummary,
    counter: Tokenizer,
    budget: int,
    terms: frozenset[str],
) -> tuple[str, int, dict[str, MapFile]]:
    resolver = ImportResolver.for_paths(extraction.files)
    defined = defined_names(extraction)
    ranks = summary.ranks
    loaded: dict[str, FileSymbols] = {}
    built: dict[tuple[str, frozenset[int]], MapFile] = {}

    def render(
        entries: list[tuple[float, str, int]], count: int
    ) -> tuple[str, int, dict[str, MapFile]]:
        files: dict[str, MapFile] = {}
        for path, shown in sorted(select_entries(entries, count).items()):
            key = (path, frozenset(shown))
            if key not in built:
                built[key] = map_file(loaded[path], shown, summary, resolver, defined)
            files[path] = built[key]
        text = render_map(list(files.values()))
        return text, counter.count(text) if text else 0, files

    def measure(
        entries: list[tuple[float, str, int]], count: int
    ) -> tuple[int, tuple[str, int, dict[str, MapFile]]]:
        made = render(entries, count)
        return made[1], made

    best: tuple[str, int, dict[str, MapFile]] = ("", 0, {})
    window = _FIRST_PROBE
    while True:
        batch = [p for p in ranked_paths[:window] if p not in loaded]
        # Calls to names nothing defines are dropped once per file, not once per probe.
        loaded.update(
            (path, known_calls(found, defined)) for path, found in extraction.symbols(batch).items()
        )
        entries: list[tuple[float, str, int]] = []
        for path in ranked_paths[:window]:
            if path in loaded:
                entries.extend(
                    map_entries(path, loaded[path], ranks.get(path, 0.0), summary, terms)
                )
        complete = window >= len(ranked_paths)
        floor = 0.0 if complete else ranks.get(ranked_paths[window], 0.0) * 1.001
        entries.sort(key=lambda e: (-e[0], e[1], e[2]))
        safe = len(entries) if complete else sum(1 for e in entries if e[0] >= floor)
        fitting, made = largest_fitting(partial(measure, entries), safe, budget)
        if made is not None:
            best = made
        if complete or fitting < safe:
            return best
        window *= 4


def defined_names(extraction: Extraction) -> frozenset[str]:
    """Every name some repository file defines (module level or in a class)."""
    # One split of all the names' text: no loop per file or per name in Python.
    files = extraction.files.values()
    texts = chain((item.defs_text for item in files), (item.members_text for item in files))
    return frozenset(" ".join(texts).split())
