"""agentprompt: build the prompts a coding assistant sends to a model, and turn the model's
replies back into safe actions on a repository.

This module is the public API: the names most users need, each loaded on first use. The
engines' and runtimes' full APIs are their packages (``agentprompt.repo``, ``.edits``,
``.llm``, ``.agent``, ``.workflow``, ``.bridge``, ``.tiers``, ``.tools``, ``.prompts``,
``.context``); everything else may change between versions.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes
from agentprompt.errors import AgentPromptError, UsageError

__version__ = "0.1.0"

_PUBLIC: dict[str, tuple[str, ...]] = {
    # Messages and their wire forms
    "agentprompt.messages": (
        "CacheControl",
        "ImagePart",
        "Message",
        "TextPart",
        "ToolCall",
        "ToolDefinition",
    ),
    "agentprompt.wire": ("from_anthropic", "from_openai", "to_anthropic", "to_openai", "to_text"),
    # Sections, composition, budgets, tokens
    "agentprompt.sections": ("HistorySlot", "Profile", "Section", "SectionSpec", "Stability"),
    "agentprompt.composition": ("Composition", "compose"),
    "agentprompt.budget": ("BudgetExceeded", "FitResult", "fit"),
    "agentprompt.tokens": ("CountCache", "Tokenizer", "get_tokenizer", "tokenizer_for_model"),
    "agentprompt.prefix": ("shared_prefix",),
    "agentprompt.profiles": ("inspect_profile",),
    "agentprompt.store": ("Store",),
    # Prompt files and the project
    "agentprompt.prompts.loader": ("PromptLibrary", "build_system_prompt", "load_system_prompt"),
    "agentprompt.project.environment": ("read_environment",),
    # The engines: repository context, edits, models
    "agentprompt.repo": (
        "MapOptions",
        "RepoMap",
        "TaskRanking",
        "build_map",
        "discover",
        "rank_repository",
        "select_files",
    ),
    "agentprompt.edits": (
        "ApplyOptions",
        "ApplyReport",
        "EditError",
        "ParseResult",
        "StreamParser",
        "apply_reply",
        "parse_reply",
    ),
    "agentprompt.llm": (
        "FunctionModel",
        "ModelClient",
        "ModelError",
        "ModelReply",
        "ModelRequest",
        "ScriptedModel",
        "make_client",
    ),
    # The runtimes
    "agentprompt.agent": ("AgentSession", "create_session"),
    "agentprompt.bridge": ("build_prompt", "pack_repository"),
    "agentprompt.workflow": ("compose_workflow", "load_package"),
    "agentprompt.commitmsg": ("get_commit_message",),
    "agentprompt.tiers": ("get_context_breakdown",),
    "agentprompt.tools": ("ToolRegistry", "default_registry"),
}
"""The public API, by the module each name lives in: the one table of it. The loader below
is made from it; the typing imports and ``__all__`` after it are generated from it
(tests/test_public_api.py checks them; AGENTPROMPT_UPDATE_SNAPSHOTS=1 rewrites them)."""

# The engines and runtimes load on first use, so that importing agentprompt (and starting
# the CLI) does not pay for all of them.
__getattr__ = _lazy_attributes(
    globals(), {name: module for module, names in _PUBLIC.items() for name in names}
)

# Generated from _PUBLIC: do not edit by hand.
if _typing.TYPE_CHECKING:
    from agentprompt.agent import AgentSession, create_session
    from agentprompt.bridge import build_prompt, pack_repository
    from agentprompt.budget import BudgetExceeded, FitResult, fit
    from agentprompt.commitmsg import get_commit_message
    from agentprompt.composition import Composition, compose
    from agentprompt.edits import (
        ApplyOptions,
        ApplyReport,
        EditError,
        ParseResult,
        StreamParser,
        apply_reply,
        parse_reply,
    )
    from agentprompt.llm import (
        FunctionModel,
        ModelClient,
        ModelError,
        ModelReply,
        ModelRequest,
        ScriptedModel,
        make_client,
    )
    from agentprompt.messages import (
        CacheControl,
        ImagePart,
        Message,
        TextPart,
        ToolCall,
        ToolDefinition,
    )
    from agentprompt.prefix import shared_prefix
    from agentprompt.profiles import inspect_profile
    from agentprompt.project.environment import read_environment
    from agentprompt.prompts.loader import PromptLibrary, build_system_prompt, load_system_prompt
    from agentprompt.repo import (
        MapOptions,
        RepoMap,
        TaskRanking,
        build_map,
        discover,
        rank_repository,
        select_files,
    )
    from agentprompt.sections import HistorySlot, Profile, Section, SectionSpec, Stability
    from agentprompt.store import Store
    from agentprompt.tiers import get_context_breakdown
    from agentprompt.tokens import CountCache, Tokenizer, get_tokenizer, tokenizer_for_model
    from agentprompt.tools import ToolRegistry, default_registry
    from agentprompt.wire import from_anthropic, from_openai, to_anthropic, to_openai, to_text
    from agentprompt.workflow import compose_workflow, load_package

__all__ = [
    "AgentPromptError",
    "AgentSession",
    "ApplyOptions",
    "ApplyReport",
    "BudgetExceeded",
    "CacheControl",
    "Composition",
    "CountCache",
    "EditError",
    "FitResult",
    "FunctionModel",
    "HistorySlot",
    "ImagePart",
    "MapOptions",
    "Message",
    "ModelClient",
    "ModelError",
    "ModelReply",
    "ModelRequest",
    "ParseResult",
    "Profile",
    "PromptLibrary",
    "RepoMap",
    "ScriptedModel",
    "Section",
    "SectionSpec",
    "Stability",
    "Store",
    "StreamParser",
    "TaskRanking",
    "TextPart",
    "Tokenizer",
    "ToolCall",
    "ToolDefinition",
    "ToolRegistry",
    "UsageError",
    "__version__",
    "apply_reply",
    "build_map",
    "build_prompt",
    "build_system_prompt",
    "compose",
    "compose_workflow",
    "create_session",
    "default_registry",
    "discover",
    "fit",
    "from_anthropic",
    "from_openai",
    "get_commit_message",
    "get_context_breakdown",
    "get_tokenizer",
    "inspect_profile",
    "load_package",
    "load_system_prompt",
    "make_client",
    "pack_repository",
    "parse_reply",
    "rank_repository",
    "read_environment",
    "select_files",
    "shared_prefix",
    "to_anthropic",
    "to_openai",
    "to_text",
    "tokenizer_for_model",
]
# (end of the generated part)
