"""The repository as the bridge shows it: the files, their notes and summaries, and contents.

Built on the repository context engine: discovery decides which files a prompt may show,
the symbol cache gives each code file's tree note (``exports: ...``) and its browse-mode
summary, and ranking orders files when the token budget is tight.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from agentprompt.bridge._viewmemo import NotesAndSummaries, remembered_view
from agentprompt.errors import UsageError
from agentprompt.repo.discovery import Discovery, DiscoveryOptions, RepoFile, discover, explain_in
from agentprompt.repo.discovery.patterns import filter_discovery
from agentprompt.repo.extraction import default_cache_path, extract_repository
from agentprompt.repo.map import browse_summary, declared_entry_points, file_annotation, file_note
from agentprompt.repo.rank import discover_remembered, remember_discovery
from agentprompt.repo.symbols import FileSymbols, extract_symbols

__all__ = [
    "Overlay",
    "RepoView",
    "UnknownFile",
    "overlay_view",
    "resolve_paths",
    "resolve_request",
    "view_repository",
]


Overlay = Mapping[str, str | None]
"""Files' texts as a reply's edits would leave them, by path (``None``: deleted): what a
dry run previews instead of the files on disk."""


class UnknownFile(UsageError):
    """A path given on the command line that the bridge cannot show."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"cannot put {path} in the prompt: {reason}; give a file it can show")
        self.path = path
        """The path given."""
        self.reason = reason
        """Why it cannot be shown."""


@dataclass(frozen=True, kw_only=True)
class RepoView:
    """The files a bridge prompt may show, with what the symbol engine says about them."""

    discovery: Discovery
    """The discovery the view was made from."""
    notes: Mapping[str, str] = field(default_factory=dict)
    """The note after each file in the tree (``exports: a, b, ...``), where there is one."""
    summaries: Mapping[str, str] = field(default_factory=dict)
    """Each code file's browse-mode summary (signatures and structure, no bodies)."""
    problems: tuple[str, ...] = ()
    """Files that could not be parsed, each with the reason."""
    listed: tuple[str, ...] | None = None
    """The files when they differ from the discovery's (an overlay's new and deleted files)."""
    entry_points: frozenset[str] = frozenset()
    """Files a project manifest names as programs (``pyproject.toml`` scripts,
    ``package.json`` ``main``/``bin``): their note says ``main entry``."""

    @property
    def root(self) -> Path:
        """The resolved repository root."""
        return self.discovery.root

    @property
    def paths(self) -> tuple[str, ...]:
        """Every file a prompt may show, sorted."""
        if self.listed is not None:
            return self.listed
        return tuple(f.path for f in self.discovery.files)


def view_repository(
    root: Path,
    *,
    summaries: bool = True,
    use_cache: bool = True,
    cache_path: Path | None = None,
    workers: int | None = None,
    include_generated: bool = False,
    includes: Sequence[str] = (),
    excludes: Sequence[str] = (),
    strict_patterns: bool = False,
    whole: Callable[[RepoView], bool] | None = None,
) -> RepoView:
    """The bridge's view of ``root``: discovery, and (with ``summaries``) every code file's
    note and summary from the symbol cache (``cache_path``, default the root's own),
    unless ``whole`` says, of the bare view (discovery only), that every file will be shown
    whole: then no file is parsed and the view has no notes and no summaries.
    Generated and minified files are left out unless ``include_generated``; ``includes``
    and ``excludes`` are gitignore patterns (see
    :func:`~agentprompt.repo.discovery.patterns.filter_discovery`; with
    ``strict_patterns`` one that matches no file is a usage error)."""
    options = DiscoveryOptions(include_generated=include_generated)
    if not summaries:
        return RepoView(
            discovery=filter_discovery(
                discover(root, options), includes, excludes, strict=strict_patterns
            )
        )
    found, loaded = discover_remembered(root, cache_path, use_cache=use_cache, options=options)
    found = filter_discovery(found, includes, excludes, strict=strict_patterns)
    if whole is not None and whole(RepoView(discovery=found)):
        # Every file is shown whole: no note in the tree and no summary is needed (the
        # model reads each file's text), so no file is parsed.
        if use_cache:
            remember_discovery(cache_path or default_cache_path(found.root), found, loaded)
        return RepoView(discovery=found)
    extraction = extract_repository(
        found,
        use_cache=use_cache,
        cache_path=cache_path,
        workers=workers,
        derive=_note_and_summary,
    )
    remember_discovery(extraction.cache.path if extraction.cache else None, found, loaded)

    def compute(paths: Iterable[str]) -> NotesAndSummaries:
        # Files parsed in this run had theirs made by the parse workers; the others'
        # symbols are decoded from the cache.
        made = extraction.derived
        wanted = list(paths)
        pairs = [(p, made[p]) for p in wanted if p in made]
        decoded = extraction.symbols(p for p in wanted if p not in made)
        pairs += [(p, _note_and_summary(found.root, e)) for p, e in decoded.items()]
        notes: dict[str, str] = {}
        texts: dict[str, str] = {}
        for path, (note, summary) in pairs:
            if note:
                notes[path] = note
            if summary is not None:
                texts[path] = summary
        return notes, texts

    declared = declared_entry_points(found.root, [f.path for f in found.files])
    try:
        notes, texts = remembered_view(extraction, compute)
        # Remembered notes depend on each file's content only; what the manifests declare
        # is applied afterwards, to the few files they name.
        if declared:
            for path, entry in extraction.symbols(sorted(declared)).items():
                note = file_annotation(entry, declared=True)
                if note:
                    notes[path] = note
    finally:
        if extraction.cache is not None:
            extraction.cache.close()
    return RepoView(
        discovery=found,
        notes=notes,
        summaries=texts,
        problems=tuple(extraction.problems),
        entry_points=declared,
    )


