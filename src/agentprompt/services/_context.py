"""The repository context service: a repository's files and definitions ranked for a task,
its symbol map, its directory tree, and chosen files read within a token budget.

It is the one place these are written for every front door: the command line (``rank``,
``rank --symbols``, ``map``, ``tree``), the page (``rank_files``, ``rank_symbols``,
``get_tree``) and the MCP server (``rank_files``, ``rank_symbols``, ``repo_map``,
``read_context``) call it with plain values and present its
results; the JSON a door gives is the result's :meth:`to_json` where two doors give the
same shape. It prints nothing and names no flag.

Errors: the engines' own pass through (:class:`~agentprompt.repo.rank.InvalidTask` for a
task that cannot be ranked for, :class:`~agentprompt.bridge.UnknownFile` is worded as a
:class:`~agentprompt.errors.UsageError` naming ``paths``); a path outside the root or an
empty request is a :class:`~agentprompt.errors.UsageError` naming the input at fault.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from agentprompt.errors import UsageError
from agentprompt.repo.discovery import (
    Discovery,
    DiscoveryOptions,
    Exclusion,
    RepoFile,
    discover,
    explain,
    is_test_path,
    read_texts,
)
from agentprompt.repo.map import (
    MapOptions,
    RepoMap,
    TreeNode,
    build_map,
    build_tree,
    count_file_tokens,
    render_tree,
)
from agentprompt.repo.rank import (
    RankOptions,
    RankReason,
    RelevantFile,
    RelevantSymbol,
    rank_repository,
    rank_symbols,
)
from agentprompt.services._workspace import Workspace
from agentprompt.tokens import shared_counter

if TYPE_CHECKING:
    from agentprompt.repo.secrets import SecretFinding

__all__ = [
    "ContextMap",
    "FileTree",
    "LeftOutFile",
    "RankedFiles",
    "RankedSymbols",
    "ReadFiles",
    "RepositoryContext",
    "ShownFile",
]

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` as files are parsed."""

PhaseProgress = Callable[[str, int, int | None], None]
"""Told ``(phase, done, total)`` as a tree is made: ``reading symbols`` (no total), then
``counting tokens`` a few hundred files at a time."""

ReadMode = Literal["full", "signatures"]
"""How a file is read: its whole text, or its signatures (a code file's outline)."""

_COUNT_CHUNK = 200
"""Files counted between two progress reports."""


def _left_out_json(left_out: Sequence[Exclusion]) -> list[dict[str, str]]:
    """Files left out, as JSON: each one's path and reason."""
    return [{"path": e.path, "reason": e.reason} for e in left_out]


def _reason_json(reason: RankReason) -> dict[str, Any]:
    """The JSON form of one reason behind a file's rank."""
    return {"signal": reason.signal, "detail": reason.detail, "weight": round(reason.weight, 6)}


@dataclass(frozen=True, kw_only=True)
class RankedFiles:
    """The files most relevant to a task, most relevant first."""

    files: tuple[RelevantFile, ...]
    """The files asked for (the top ones), each with its score and reasons."""
    total: int
    """How many files were ranked."""
    about_tests: bool
    """The task is about tests (so tests were not demoted)."""
    parsed: int
    """Files parsed in this run (the rest came from the cache)."""
    problems: tuple[str, ...] = ()
    """Files skipped, each with the reason."""
    warnings: tuple[str, ...] = ()
    """What went wrong with the symbol cache (the ranking was still made)."""
    left_out: tuple[Exclusion, ...] = ()
    """Files left out as generated or binary, each with the reason."""

    def to_json(self) -> dict[str, Any]:
        """The files with their position, score and reasons, and how many were ranked: the
        shape every door gives."""
        return {
            "files": [
                {
                    "rank": position,
                    "path": item.path,
                    "score": round(item.score, 6),
                    "reasons": [_reason_json(r) for r in item.reasons],
                }
                for position, item in enumerate(self.files, 1)
            ],
            "total": self.total,
            "about_tests": self.about_tests,
            "parsed": self.parsed,
            "problems": list(self.problems),
            "warnings": list(self.warnings),
            "left_out": _left_out_json(self.left_out),
        }


