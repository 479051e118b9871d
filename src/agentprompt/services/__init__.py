"""The application layer: a :class:`Workspace` for one repository root, and one service per
product over it, which every front door (the command line, the page, the MCP server) calls
with plain values and words in its own terms.

Services take and return values, raise the engines' typed errors and their own (each a
:class:`~agentprompt.errors.UsageError` naming the input at fault, see
:meth:`~agentprompt.errors.UsageError.worded`), print nothing and name no flag. Their
own errors::

    UsageError
    ├── SessionInProgress   a new task while a session that has had replies is in progress
    ├── EmptyReply          a reply holding no edit block, request or other marker
    └── UnknownTierRule     a tier placement rule that does not exist

A root that is not a folder, an empty task, a path outside the root are ``UsageError``s
naming their input (``root``, ``task``, ``paths``); so is a budget that is not one (not a
number, below 1, below what the prompt's fixed text takes, a chat preset that does not
exist: ``max_tokens``, ``chat``), and one set by ``AGENTPROMPT_MAX_TOKENS`` or the
project's ``.agentprompt/config.toml`` (naming the variable, or the file and its key).
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.services._bridge import (
        ApplyOutcome,
        BridgeSessions,
        EmptyReply,
        FilesChanged,
        InputAdded,
        PackedPrompt,
        PromptChoices,
        ReplyChoices,
        SessionInProgress,
        StartRequest,
        UndoOutcome,
    )
    from agentprompt.services._budgets import (
        BUDGET_ENV,
        CHAT_BUDGETS,
        DEFAULT_MAX_TOKENS,
        NO_BUDGET,
        PROJECT_CONFIG,
        BudgetChoice,
        parse_budget,
    )
    from agentprompt.services._context import (
        ContextMap,
        FileTree,
        LeftOutFile,
        RankedFiles,
        RankedSymbols,
        ReadFiles,
        RepositoryContext,
        ShownFile,
    )
    from agentprompt.services._sessions import StoredSessions
    from agentprompt.services._tiers import (
        TierBreakdown,
        TierRequest,
        TierService,
        UnknownTierRule,
    )
    from agentprompt.services._workspace import LOCK_WAIT, Session, Workspace, WorkspaceConfig

# Services load on first use (start-up speed): a door that uses one service does not pay
# for the others.
_LAZY = {
    "BUDGET_ENV": "agentprompt.services._budgets",
    "CHAT_BUDGETS": "agentprompt.services._budgets",
    "DEFAULT_MAX_TOKENS": "agentprompt.services._budgets",
    "NO_BUDGET": "agentprompt.services._budgets",
    "PROJECT_CONFIG": "agentprompt.services._budgets",
    "BudgetChoice": "agentprompt.services._budgets",
    "parse_budget": "agentprompt.services._budgets",
    "LOCK_WAIT": "agentprompt.services._workspace",
    "ApplyOutcome": "agentprompt.services._bridge",
    "BridgeSessions": "agentprompt.services._bridge",
    "ContextMap": "agentprompt.services._context",
    "EmptyReply": "agentprompt.services._bridge",
    "FileTree": "agentprompt.services._context",
    "FilesChanged": "agentprompt.services._bridge",
    "InputAdded": "agentprompt.services._bridge",
    "LeftOutFile": "agentprompt.services._context",
    "PackedPrompt": "agentprompt.services._bridge",
    "PromptChoices": "agentprompt.services._bridge",
    "RankedFiles": "agentprompt.services._context",
    "RankedSymbols": "agentprompt.services._context",
    "ReadFiles": "agentprompt.services._context",
    "ReplyChoices": "agentprompt.services._bridge",
    "RepositoryContext": "agentprompt.services._context",
    "Session": "agentprompt.services._workspace",
    "SessionInProgress": "agentprompt.services._bridge",
    "ShownFile": "agentprompt.services._context",
    "StartRequest": "agentprompt.services._bridge",
    "StoredSessions": "agentprompt.services._sessions",
    "TierBreakdown": "agentprompt.services._tiers",
    "TierRequest": "agentprompt.services._tiers",
    "TierService": "agentprompt.services._tiers",
    "UndoOutcome": "agentprompt.services._bridge",
    "UnknownTierRule": "agentprompt.services._tiers",
    "Workspace": "agentprompt.services._workspace",
    "WorkspaceConfig": "agentprompt.services._workspace",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "BUDGET_ENV",
    "CHAT_BUDGETS",
    "DEFAULT_MAX_TOKENS",
    "LOCK_WAIT",
    "NO_BUDGET",
    "PROJECT_CONFIG",
    "ApplyOutcome",
    "BridgeSessions",
    "BudgetChoice",
    "ContextMap",
    "EmptyReply",
    "FileTree",
    "FilesChanged",
    "InputAdded",
    "LeftOutFile",
    "PackedPrompt",
    "PromptChoices",
    "RankedFiles",
    "RankedSymbols",
    "ReadFiles",
    "ReplyChoices",
    "RepositoryContext",
    "Session",
    "SessionInProgress",
    "ShownFile",
    "StartRequest",
    "StoredSessions",
    "TierBreakdown",
    "TierRequest",
    "TierService",
    "UndoOutcome",
    "UnknownTierRule",
    "Workspace",
    "WorkspaceConfig",
    "parse_budget",
]
