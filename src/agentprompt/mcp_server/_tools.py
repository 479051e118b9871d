"""What each tool does, as a plain function over the repository root.

Each takes its checked arguments, calls the runtime that does the work (the task ranking,
the symbol map, the bridge's prompt builder, the edit engine, the tokenizer) as
``agentprompt rank``, ``map``, ``pack`` and ``apply`` do, and returns the JSON-ready data
its shape in :mod:`agentprompt.mcp_server._results` declares. A problem with an argument is
a :class:`BadArgument` naming it; the server turns every
:class:`~agentprompt.errors.AgentPromptError` into an error result.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Literal

from agentprompt.bridge.fitting import BudgetTooSmall
from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.state import BridgeState
from agentprompt.bridge.text import default_lang
from agentprompt.bridge.view import RepoView, UnknownFile, resolve_paths, view_repository
from agentprompt.edits.apply import ApplyOptions, apply_reply
from agentprompt.edits.paths import UnsafePath, resolve_inside
from agentprompt.errors import UsageError
from agentprompt.mcp_server._arguments import DEFAULT_READ_TOKENS
from agentprompt.mcp_server._results import (
    CountTokensResult,
    EditsResult,
    PackResult,
    RankFilesResult,
    ReadContextResult,
    RepoMapResult,
    WithheldFile,
)
from agentprompt.repo.discovery.wildmatch import InvalidPattern, translate
from agentprompt.repo.rank import InvalidTask
from agentprompt.repo.secrets import SecretFinding
from agentprompt.services import RepositoryContext, Workspace
from agentprompt.tokens import shared_counter

__all__ = [
    "BadArgument",
    "Progress",
    "apply_edits",
    "count_tokens",
    "pack",
    "preview_edits",
    "rank_files",
    "read_context",
    "repo_map",
]

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` as files are parsed."""


class BadArgument(UsageError):
    """A tool argument that cannot be used; the message names it and says what to give."""

    def __init__(self, argument: str, problem: str) -> None:
        super().__init__(f'argument "{argument}": {problem}')
        self.argument = argument
        """The argument's name."""


def _safe(root: Path, paths: Sequence[str], argument: str) -> None:
    """Refuse any of ``paths`` the edit engine would refuse to write (``..``, an absolute
    path, a symlink out of the root, ``.git``): nothing outside the root is ever read."""
    cache: dict[str, str] = {}
    for path in paths:
        if not path.strip():
            raise BadArgument(argument, "an empty path; give paths relative to the root")
        try:
            resolve_inside(root, path, cache)
        except UnsafePath as exc:
            raise BadArgument(argument, str(exc)) from None


def _task(task: str) -> str:
    if not task.strip():
        raise BadArgument("task", "it is empty; say what the task is")
    return task


def rank_files(root: Path, task: str, top: int, progress: Progress | None) -> RankFilesResult:
    """The ``top`` files most relevant to ``task``, as ``agentprompt rank --json`` gives
    them."""
    try:
        result = RepositoryContext(Workspace(root)).rank(_task(task), top, progress=progress)
    except InvalidTask as exc:
        raise BadArgument("task", str(exc)) from None
    data: RankFilesResult = result.to_json()  # type: ignore[assignment]
    return data


def repo_map(
    root: Path,
    task: str | None,
    max_tokens: int,
    focus: Sequence[str],
    in_context: Sequence[str],
    progress: Progress | None,
) -> RepoMapResult:
    """The symbol map fitted to ``max_tokens``, ranked for ``task`` when given, toward
    ``focus``, without the ``in_context`` files."""
    _safe(root, focus, "focus")
    _safe(root, in_context, "in_context")
    try:
        fitted = RepositoryContext(Workspace(root)).map(
            max_tokens=max_tokens,
            task=_task(task) if task is not None else None,
            focus=focus,
            in_context=in_context,
            progress=progress,
        )
    except InvalidTask as exc:
        raise BadArgument("task", str(exc)) from None
    result = fitted.map
    return {
        "text": result.text,
        "tokens": result.tokens,
        "budget": result.budget,
        "tokenizer": result.tokenizer,
        "files": [{"path": f.path, "rank": round(f.rank, 6)} for f in result.files],
        "omitted": result.omitted,
        "unknown_focus": list(result.unknown_focus),
        "problems": list(result.problems),
        "warnings": list(result.warnings),
    }


def _glob_rule(glob: str) -> tuple[re.Pattern[str], bool]:
    """A gitignore-style glob as a regular expression and whether it is anchored (holds a
    ``/``: matched against the path from the root; else against any one component)."""
    try:
        rule = translate(glob)
    except InvalidPattern as exc:
        raise BadArgument("globs", f"{glob!r} is not a valid pattern ({exc})") from None
    if rule is None or rule.negated:
        raise BadArgument(
            "globs", f"{glob!r} selects nothing; give a pattern such as src/**/*.py or *.md"
        )
    return re.compile(rule.regex), rule.anchored


