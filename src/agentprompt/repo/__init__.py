"""The repository context engine: discovery, tree, symbols, map, ranking, file selection."""

from agentprompt.repo.files import (
    Discovery,
    DiscoveryOptions,
    Exclusion,
    NotADirectory,
    RepoFile,
    UnreadableFile,
    discover,
    explain,
    read_text,
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
from agentprompt.repo.tree import TreeNode, build_tree, render_tree, tree_to_dict

__all__ = [
    "Discovery",
    "DiscoveryOptions",
    "Exclusion",
    "FileChoice",
    "FileSelection",
    "InvalidSelectionOptions",
    "NotADirectory",
    "Rejection",
    "RepoFile",
    "SecretFinding",
    "SecretScreen",
    "SelectedFile",
    "SelectionOptions",
    "TreeNode",
    "UnreadableFile",
    "ask_llm_for_files",
    "build_constraints_section",
    "build_tree",
    "discover",
    "explain",
    "normalize_response",
    "parse_response",
    "read_text",
    "render_tree",
    "scan_text",
    "screen_texts",
    "select_files",
    "tree_to_dict",
]
