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

__all__ = [
    "Discovery",
    "DiscoveryOptions",
    "Exclusion",
    "NotADirectory",
    "RepoFile",
    "UnreadableFile",
    "discover",
    "explain",
    "read_text",
]
