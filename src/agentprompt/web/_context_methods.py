"""The page's read-only methods: the snippets in force, the file tree with token counts,
the files and the definitions ranked by their relevance to a task, and the context
breakdown per cache tier.
None of them changes a file of the repository (the symbol cache may be refreshed)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentprompt.edits.paths import check_inside
from agentprompt.prompts.snippets import load_prompt_snippets
from agentprompt.repo.rank import InvalidTask
from agentprompt.services import RepositoryContext, TierService, Workspace
from agentprompt.tiers.served import cache_json
from agentprompt.web._bridge_methods import budgets_json
from agentprompt.web._params import check_unknown, text, text_list
from agentprompt.web._rpc import InvalidParams

__all__ = [
    "get_context_breakdown_method",
    "get_prompt_snippets_method",
    "get_tree_method",
    "rank_files_method",
    "rank_symbols_method",
]


def get_prompt_snippets_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``get_prompt_snippets``: the snippets in force (the repository's file,
    else the user's, else the packaged defaults), where they came from, and any problems."""
    check_unknown(params, (), "get_prompt_snippets")
    found = load_prompt_snippets(workspace.root)
    return {
        "source": str(found.source) if found.source else None,
        "origin": found.origin,
        "snippets": [
            {"icon": s.icon, "tooltip": s.tooltip, "message": s.message} for s in found.snippets
        ],
        "problems": list(found.problems),
    }


def _task_and_top(params: Mapping[str, Any], method: str, unit: str) -> tuple[str, int]:
    """A rank method's ``task`` and ``top`` (default 15 ``unit``), checked."""
    check_unknown(params, ("task", "top"), method)
    task = text(params, "task", required=True)
    assert task is not None
    top = params.get("top", 15)
    if isinstance(top, bool) or not isinstance(top, int) or top < 1:
        raise InvalidParams(f'param "top" must be a whole number of {unit}, 1 or more')
    return task, top


def rank_files_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``rank_files``: the files most relevant to ``task`` (``top`` of them, default 15),
    each with its score and the reasons, as ``agentprompt rank --json`` gives them."""
    task, top = _task_and_top(params, "rank_files", "files")
    try:
        return RepositoryContext(workspace).rank(task, top).to_json()
    except InvalidTask as exc:
        raise InvalidParams(f'param "task": {exc}') from None


def rank_symbols_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``rank_symbols``: the functions and classes most relevant to ``task`` (``top`` of
    them, default 15) in the files most relevant to it, each with its lines, score and the
    reasons, as ``agentprompt rank --symbols --json`` gives them."""
    task, top = _task_and_top(params, "rank_symbols", "definitions")
    try:
        return RepositoryContext(workspace).rank_symbols(task, top).to_json()
    except InvalidTask as exc:
        raise InvalidParams(f'param "task": {exc}') from None


def get_tree_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``get_tree``: every file a prompt may show with its token count, as a list and as a
    tree, and which of them the bridge session has in context (with the session's round,
    dropped files, include/exclude patterns and budget), and the budgets a new session may
    take (``budgets``: the chat presets and the default)."""
    check_unknown(params, (), "get_tree")
    result = RepositoryContext(workspace).tree(count_tokens=True)
    counts = result.tokens or {}
    session = workspace.session()
    return {
        "root": str(result.discovery.root),
        "tokenizer": result.tokenizer,
        "tokens": result.tree.tokens,
        "files": [{"path": f.path, "tokens": counts.get(f.path)} for f in result.discovery.files],
        "tree": result.tree_json(),
        "context": list(session[1].files) if session else [],
        "mode": session[1].mode if session else None,
        "session": (
            {
                "rounds": session[1].rounds,
                "dropped": list(session[1].dropped),
                "include": list(session[1].includes),
                "exclude": list(session[1].excludes),
                "max_tokens": session[1].max_tokens,
            }
            if session
            else None
        ),
        "problems": list(result.problems),
        "budgets": budgets_json(workspace),
    }


def get_context_breakdown_method(workspace: Workspace, params: Mapping[str, Any]) -> dict[str, Any]:
    """``get_context_breakdown``: tokens per cache tier and per item (system, map legend,
    symbol map entries, files, the task) of a tiered request over ``files`` (default: the
    bridge session's files) and ``task``, under the default tier rule; which cache blocks it
    would reuse or rewrite against the last recorded request, the tokens carried in active as
    changes to cached copies (``carried``), and the share the cache has served so far. The
    tracker's stored state is read, not changed (a damaged one gives a warning and a fresh
    placement)."""
    check_unknown(params, ("files", "task"), "get_context_breakdown")
    files = (
        check_inside(workspace.root, text_list(params, "files"), input="files")
        if "files" in params
        else None
    )
    preview = TierService(workspace).breakdown(files, text(params, "task"))
    report = preview.report
    return {
        "total_tokens": report.breakdown.total_tokens,
        "tokenizer": report.breakdown.tokenizer,
        "files": list(preview.files),
        "rule": report.request.update.state.rule,
        "tiers": report.breakdown.tiers_json(),
        "carried": report.breakdown.carried,
        "cache": cache_json(report.cache, report.tally),
        "warnings": list(report.warnings),
    }