def _note_and_summary(root: Path, entry: FileSymbols) -> tuple[str | None, str | None]:
    """A file's note in the tree and, for a code file, its browse-mode summary (made where
    its symbols are: in the parse workers for the files a view parses)."""
    summary = browse_summary(entry) if entry.language is not None else None
    return file_note(root, entry), summary


def overlay_view(view: RepoView, overlay: Overlay) -> RepoView:
    """``view`` as it would be with ``overlay``'s texts on disk: deleted files gone, new
    files listed, and the notes and summaries of every changed file made from its new text
    (by the same symbol engine, so they match what a later view of the written files says)."""
    if not overlay:
        return view
    paths = {p for p in view.paths if overlay.get(p, "") is not None}
    known = set(paths)
    paths |= {p for p, text in overlay.items() if text is not None and _may_list(view, p, known)}
    notes = {p: n for p, n in view.notes.items() if p not in overlay}
    summaries = {p: s for p, s in view.summaries.items() if p not in overlay}
    for path, text in overlay.items():
        if text is None or path not in paths:
            continue
        entry = extract_symbols(path, text.encode("utf-8"))
        if entry.problem is not None:
            continue
        note = file_annotation(entry, text, declared=path in view.entry_points)
        if note:
            notes[path] = note
        if entry.language is not None:
            summaries[path] = browse_summary(entry)
    return replace(view, listed=tuple(sorted(paths)), notes=notes, summaries=summaries)


def _may_list(view: RepoView, path: str, known: set[str]) -> bool:
    """Whether a file the overlay creates would be listed: not when discovery leaves out
    a folder it is in (an ignored ``build/``, say)."""
    if path in known:
        return True
    found = explain_in(view.discovery, path)
    return isinstance(found, RepoFile) or found.reason == "does not exist"


def _normal(path: str) -> str:
    text = path.strip().strip("`").strip()
    while text.startswith("./"):
        text = text[2:]
    return str(PurePosixPath(text)) if text else text


def resolve_request(view: RepoView, path: str) -> tuple[str | None, str]:
    """A requested path as a file of the view (``(path, "")``), or ``(None, reason)``."""
    wanted = _normal(path)
    if wanted in set(view.paths):
        return wanted, ""
    if view.listed is not None and wanted in {f.path for f in view.discovery.files}:
        return None, "does not exist"
    found = explain_in(view.discovery, wanted)
    if isinstance(found, RepoFile):
        return found.path, ""
    return None, found.reason


def resolve_paths(view: RepoView, paths: Iterable[str]) -> tuple[str, ...]:
    """Command-line paths (files, or folders for every file under them) as files of the
    view; :class:`UnknownFile` for one that names nothing the prompt may show."""
    known = view.paths
    chosen: list[str] = []
    for given in paths:
        wanted = _normal(
            str(Path(given).resolve().relative_to(view.root))
            if Path(given).is_absolute()
            else given
        )
        if wanted in (".", ""):
            chosen.extend(known)
            continue
        under = [p for p in known if p.startswith(wanted.rstrip("/") + "/")]
        if under:
            chosen.extend(under)
            continue
        path, reason = resolve_request(view, wanted)
        if path is None:
            raise UnknownFile(given, reason)
        chosen.append(path)
    return tuple(dict.fromkeys(chosen))