def _matches(path: str, pattern: re.Pattern[str], anchored: bool) -> bool:
    """Whether ``path`` or a folder it is in matches, as git matches an ignore rule."""
    parts = path.split("/")
    if anchored:
        return any(pattern.fullmatch("/".join(parts[:n])) for n in range(1, len(parts) + 1))
    return any(pattern.fullmatch(part) for part in parts)


def _globbed(view: RepoView, globs: Iterable[str]) -> tuple[list[str], list[str]]:
    """The view's files matching each glob, in the view's order, and the globs that
    matched none."""
    found: list[str] = []
    unmatched: list[str] = []
    for glob in globs:
        pattern, anchored = _glob_rule(glob)
        hits = [p for p in view.paths if _matches(p, pattern, anchored)]
        if not hits:
            unmatched.append(glob)
        found.extend(hits)
    return found, unmatched


def _withheld(findings: Iterable[SecretFinding]) -> list[WithheldFile]:
    return [{"path": f.path, "line": f.line, "kind": f.kind} for f in findings]


def read_context(
    root: Path,
    paths: Sequence[str],
    globs: Sequence[str],
    mode: Literal["full", "signatures"],
    max_tokens: int | None,
) -> ReadContextResult:
    """The files named by ``paths`` and ``globs`` (in that order), in full or as their
    signatures, each with its exact token count; files with a likely secret are withheld;
    with a budget the last files are cut first (full text, then signatures, then the
    path), and every cut is reported with its reason."""
    budget = max_tokens if max_tokens is not None else DEFAULT_READ_TOKENS
    try:
        result = RepositoryContext(Workspace(root)).read(
            paths, globs, mode=mode, max_tokens=budget, select_globs=_globbed
        )
    except UsageError as exc:
        if exc.input is None:
            raise
        # The service names its inputs plainly; a client is told them as its arguments.
        raise UsageError(exc.worded(lambda name: f'argument "{name}"')) from None
    data: ReadContextResult = result.to_json()  # type: ignore[assignment]
    return data


def pack(
    root: Path,
    task: str,
    max_tokens: int | None,
    include: Sequence[str],
    exclude: Sequence[str],
) -> PackResult:
    """The bridge's first-round prompt for ``task``: every file's outline, or the
    ``include`` files in full; files matching ``exclude`` left out; fitted to
    ``max_tokens``. No bridge session is started or changed."""
    _safe(root, include, "include")
    view = view_repository(root)
    if exclude:
        rules = [_exclude_rule(p) for p in exclude]
        kept = tuple(p for p in view.paths if not any(_matches(p, *r) for r in rules))
        view = replace(view, listed=kept)
    try:
        files = resolve_paths(view, include)
    except UnknownFile as exc:
        raise BadArgument("include", str(exc)) from None
    state = BridgeState.starting(
        _task(task), files, mode=None, lang=default_lang(os.environ), max_tokens=max_tokens
    )
    try:
        prompt = build_prompt(root, state, view=view, split=False)
    except BudgetTooSmall as exc:
        raise BadArgument(
            "max_tokens",
            f"{exc.budget} is too small: with every file shown only by its path the prompt "
            f"still takes {exc.needed} tokens; give more, or exclude files",
        ) from None
    return {
        "text": prompt.text,
        "tokens": prompt.tokens,
        "tokenizer": prompt.tokenizer,
        "mode": "edit" if state.mode == "edit" else "browse",
        "in_full": list(prompt.shown_in_full),
        "left_out": [{"path": p, "kept": k} for p, k in prompt.left_out],
        "withheld": _withheld(prompt.withheld),
    }


def _exclude_rule(pattern: str) -> tuple[re.Pattern[str], bool]:
    try:
        return _glob_rule(pattern)
    except BadArgument as exc:
        raise BadArgument("exclude", str(exc).split(": ", 1)[1]) from None


def _edits(
    root: Path, reply: str, dialect: str, *, dry_run: bool, progress: Progress | None
) -> EditsResult:
    report = apply_reply(root, reply, dialect, ApplyOptions(dry_run=dry_run, progress=progress))
    if report.empty:
        raise BadArgument(
            "reply",
            "it holds no edit blocks, file requests or other markers, so nothing can be "
            'applied; check the "dialect", or send the whole reply',
        )
    data: EditsResult = {"ok": report.ok, **report.to_json()}  # type: ignore[typeddict-item]
    return data


def preview_edits(
    root: Path, reply: str, dialect: str, progress: Progress | None = None
) -> EditsResult:
    """What applying ``reply`` would do (the diff, each edit's outcome, feedback for the
    failed ones), with nothing written."""
    return _edits(root, reply, dialect, dry_run=True, progress=progress)


def apply_edits(
    root: Path, reply: str, dialect: str, progress: Progress | None = None
) -> EditsResult:
    """Apply ``reply``'s edits as one transaction, as ``agentprompt apply`` does: all of
    them or (``ok`` false) none."""
    return _edits(root, reply, dialect, dry_run=False, progress=progress)


def count_tokens(text: str, model: str | None) -> CountTokensResult:
    """The token count of ``text`` for ``model``'s encoding (default ``o200k_base``)."""
    counter = shared_counter(model)
    return {"tokens": counter.count(text), "tokenizer": counter.name, "exact": counter.exact}
