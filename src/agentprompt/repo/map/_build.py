"""The repository map pipeline: discover, extract (cached, parallel), rank, fit, render.

:func:`build_map` returns a :class:`RepoMap` whose text fits the token budget exactly: the
ranked entries (a file's header, then its definitions by importance) are taken in order,
and a search over how many to include finds the largest prefix whose rendered map, legend
and all, still fits. :func:`annotate_files` gives ``tree --annotate`` its per-file notes.
"""

from __future__ import annotations

import contextlib
import json
import os
import posixpath
import threading
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentprompt.repo.discovery import (
    Discovery,
    DiscoveryOptions,
    GitListing,
    Remembered,
    UnreadableFile,
    discover,
    git_listing,
    is_generated_verdict,
    is_test_path,
    likely_kept,
    load_verdicts,
    read_text,
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
from agentprompt.repo.map._fit import fit_map
from agentprompt.repo.map._ranking import rank_extraction, rank_task_extraction
from agentprompt.repo.map.render import MapFile, file_annotation, needs_text_for_entry
from agentprompt.repo.rank import RankReason, RankSummary, TaskRanking, check_task
from agentprompt.repo.symbols import FileSymbols, language_for_path
from agentprompt.tokens import shared_counter

__all__ = [
    "MapOptions",
    "RankedFile",
    "RepoMap",
    "RepositoryRanking",
    "annotate_files",
    "build_map",
    "declared_entry_points",
    "discover_remembered",
    "file_note",
    "map_json",
    "rank_repository",
    "ranking_json",
    "reason_json",
    "remember_discovery",
]


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
    with _extracted(root, options, discovery, progress) as (found, extraction):
        return _rank_and_fit(found, extraction, options)


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


def rank_repository(
    root: Path,
    task: str,
    options: MapOptions | None = None,
    *,
    discovery: Discovery | None = None,
    progress: ProgressCallback | None = None,
) -> RepositoryRanking:
    """Every code file of ``root`` ordered by its relevance to ``task``, with the reasons;
    ``options`` say which cache, workers and focus files to use (its budget and task are
    not used). Raises :class:`~agentprompt.repo.rank.InvalidTask` for a task that
    cannot be ranked for, before anything is read."""
    check_task(task)
    options = options or MapOptions()
    with _extracted(root, options, discovery, progress) as (found, extraction):
        ranking, _summary = _task_ranking(found, extraction, options, task)
        return RepositoryRanking(
            ranking=ranking,
            parsed=extraction.parsed,
            problems=(*_skipped(found), *extraction.problems),
            warnings=extraction.all_warnings(),
        )


@contextlib.contextmanager
def _extracted(
    root: Path,
    options: MapOptions,
    discovery: Discovery | None,
    progress: ProgressCallback | None,
) -> Iterator[tuple[Discovery, Extraction]]:
    """``root``'s discovery (``discovery`` when given) and its extraction without details,
    through the symbol cache, which is closed when the block ends."""
    loaded = None
    head = None
    tokenizer = None
    try:
        if discovery is not None:
            found = discovery
        else:
            listing, head = _head_start(root, options)
            if head is not None:
                tokenizer = _load_tokenizer_meanwhile(options.model)
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
        if tokenizer is not None:
            tokenizer.join()
        remember_discovery(extraction.cache.path if extraction.cache else None, found, loaded)
        try:
            yield found, extraction
        finally:
            if extraction.cache is not None:
                extraction.cache.close()
    finally:
        if head is not None:
            head.close()


def _head_start(root: Path, options: MapOptions) -> tuple[GitListing | None, HeadStart | None]:
    """For a first map of a git work tree (no symbol cache yet), git's listing and a parse
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


def _load_tokenizer_meanwhile(model: str | None) -> threading.Thread:
    """Load ``model``'s tokenizer tables (a sixth of a second) in a thread while the main
    one mostly waits for the parse workers; the fitting then finds them loaded. A model
    that cannot be loaded is reported by the fitting's own call, not here."""

    def load() -> None:
        with contextlib.suppress(Exception):
            shared_counter(model)

    thread = threading.Thread(target=load, name="tokenizer", daemon=True)
    thread.start()
    return thread


def _focus(found: Discovery, options: MapOptions) -> tuple[str, ...]:
    """The focus and in-context files, relative to the root: what the ranking leans toward."""
    return tuple(_relative(found.root, p) for p in (*options.focus, *options.in_context))


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
    excluded = {_relative(found.root, p) for p in options.in_context}
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
        problems=(*_skipped(found), *extraction.problems),
        warnings=extraction.all_warnings(),
        ranks=ranks,
        sources={path: cached.hash for path, cached in extraction.files.items()},
        relevance=relevance,
        unknown_focus=tuple(
            p
            for p in (*options.focus, *options.in_context)
            if _relative(found.root, p) not in extraction.files
        ),
    )


_CONTENT_REASONS = ("UTF-8", "binary", "size cap", "read")


def _skipped(found: Discovery) -> list[str]:
    """Code files discovery left out for their content (encoding, size, binary, unreadable),
    and files of any type it left out as generated or minified by their content."""
    skipped = [
        f"{item.path}: {item.reason}"
        for item in found.excluded
        if is_generated_verdict(item.reason)
        or (
            language_for_path(item.path) is not None
            and any(word in item.reason for word in _CONTENT_REASONS)
        )
    ]
    return [*skipped, *found.problems]


def _relative(root: Path, path: str) -> str:
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