@dataclass(frozen=True, kw_only=True)
class RankedSymbols:
    """The functions and classes of a task's best files most relevant to it, most
    relevant first."""

    symbols: tuple[RelevantSymbol, ...]
    """The definitions asked for (the top ones), each with its lines, score and reasons."""
    files: int
    """How many of the best files their definitions were ranked from (at most)."""

    def to_json(self) -> dict[str, Any]:
        """The definitions with their position, file, lines, score and reasons: the shape
        every door gives."""
        return {
            "symbols": [
                {
                    "rank": position,
                    "path": item.path,
                    "name": item.name,
                    "kind": item.kind,
                    "start": item.start,
                    "end": item.end,
                    "score": round(item.score, 6),
                    "reasons": [_reason_json(r) for r in item.reasons],
                }
                for position, item in enumerate(self.symbols, 1)
            ],
            "files": self.files,
        }


@dataclass(frozen=True, kw_only=True)
class ContextMap:
    """A repository's symbol map, fitted to its budget."""

    map: RepoMap
    """The map: its text, the files shown, what was left out."""

    def to_json(self) -> dict[str, Any]:
        """The map in full: each file shown with its rank, reasons, the symbols shown (every
        one of a test file) and its imports; the text, tokens, budget and what was left
        out."""
        result = self.map
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
                    "reasons": [_reason_json(r) for r in item.reasons],
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
                        {
                            "module": i.module,
                            "names": list(i.names),
                            "local": i.local,
                            "line": i.line,
                        }
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
            "left_out": _left_out_json(result.left_out),
        }


@dataclass(frozen=True, kw_only=True)
class FileTree:
    """The files a prompt may show, as a directory tree."""

    discovery: Discovery
    """What discovery found: the files, and what it left out and why."""
    tree: TreeNode
    """The tree of the files, with their notes and token counts when asked for."""
    tokens: Mapping[str, int] | None = None
    """Each file's token count (None: not counted)."""
    tokenizer: str | None = None
    """The encoding the files were counted with (None: not counted)."""
    problems: tuple[str, ...] = ()
    """Discovery's problems, then the files that could not be read to be counted."""

    @property
    def text(self) -> str:
        """The tree as the model is shown it."""
        return render_tree(self.tree)

    def tree_json(self) -> dict[str, Any]:
        """The tree as JSON-ready data: ``{"name", "path", "type", "children" | ...}``, each
        file with its note and tokens when it has them, each folder with its tokens."""
        return _node_json(self.tree)


def _node_json(node: TreeNode) -> dict[str, Any]:
    out: dict[str, Any] = {"name": node.name, "path": node.path}
    out["type"] = "dir" if node.is_dir else "file"
    if node.annotation is not None:
        out["annotation"] = node.annotation
    if node.tokens is not None:
        out["tokens"] = node.tokens
    if node.is_dir:
        out["children"] = [_node_json(c) for c in node.children]
    return out


@dataclass(frozen=True, kw_only=True)
class ShownFile:
    """A file read within the budget."""

    path: str
    """The file, relative to the root."""
    shown: ReadMode
    """What of it is shown: its whole text or its signatures."""
    tokens: int
    """The tokens of what is shown."""
    text: str
    """What is shown."""


@dataclass(frozen=True, kw_only=True)
class LeftOutFile:
    """A file asked for that is shown only in part, or not at all."""

    path: str
    """The file, relative to the root."""
    kept: Literal["signatures", "path"]
    """What is left of it: its signatures, or only its path."""
    reason: str
    """Why it was cut."""


@dataclass(frozen=True, kw_only=True)
class ReadFiles:
    """Files read for a model within a token budget, with what was cut and why."""

    mode: ReadMode
    """How the files were asked for."""
    tokenizer: str
    """The encoding the tokens were counted with."""
    tokens: int
    """The tokens of everything shown."""
    budget: int
    """The budget the files were fitted to."""
    files: tuple[ShownFile, ...]
    """The files shown, in the order asked for."""
    cut: tuple[LeftOutFile, ...]
    """The files shown only in part or not at all."""
    withheld: tuple[SecretFinding, ...]
    """The likely secrets that kept a file back (kind and place, never the value)."""
    unmatched: tuple[str, ...]
    """The globs that selected no file."""

    def to_json(self) -> dict[str, Any]:
        """The files shown, those cut, the secrets that held files back and the globs that
        matched nothing."""
        return {
            "mode": self.mode,
            "tokenizer": self.tokenizer,
            "tokens": self.tokens,
            "budget": self.budget,
            "files": [
                {"path": f.path, "shown": f.shown, "tokens": f.tokens, "text": f.text}
                for f in self.files
            ],
            "cut": [{"path": c.path, "kept": c.kept, "reason": c.reason} for c in self.cut],
            "withheld": [{"path": f.path, "line": f.line, "kind": f.kind} for f in self.withheld],
            "unmatched": list(self.unmatched),
        }


