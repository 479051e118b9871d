"""Running git for discovery: a time limit on every call, and a clear error when it passes."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from agentprompt.errors import AgentPromptError, literal

__all__ = [
    "GIT_TIMEOUT_SECONDS",
    "GitListing",
    "git_listing",
    "root_ignored",
    "run_git",
]

GIT_TIMEOUT_SECONDS = 60.0
"""How long one git call may take before discovery gives up on it."""


def _timed_out(args: list[str], root: Path, seconds: float) -> AgentPromptError:
    """A git call made for discovery did not finish in time."""
    command = " ".join(["git", *args])
    return AgentPromptError(
        f"`{literal(command)}` did not finish within {seconds:g} s in {literal(str(root))}",
        fix="check the repository (a slow file system or a locked index), or pass {no_git} "
        "to walk the folder with its .gitignore files instead",
    )


def run_git(
    args: list[str], root: Path, *, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes] | None:
    """Run ``git ARGS`` in ``root``; ``None`` when git cannot be started.

    Raises an :class:`~agentprompt.errors.AgentPromptError` after
    :data:`GIT_TIMEOUT_SECONDS`.
    """
    try:
        return subprocess.run(
            ["git", *args],
            cwd=root,
            input=stdin,
            capture_output=True,
            check=False,
            timeout=GIT_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise _timed_out(args, root, GIT_TIMEOUT_SECONDS) from None
    except OSError:
        return None


@dataclass(frozen=True, kw_only=True)
class GitListing:
    """git's view of the files under a folder."""

    names: tuple[str, ...]
    """Every path git lists (tracked, or untracked and not ignored), sorted."""
    untracked: frozenset[str]
    """The listed paths git does not track."""


def git_listing(root: Path) -> GitListing | None:
    """git's view of the files under ``root`` (tracked or not), ``None`` outside a work tree."""
    done = run_git(["ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard"], root)
    if done is None or done.returncode != 0:
        return None
    names: dict[str, bool] = {}
    for entry in os.fsdecode(done.stdout).split("\0"):
        if len(entry) > 2:
            name = entry[2:]
            names[name] = names.get(name, False) or entry[0] != "?"
    return GitListing(
        names=tuple(sorted(names)),
        untracked=frozenset(n for n, tracked in names.items() if not tracked),
    )


def root_ignored(root: Path) -> bool:
    """True when ``root`` is a folder below the work tree's top that git ignores as a whole."""
    prefix = run_git(["rev-parse", "--show-prefix"], root)
    if prefix is None or prefix.returncode != 0 or not prefix.stdout.strip():
        return False
    done = run_git(["check-ignore", "-q", "."], root)
    return done is not None and done.returncode == 0