def map_json(result: RepoMap) -> dict[str, Any]:
    """The JSON form of a map: files shown (with symbols and imports), text, tokens, omitted."""
    files = []
    for item in result.files:
        entry = item.entry
        symbols = entry.symbols
        every = entry.shown is None or is_test_path(item.path)
        shown = range(len(symbols.symbols)) if every else sorted(entry.shown or ())
        files.append(
            {
                "path": item.path,
                "language": item.language,
                "rank": item.rank,
                "reasons": [reason_json(r) for r in item.reasons],
                "symbols": [
                    {
                        "kind": s.kind,
                        "name": s.name,
                        "line": s.line,
                        "end_line": s.end_line,
                        "signature": s.signature,
                        "parent": s.parent,
                        "refs": entry.symbol_refs.get(i, 0),
                    }
                    for i in shown
                    for s in (symbols.symbols[i],)
                ],
                "imports": [
                    {"module": i.module, "names": list(i.names), "local": i.local, "line": i.line}
                    for i in symbols.imports
                ],
            }
        )
    return {
        "files": files,
        "text": result.text,
        "tokens": result.tokens,
        "budget": result.budget,
        "tokenizer": result.tokenizer,
        "omitted": result.omitted,
        "problems": list(result.problems),
        "warnings": list(result.warnings),
    }


def reason_json(reason: RankReason) -> dict[str, Any]:
    """The JSON form of one reason behind a file's rank."""
    return {"signal": reason.signal, "detail": reason.detail, "weight": round(reason.weight, 6)}


def ranking_json(result: RepositoryRanking, top: int | None = None) -> dict[str, Any]:
    """The JSON form of a ranking: the ``top`` files (every file when None) with their
    position, score and reasons, and how many files were ranked."""
    files = result.ranking.files if top is None else result.ranking.files[:top]
    return {
        "files": [
            {
                "rank": position,
                "path": item.path,
                "score": round(item.score, 6),
                "reasons": [reason_json(r) for r in item.reasons],
            }
            for position, item in enumerate(files, 1)
        ],
        "total": len(result.ranking.files),
        "about_tests": result.ranking.about_tests,
        "parsed": result.parsed,
        "problems": list(result.problems),
        "warnings": list(result.warnings),
    }


def annotate_files(
    root: Path, discovery: Discovery, *, use_cache: bool = True, cache_path: Path | None = None
) -> dict[str, str]:
    """The bridge's per-file notes (``exports: ...``, ``main entry, imports: ...``) by path."""
    extraction = extract_repository(discovery, use_cache=use_cache, cache_path=cache_path)
    try:
        loaded = extraction.symbols(extraction.files)
    finally:
        if extraction.cache is not None:
            extraction.cache.close()
    declared = declared_entry_points(discovery.root, [f.path for f in discovery.files])
    notes: dict[str, str] = {}
    for path, symbols in loaded.items():
        note = file_note(discovery.root, symbols, declared=path in declared)
        if note:
            notes[path] = note
    return notes


def file_note(root: Path, entry: FileSymbols, *, declared: bool = False) -> str | None:
    """:func:`~agentprompt.repo.map.file_annotation` of ``entry``, reading the file's
    text (under ``root``) only when the entry-point rule needs it (a Python file that uses
    ``__name__``, say); an unreadable file is judged without its text. ``declared``: a
    project manifest names the file as a program (:func:`declared_entry_points`)."""
    text = None
    if not declared and needs_text_for_entry(entry):
        with contextlib.suppress(UnreadableFile):
            text = read_text(root, entry.path)
    return file_annotation(entry, text, declared=declared)


def declared_entry_points(root: Path, paths: Sequence[str]) -> frozenset[str]:
    """Those of ``paths`` that a project manifest among them names as a program: a
    ``pyproject.toml``'s ``[project.scripts]``/``[project.gui-scripts]`` (and Poetry's
    ``[tool.poetry.scripts]``) modules, a ``package.json``'s ``main`` and ``bin``. A manifest
    that cannot be read or parsed names nothing."""
    known = set(paths)
    found: set[str] = set()
    for path in paths:
        folder, _, name = path.rpartition("/")
        base = folder + "/" if folder else ""
        if name == "pyproject.toml":
            found.update(_python_scripts(root, path, base, known))
        elif name == "package.json":
            found.update(_package_programs(root, path, base, known))
    return frozenset(found)


def _python_scripts(root: Path, path: str, base: str, known: set[str]) -> list[str]:
    try:
        data = tomllib.loads(read_text(root, path))
    except (UnreadableFile, tomllib.TOMLDecodeError):
        return []
    project = data.get("project")
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    tables = [
        project.get("scripts") if isinstance(project, dict) else None,
        project.get("gui-scripts") if isinstance(project, dict) else None,
        poetry.get("scripts") if isinstance(poetry, dict) else None,
    ]
    found = []
    for table in tables:
        if not isinstance(table, dict):
            continue
        for target in table.values():
            if not isinstance(target, str):
                continue
            module = target.partition(":")[0].strip().replace(".", "/")
            for prefix in ("", "src/"):
                for candidate in (f"{module}.py", f"{module}/__init__.py"):
                    if base + prefix + candidate in known:
                        found.append(base + prefix + candidate)
    return found


def _package_programs(root: Path, path: str, base: str, known: set[str]) -> list[str]:
    try:
        data = json.loads(read_text(root, path))
    except (UnreadableFile, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    named: list[object] = [data.get("main")]
    programs = data.get("bin")
    named.extend(programs.values() if isinstance(programs, dict) else [programs])
    found = []
    for target in named:
        if not isinstance(target, str):
            continue
        clean = posixpath.normpath(target.strip()).removeprefix("./")
        for candidate in (clean, f"{clean}.js", f"{clean}/index.js"):
            if base + candidate in known:
                found.append(base + candidate)
                break
    return found
