"""The application layer: a :class:`Workspace` for one repository root, and one service per
product over it, which every front door (the command line, the page, the MCP server) calls
with plain values and words in its own terms.

Services take and return values, raise the engines' typed errors and their own (each a
:class:`~agentprompt.errors.UsageError` naming the input at fault, see
:meth:`~agentprompt.errors.UsageError.worded`), print nothing and name no flag.
"""

from agentprompt.services._bridge import (
    ApplyOutcome,
    BridgeSessions,
    EmptyReply,
    FilesChanged,
    PackedPrompt,
    PromptChoices,
    ReplyChoices,
    SessionInProgress,
    StartRequest,
)
from agentprompt.services._context import (
    ContextMap,
    FileTree,
    GlobSelection,
    LeftOutFile,
    RankedFiles,
    ReadFiles,
    RepositoryContext,
    ShownFile,
)
from agentprompt.services._workspace import LOCK_WAIT, Session, Workspace, WorkspaceConfig

__all__ = [
    "LOCK_WAIT",
    "ApplyOutcome",
    "BridgeSessions",
    "ContextMap",
    "EmptyReply",
    "FileTree",
    "FilesChanged",
    "GlobSelection",
    "LeftOutFile",
    "PackedPrompt",
    "PromptChoices",
    "RankedFiles",
    "ReadFiles",
    "ReplyChoices",
    "RepositoryContext",
    "Session",
    "SessionInProgress",
    "ShownFile",
    "StartRequest",
    "Workspace",
    "WorkspaceConfig",
]
