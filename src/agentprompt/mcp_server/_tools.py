"""What each tool does, as a plain function over the repository root or the server's
workspace.

Each takes its checked arguments, calls what does the work (the task ranking, the symbol
map, the bridge session service's prompt and apply, the tokenizer) as ``agentprompt rank``,
``map``, ``pack`` and ``apply`` do, and returns the JSON-ready data its shape in
:mod:`agentprompt.mcp_server._results` declares. A problem with an argument is a
:class:`~agentprompt.errors.UsageError` whose ``input`` is the argument's name; the server
words every :class:`~agentprompt.errors.AgentPromptError` as an error result naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from agentprompt.bridge import UnknownFile
from agentprompt.budget import BudgetExceeded
from agentprompt.edits.paths import check_inside
from agentprompt.errors import UsageError
from agentprompt.mcp_server._arguments import DEFAULT_READ_TOKENS
from agentprompt.mcp_server._results import (
    CountTokensResult,
    EditsResult,
    PackResult,
    RankFilesResult,
    RankSymbolsResult,
    ReadContextResult,
    RepoMapResult,
    WithheldFile,
)
from agentprompt.repo.rank import InvalidTask
from agentprompt.repo.secrets import SecretFinding
from agentprompt.services import (
    BridgeSessions,
    PromptChoices,
    ReplyChoices,
    RepositoryContext,
    StartRequest,
    Workspace,
)
from agentprompt.tokens import shared_counter

__all__ = [
    "Progress",
    "apply_edits",
    "count_tokens",
    "pack",
    "preview_edits",
    "rank_files",
    "rank_symbols",
    "read_context",
    "repo_map",
]

Progress = Callable[[int, int], None]
"""Told ``(done, total)`` as files are parsed."""


def _about(argument: str, exc: UsageError) -> UsageError:
    """``exc`` as a problem with the tool argument ``argument`` (an engine names the input
    at fault its own way, or not at all)."""
    return UsageError(exc.problem, input=argument, fix=exc.fix)


def _task(task: str) -> str:
    if not task.strip():
        raise UsageError("it is empty", input="task", fix="say what the task is")
    return task


def rank_files(
    workspace: Workspace, task: str, top: int, progress: Progress | None
) -> RankFilesResult:
    """The ``top`` files most relevant to ``task``, as ``agentprompt rank --json`` gives
    them."""
    try:
        result = RepositoryContext(workspace).rank(_task(task), top, progress=progress)
    except InvalidTask as exc:
        raise _about("task", exc) from None
    data: RankFilesResult = result.to_json()  # type: ignore[assignment]
    return data


def rank_symbols(
    workspace: Workspace, task: str, top: int, progress: Progress | None
) -> RankSymbolsResult:
    """The ``top`` functions and classes most relevant to ``task``, as ``agentprompt rank
    --symbols --json`` gives them."""
    try:
        result = RepositoryContext(workspace).rank_symbols(_task(task), top, progress=progress)
    except InvalidTask as exc:
        raise _about("task", exc) from None
    data: RankSymbolsResult = result.to_json()  # type: ignore[assignment]
    return data


def repo_map(
    workspace: Workspace,
    task: str | None,
    max_tokens: int,
    focus: Sequence[str],
    in_context: Sequence[str],
    progress: Progress | None,
) -> RepoMapResult:
    """The symbol map fitted to ``max_tokens``, ranked for ``task`` when given, toward
    ``focus``, without the ``in_context`` files."""
    check_inside(workspace.root, focus, input="focus")
    check_inside(workspace.root, in_context, input="in_context")
    try:
        fitted = RepositoryContext(workspace).map(
            max_tokens=max_tokens,
            task=_task(task) if task is not None else None,
            focus=focus,
            in_context=in_context,
            progress=progress,
        )
    except InvalidTask as exc:
        raise _about("task", exc) from None
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


def _withheld(findings: Iterable[SecretFinding]) -> list[WithheldFile]:
    return [{"path": f.path, "line": f.line, "kind": f.kind} for f in findings]


def read_context(
    workspace: Workspace,
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
    result = RepositoryContext(workspace).read(paths, globs, mode=mode, max_tokens=budget)
    data: ReadContextResult = result.to_json()  # type: ignore[assignment]
    return data


def pack(
    workspace: Workspace,
    task: str,
    max_tokens: int | None,
    files: Sequence[str],
    exclude: Sequence[str],
    *,
    chat: str | None = None,
) -> PackResult:
    """The bridge's first-round prompt for ``task``: every file's outline, or the
    ``files`` in full; files matching the gitignore patterns ``exclude`` left out (one
    matching no file is refused); fitted to ``max_tokens``, else to the ``chat`` preset's
    budget, else to the project's default. No bridge session is started or changed."""
    check_inside(workspace.root, files, input="files")
    request = StartRequest(
        task=task,
        paths=tuple(files),
        excludes=tuple(exclude),
        choices=PromptChoices(max_tokens=max_tokens, chat=chat),
    )
    try:
        packed = BridgeSessions(workspace).start(request, save=False, split=False)
    except UnknownFile as exc:
        raise _about("files", exc) from None
    except BudgetExceeded as exc:
        raise UsageError(
            f"{exc.budget} is too small: with every file shown only by its path the prompt "
            f"still takes {exc.needed} tokens",
            input="max_tokens",
            fix="give more, or exclude files",
        ) from None
    prompt = packed.prompt
    return {
        "text": prompt.text,
        "tokens": prompt.tokens,
        "tokenizer": prompt.tokenizer,
        "mode": "edit" if packed.state.mode == "edit" else "browse",
        "in_full": list(prompt.shown_in_full),
        "left_out": [{"path": p, "kept": k} for p, k in prompt.left_out],
        "withheld": _withheld(prompt.withheld),
    }


def _edits(
    workspace: Workspace,
    reply: str,
    dialect: str,
    *,
    dry_run: bool,
    progress: Progress | None,
    strict: bool = False,
) -> EditsResult:
    """The reply applied (or, ``dry_run``, previewed) by the bridge session service,
    outside any session: a real apply takes the root's apply lock, as the command line's
    does."""
    outcome = BridgeSessions(workspace).apply(
        reply,
        ReplyChoices(dialect=dialect, dry_run=dry_run, strict=strict),
        session=False,
        progress=progress,
    )
    report = outcome.report
    data: EditsResult = {"ok": report.ok, **report.to_json()}  # type: ignore[typeddict-item]
    return data


def preview_edits(
    workspace: Workspace,
    reply: str,
    dialect: str,
    progress: Progress | None = None,
    *,
    strict: bool = False,
) -> EditsResult:
    """What applying ``reply`` would do (the diff, each edit's outcome, feedback for the
    failed ones), with nothing written; ``strict``: only exact matches apply."""
    return _edits(workspace, reply, dialect, dry_run=True, progress=progress, strict=strict)


def apply_edits(
    workspace: Workspace,
    reply: str,
    dialect: str,
    progress: Progress | None = None,
    *,
    strict: bool = False,
) -> EditsResult:
    """Apply ``reply``'s edits as one transaction, as ``agentprompt apply`` does: all of
    them or (``ok`` false) none; ``strict``: only exact matches apply."""
    return _edits(workspace, reply, dialect, dry_run=False, progress=progress, strict=strict)


def count_tokens(text: str, model: str | None) -> CountTokensResult:
    """The token count of ``text`` for ``model``'s encoding (default ``o200k_base``)."""
    counter = shared_counter(model)
    return {"tokens": counter.count(text), "tokenizer": counter.name, "exact": counter.exact}
