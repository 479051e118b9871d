"""File discovery: which files of a repository a prompt may show, and which are text.

``git ls-files`` where a repository exists, else a walk with gitignore rules checked
the way git checks them; binary sniffing with remembered verdicts; the path tests
every reader of the root needs. No other part of ``agentprompt.repo`` is imported here.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.repo.discovery._files import (
        Discovery,
        UnreadableFile,
        discover,
        explain,
        explain_in,
        read_text,
        read_texts,
    )
    from agentprompt.repo.discovery._git import GitListing, git_listing, run_git
    from agentprompt.repo.discovery._scan_types import DiscoveryOptions, Exclusion, RepoFile
    from agentprompt.repo.discovery._sniff import is_binary_verdict, is_generated_verdict
    from agentprompt.repo.discovery._sniff_memo import (
        Remembered,
        SniffStamp,
        load_verdicts,
        save_verdicts,
        verdicts_path,
    )
    from agentprompt.repo.discovery._testpaths import is_test_path
    from agentprompt.repo.discovery._walk import (
        LeftOutKind,
        is_generated_reason,
        left_out_kind,
        likely_kept,
    )

# Inner modules load on first use (start-up speed): the CLI starts without tree-sitter,
# and one part of this package does not pay for the others.
_LAZY = {
    "Discovery": "agentprompt.repo.discovery._files",
    "DiscoveryOptions": "agentprompt.repo.discovery._scan_types",
    "Exclusion": "agentprompt.repo.discovery._scan_types",
    "GitListing": "agentprompt.repo.discovery._git",
    "Remembered": "agentprompt.repo.discovery._sniff_memo",
    "RepoFile": "agentprompt.repo.discovery._scan_types",
    "SniffStamp": "agentprompt.repo.discovery._sniff_memo",
    "UnreadableFile": "agentprompt.repo.discovery._files",
    "discover": "agentprompt.repo.discovery._files",
    "explain": "agentprompt.repo.discovery._files",
    "explain_in": "agentprompt.repo.discovery._files",
    "git_listing": "agentprompt.repo.discovery._git",
    "is_binary_verdict": "agentprompt.repo.discovery._sniff",
    "is_generated_reason": "agentprompt.repo.discovery._walk",
    "is_generated_verdict": "agentprompt.repo.discovery._sniff",
    "is_test_path": "agentprompt.repo.discovery._testpaths",
    "left_out_kind": "agentprompt.repo.discovery._walk",
    "LeftOutKind": "agentprompt.repo.discovery._walk",
    "likely_kept": "agentprompt.repo.discovery._walk",
    "load_verdicts": "agentprompt.repo.discovery._sniff_memo",
    "read_text": "agentprompt.repo.discovery._files",
    "read_texts": "agentprompt.repo.discovery._files",
    "run_git": "agentprompt.repo.discovery._git",
    "save_verdicts": "agentprompt.repo.discovery._sniff_memo",
    "verdicts_path": "agentprompt.repo.discovery._sniff_memo",
}

__getattr__ = _lazy_attributes(globals(), _LAZY)

__all__ = [
    "Discovery",
    "DiscoveryOptions",
    "Exclusion",
    "GitListing",
    "LeftOutKind",
    "Remembered",
    "RepoFile",
    "SniffStamp",
    "UnreadableFile",
    "discover",
    "explain",
    "explain_in",
    "git_listing",
    "is_binary_verdict",
    "is_generated_reason",
    "is_generated_verdict",
    "is_test_path",
    "left_out_kind",
    "likely_kept",
    "load_verdicts",
    "read_text",
    "read_texts",
    "run_git",
    "save_verdicts",
    "verdicts_path",
]
