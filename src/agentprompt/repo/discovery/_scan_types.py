"""The values discovery shares with its callers: its options, a file kept, a path left out
with its reason, a whole scan's result, and the two path tests every reader of the root
needs (inside the root, inside its ``.git``). :mod:`agentprompt.repo.discovery._walk` makes them;
:mod:`agentprompt.repo.discovery._files` is the public face.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from agentprompt.repo.discovery._sniff_memo import Remembered

__all__ = [
    "AGENTPROMPTIGNORE",
    "DiscoveryOptions",
    "Exclusion",
    "RepoFile",
    "Scan",
    "in_git_dir",
    "inside",
]

AGENTPROMPTIGNORE = ".agentpromptignore"
"""The name of the ignore files (gitignore syntax, any depth) that only agentprompt reads."""


@dataclass(frozen=True, kw_only=True)
class DiscoveryOptions:
    """What discovery leaves out besides what git (or ``.gitignore``) already ignores."""

    max_file_bytes: int = 1_000_000
    """Files larger than this many bytes are left out."""
    include_default_excludes: bool = True
    """Leave out lock files, minified/generated files, dependencies, venvs, build output..."""
    extra_excludes: tuple[str, ...] = ()
    """More gitignore-style patterns to leave out (applied after the defaults)."""
    follow_git: bool = True
    """Use git's view of the files when the root is inside a git work tree."""
    include_generated: bool = False
    """Keep generated and minified files (``*.min.js``, source maps, files with a generator's
    header or very long lines), which are left out by default."""


@dataclass(frozen=True, kw_only=True)
class RepoFile:
    """A file a prompt may show."""

    path: str
    """POSIX path relative to the root."""
    size: int
    """Size in bytes."""
    mtime_ns: int
    """Modification time in nanoseconds."""


@dataclass(frozen=True, kw_only=True)
class Exclusion:
    """A path left out, and the exact reason."""

    path: str
    """POSIX path relative to the root; a directory left out as a whole ends in ``/``."""
    reason: str
    """Why, naming the rule, its file and line where there is one."""


@dataclass(frozen=True, kw_only=True)
class Scan:
    """What one scan found (see :class:`agentprompt.repo.discovery.Discovery`)."""

    files: tuple[RepoFile, ...]
    """Included files, sorted by path."""
    excluded: tuple[Exclusion, ...]
    """Exclusions, sorted by path."""
    problems: tuple[str, ...]
    """Files that could not be read."""
    git: bool
    """True when git's listing was used."""
    sniffed: Mapping[str, Remembered]
    """Each file's content verdict with its stamp, for a later scan to reuse."""


def inside(root: str, real: str) -> bool:
    """True when the resolved path ``real`` is ``root`` or below it (both resolved)."""
    return real == root or real.startswith(root + os.sep)


def in_git_dir(root: str, real: str) -> bool:
    """True when the resolved path ``real`` is the root's ``.git`` or inside it."""
    return inside(os.path.join(root, ".git"), real)
