"""The repository context engine: discovery, tree, symbols, map, ranking, file selection."""

from agentprompt.repo.cache import SymbolCache
from agentprompt.repo.files import (
    Discovery,
    DiscoveryOptions,
    Exclusion,
    NotADirectory,
    RepoFile,
    UnreadableFile,
    discover,
    explain,
    explain_in,
    read_text,
)
from agentprompt.repo.languages import language_for_path
from agentprompt.repo.rank import RankSummary, build_graph, pagerank, personalization
from agentprompt.repo.repomap import (
    MapOptions,
    RankedFile,
    RepoMap,
    annotate_files,
    build_map,
    map_json,
)
from agentprompt.repo.secrets import SecretFinding, SecretScreen, scan_text, screen_texts
from agentprompt.repo.select import (
    FileChoice,
    SelectionOptions,
    ask_llm_for_files,
    build_constraints_section,
    normalize_response,
    parse_response,
)
from agentprompt.repo.selection import (
    FileSelection,
    InvalidSelectionOptions,
    Rejection,
    SelectedFile,
    select_files,
)
from agentprompt.repo.symbolmap import (
    MapFile,
    MapParts,
    browse_summary,
    file_annotation,
    render_map,
    render_parts,
)
from agentprompt.repo.symbols import FileSymbols, ImportEntry, SymbolEntry, extract_symbols
from agentprompt.repo.tree import TreeNode, build_tree, render_tree, tree_to_dict

__all__ = [
    "Discovery",
    "DiscoveryOptions",
    "Exclusion",
    "FileChoice",
    "FileSelection",
    "FileSymbols",
    "ImportEntry",
    "InvalidSelectionOptions",
    "MapFile",
    "MapOptions",
    "MapParts",
    "NotADirectory",
    "RankSummary",
    "RankedFile",
    "Rejection",
    "RepoFile",
    "RepoMap",
    "SecretFinding",
    "SecretScreen",
    "SelectedFile",
    "SelectionOptions",
    "SymbolCache",
    "SymbolEntry",
    "TreeNode",
    "UnreadableFile",
    "annotate_files",
    "ask_llm_for_files",
    "browse_summary",
    "build_constraints_section",
    "build_graph",
    "build_map",
    "build_tree",
    "discover",
    "explain",
    "explain_in",
    "extract_symbols",
    "file_annotation",
    "language_for_path",
    "map_json",
    "normalize_response",
    "pagerank",
    "parse_response",
    "personalization",
    "read_text",
    "render_map",
    "render_parts",
    "render_tree",
    "scan_text",
    "screen_texts",
    "select_files",
    "tree_to_dict",
]