class RepositoryContext:
    """What a model is shown of a repository: its files ranked for a task, its symbol map,
    its directory tree, and files read within a budget."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        """The repository root and what is kept for it."""

    def rank(
        self,
        task: str,
        top: int | None = None,
        *,
        focus: Sequence[str] = (),
        include_generated: bool = False,
        use_cache: bool = True,
        progress: Progress | None = None,
    ) -> RankedFiles:
        """The ``top`` files (every file when None) most relevant to ``task``, leaning
        toward the ``focus`` files. Raises :class:`~agentprompt.repo.rank.InvalidTask` for a
        task that cannot be ranked for, before anything is read."""
        options = RankOptions(
            focus=tuple(focus),
            use_cache=use_cache,
            discovery=DiscoveryOptions(include_generated=include_generated),
        )
        result = rank_repository(self.workspace.root, task, options, progress=progress)
        ranking = result.ranking
        return RankedFiles(
            files=ranking.files if top is None else ranking.files[:top],
            total=len(ranking.files),
            about_tests=ranking.about_tests,
            parsed=result.parsed,
            problems=result.problems,
            warnings=result.warnings,
            left_out=result.left_out,
        )

    def rank_symbols(
        self,
        task: str,
        top: int | None = 30,
        *,
        files: int = 10,
        focus: Sequence[str] = (),
        include_generated: bool = False,
        use_cache: bool = True,
        progress: Progress | None = None,
    ) -> RankedSymbols:
        """The ``top`` functions and classes (every one ranked when None) most relevant to
        ``task``, from the ``files`` files most relevant to it (leaning toward the
        ``focus`` files). Raises :class:`~agentprompt.repo.rank.InvalidTask` for a task
        that cannot be ranked for, before anything is read."""
        options = RankOptions(
            focus=tuple(focus),
            use_cache=use_cache,
            discovery=DiscoveryOptions(include_generated=include_generated),
        )
        found = rank_symbols(
            self.workspace.root, task, options, files=files, limit=top, progress=progress
        )
        return RankedSymbols(symbols=found, files=files)

    def map(
        self,
        *,
        max_tokens: int | None = None,
        task: str | None = None,
        focus: Sequence[str] = (),
        mentions: Sequence[str] = (),
        in_context: Sequence[str] = (),
        model: str | None = None,
        include_generated: bool = False,
        use_cache: bool = True,
        progress: Progress | None = None,
    ) -> ContextMap:
        """The symbol map fitted to ``max_tokens`` (default 1024), ranked for ``task`` when
        given and toward the ``focus`` files and ``mentions``, without the ``in_context``
        files (the model has their text), counted with ``model``'s tokenizer."""
        defaults = MapOptions()
        options = MapOptions(
            tokens=max_tokens if max_tokens is not None else defaults.tokens,
            focus=tuple(focus),
            mentions=tuple(mentions),
            task=task,
            in_context=tuple(in_context),
            model=model,
            use_cache=use_cache,
            discovery=DiscoveryOptions(include_generated=include_generated),
        )
        return ContextMap(map=build_map(self.workspace.root, options, progress=progress))

    def tree(
        self,
        options: DiscoveryOptions | None = None,
        *,
        annotate: bool = False,
        count_tokens: bool = False,
        model: str | None = None,
        progress: PhaseProgress | None = None,
    ) -> FileTree:
        """The files discovery keeps (by ``options``) as a tree, each with its note (what
        it exports or starts) when ``annotate``, and its tokens for ``model``'s tokenizer
        when ``count_tokens``."""
        found = discover(self.workspace.root, options)
        problems = list(found.problems)
        notes = None
        if annotate:
            if progress is not None:
                progress("reading symbols", 0, None)
            # Imported on first use (start-up speed): the notes load tree-sitter.
            from agentprompt.repo.map import annotate_files

            notes = annotate_files(found.root, found)
        counts = None
        tokenizer = None
        if count_tokens:
            counter = shared_counter(model)
            tokenizer = counter.name
            paths = [f.path for f in found.files]
            counts = {}
            for start in range(0, len(paths), _COUNT_CHUNK):
                if progress is not None:
                    progress("counting tokens", start, len(paths))
                got, bad = count_file_tokens(
                    found.root, paths[start : start + _COUNT_CHUNK], counter
                )
                counts.update(got)
                problems.extend(bad)
            if progress is not None:
                progress("counting tokens", len(paths), len(paths))
        tree = build_tree((f.path for f in found.files), annotations=notes, tokens=counts)
        return FileTree(
            discovery=found,
            tree=tree,
            tokens=counts,
            tokenizer=tokenizer,
            problems=tuple(problems),
        )

    def explain(self, path: str, options: DiscoveryOptions | None = None) -> RepoFile | Exclusion:
        """Why ``path`` (relative to the root, or absolute) is among the files a prompt may
        show (its :class:`~agentprompt.repo.discovery.RepoFile`) or left out (an
        :class:`~agentprompt.repo.discovery.Exclusion` with the reason)."""
        return explain(self.workspace.root, path, options)

    def read(
        self,
        paths: Sequence[str],
        globs: Sequence[str] = (),
        *,
        mode: ReadMode = "full",
        max_tokens: int,
    ) -> ReadFiles:
        """The files named by ``paths`` and those ``globs`` select (gitignore patterns,
        the same engine as every door's include and exclude; a glob matching nothing is
        listed as unmatched), in that order, in full or as their signatures, each with its
        exact token count; files with a likely secret are withheld; the last files are cut
        first to fit ``max_tokens`` (full text, then signatures, then the path), and every
        cut is reported with its reason."""
        if not paths and not globs:
            raise UsageError("give the files to read (paths or globs, at least one)", input="paths")
        # Imported on first use (start-up speed): ranking and maps need neither the bridge's
        # view nor the secret scanner.
        from agentprompt.bridge.view import UnknownFile, resolve_paths
        from agentprompt.edits.paths import check_inside
        from agentprompt.repo.secrets import screen_texts

        root = self.workspace.root
        check_inside(root, paths, input="paths")
        view = self.workspace.view()
        try:
            chosen = list(resolve_paths(view, paths))
        except UnknownFile as exc:
            raise UsageError(str(exc), input="paths") from None
        globbed, unmatched = _glob_selection(view.paths, globs)
        order = list(dict.fromkeys([*chosen, *globbed]))
        texts, unreadable = read_texts(root, order) if mode == "full" else ({}, {})
        if mode == "signatures":
            texts = {p: view.summaries[p] for p in order if p in view.summaries}
        screen = screen_texts(texts.items())
        held = set(screen.withheld)
        counter = self.workspace.counter
        left = max_tokens
        files: list[ShownFile] = []
        cut: list[LeftOutFile] = []
        for path in order:
            if path in held:
                cut.append(LeftOutFile(path=path, kept="path", reason="holds a likely secret"))
                continue
            if path in unreadable:
                cut.append(LeftOutFile(path=path, kept="path", reason=unreadable[path]))
                continue
            if path not in texts:
                reason = "not a code file, it has no signatures; read it in full mode"
                cut.append(LeftOutFile(path=path, kept="path", reason=reason))
                continue
            shown: list[tuple[ReadMode, str]] = [(mode, texts[path])]
            if mode == "full" and path in view.summaries:
                shown.append(("signatures", view.summaries[path]))
            for level, text in shown:
                tokens = counter.count(text)
                if tokens <= left:
                    files.append(ShownFile(path=path, shown=level, tokens=tokens, text=text))
                    left -= tokens
                    if level != mode:
                        reason = f"its full text did not fit the budget of {max_tokens} tokens"
                        cut.append(LeftOutFile(path=path, kept="signatures", reason=reason))
                    break
            else:
                reason = f"its {mode} text did not fit the budget of {max_tokens} tokens"
                cut.append(LeftOutFile(path=path, kept="path", reason=reason))
        return ReadFiles(
            mode=mode,
            tokenizer=counter.name,
            tokens=max_tokens - left,
            budget=max_tokens,
            files=tuple(files),
            cut=tuple(cut),
            withheld=tuple(screen.findings),
            unmatched=tuple(unmatched),
        )


def _glob_selection(paths: Sequence[str], globs: Sequence[str]) -> tuple[list[str], list[str]]:
    """The files among ``paths`` each glob selects, in their order, and the globs that
    select none."""
    from agentprompt.repo.discovery.patterns import matching_files

    found: list[str] = []
    unmatched: list[str] = []
    for glob in globs:
        hits = matching_files(paths, glob, input="globs", strict=False)
        if not hits:
            unmatched.append(glob)
        found.extend(hits)
    return found, unmatched
