"""The repository context engine, in parts: discovery, symbols, extraction, rank, map,
secrets and file selection (each a sub-package with one public entry).

Errors::

    AgentPromptError
    ├── UnreadableFile             a file that cannot be read as UTF-8 text
    └── UsageError
        ├── InvalidIgnorePattern   an include or exclude pattern that is not gitignore syntax
        └── InvalidTask            a task that cannot be ranked for (empty, binary, too long)
    ValueError
    └── InvalidPattern             a line git would never match (its readers word it)

Other bad input (a pattern that matches no file, an unusable selection option) is a
``UsageError``; a git call that does not finish, or a secret scanner that cannot run, an
``AgentPromptError``; a root that is not a folder :class:`~agentprompt.errors.NotADirectory`;
an overriding prompt file without a line the selection needs
:class:`~agentprompt.prompts.loader.InvalidPromptFile`.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.discovery import (
        Discovery,
        DiscoveryOptions,
        Exclusion,
        RepoFile,
        UnreadableFile,
        discover,
        explain,
    )
    from agentprompt.repo.extraction import SymbolCache
    from agentprompt.repo.map import (
        MapFile,
        MapOptions,
        MapParts,
        RankedFile,
        RepoMap,
        TreeNode,
        annotate_files,
        browse_summary,
        build_map,
        build_tree,
        file_annotation,
        render_map,
        render_parts,
        render_tree,
    )
    from agentprompt.repo.rank import (
        FileDocument,
        InvalidTask,
        RankOptions,
        RankSummary,
        RelevantFile,
        RelevantSymbol,
        RepositoryRanking,
        TaskRanking,
        rank_for_task,
        rank_repository,
        rank_symbols,
        rank_symbols_in,
    )
    from agentprompt.repo.secrets import SecretFinding, SecretScreen, scan_text, screen_texts
    from agentprompt.repo.selection import (
        FileChoice,
        FileSelection,
        Rejection,
        SelectedFile,
        SelectionOptions,
        ask_llm_for_files,
        build_constraints_section,
        normalize_response,
        parse_response,
        select_files,
    )
    from agentprompt.repo.symbols import (
        FileSymbols,
        SymbolEntry,
        extract_symbols,
    )

# Sub-packages load on first use (start-up speed): discovery alone must not pay for
# tree-sitter.
_LAZY = {
    "SymbolCache": "agentprompt.repo.extraction",
    "Discovery": "agentprompt.repo.discovery",
    "DiscoveryOptions": "agentprompt.repo.discovery",
    "Exclusion": "agentprompt.repo.discovery",
    "RepoFile": "agentprompt.repo.discovery",
    "UnreadableFile": "agentprompt.repo.discovery",
    "discover": "agentprompt.repo.discovery",
    "explain": "agentprompt.repo.discovery",
    "RankSummary": "agentprompt.repo.rank",
    "MapOptions": "agentprompt.repo.map",
    "RankedFile": "agentprompt.repo.map",
    "RepoMap": "agentprompt.repo.map",
    "annotate_files": "agentprompt.repo.map",
    "build_map": "agentprompt.repo.map",
    "RankOptions": "agentprompt.repo.rank",
    "RepositoryRanking": "agentprompt.repo.rank",
    "rank_repository": "agentprompt.repo.rank",
    "SecretFinding": "agentprompt.repo.secrets",
    "SecretScreen": "agentprompt.repo.secrets",
    "scan_text": "agentprompt.repo.secrets",
    "screen_texts": "agentprompt.repo.secrets",
    "FileChoice": "agentprompt.repo.selection",
    "SelectionOptions": "agentprompt.repo.selection",
    "ask_llm_for_files": "agentprompt.repo.selection",
    "build_constraints_section": "agentprompt.repo.selection",
    "normalize_response": "agentprompt.repo.selection",
    "parse_response": "agentprompt.repo.selection",
    "FileSelection": "agentprompt.repo.selection",
    "Rejection": "agentprompt.repo.selection",
    "SelectedFile": "agentprompt.repo.selection",
    "select_files": "agentprompt.repo.selection",
    "MapFile": "agentprompt.repo.map",
    "MapParts": "agentprompt.repo.map",
    "browse_summary": "agentprompt.repo.map",
    "file_annotation": "agentprompt.repo.map",
    "render_map": "agentprompt.repo.map",
    "render_parts": "agentprompt.repo.map",
    "FileSymbols": "agentprompt.repo.symbols",
    "SymbolEntry": "agentprompt.repo.symbols",
    "extract_symbols": "agentprompt.repo.symbols",
    "FileDocument": "agentprompt.repo.rank",
    "InvalidTask": "agentprompt.repo.rank",
    "RelevantFile": "agentprompt.repo.rank",
    "RelevantSymbol": "agentprompt.repo.rank",
    "TaskRanking": "agentprompt.repo.rank",
    "rank_for_task": "agentprompt.repo.rank",
    "rank_symbols": "agentprompt.repo.rank",
    "rank_symbols_in": "agentprompt.repo.rank",
    "TreeNode": "agentprompt.repo.map",
    "build_tree": "agentprompt.repo.map",
    "render_tree": "agentprompt.repo.map",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "Discovery",
    "DiscoveryOptions",
    "Exclusion",
    "FileChoice",
    "FileDocument",
    "FileSelection",
    "FileSymbols",
    "InvalidTask",
    "MapFile",
    "MapOptions",
    "MapParts",
    "RankOptions",
    "RankSummary",
    "RankedFile",
    "Rejection",
    "RelevantFile",
    "RelevantSymbol",
    "RepoFile",
    "RepoMap",
    "RepositoryRanking",
    "SecretFinding",
    "SecretScreen",
    "SelectedFile",
    "SelectionOptions",
    "SymbolCache",
    "SymbolEntry",
    "TaskRanking",
    "TreeNode",
    "UnreadableFile",
    "annotate_files",
    "ask_llm_for_files",
    "browse_summary",
    "build_constraints_section",
    "build_map",
    "build_tree",
    "discover",
    "explain",
    "extract_symbols",
    "file_annotation",
    "normalize_response",
    "parse_response",
    "rank_for_task",
    "rank_repository",
    "rank_symbols",
    "rank_symbols_in",
    "render_map",
    "render_parts",
    "render_tree",
    "scan_text",
    "screen_texts",
    "select_files",
]
