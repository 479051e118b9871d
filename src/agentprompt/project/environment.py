"""The environment facts a prompt states, read at the edge so the core stays pure.

:func:`read_environment` is the only place that looks at the clock, the platform and git;
everything that renders these facts takes an :class:`Environment` value, so a test can fix
them and a rendered prompt is byte-stable.
"""

from __future__ import annotations

import datetime as dt
import platform
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

__all__ = [
    "Environment",
    "git_head_file",
    "git_state",
    "read_environment",
    "watch_environment",
    "working_directory",
]


@dataclass(frozen=True, kw_only=True)
class Environment:
    """Where and when the agent runs."""

    now: dt.datetime
    """The current local date and time."""
    cwd: Path
    """The working directory."""
    git_branch: str | None
    """The checked-out branch when ``cwd`` is in a git repository; None when detached."""
    is_git: bool
    """Whether ``cwd`` is inside a git work tree."""
    detached_at: str | None = None
    """The short commit id when HEAD is detached."""
    os_name: str
    """The platform and its release (``linux 6.1.0``)."""
    python_version: str
    """The version of the Python running agentprompt."""


def _git(cwd: Path, *args: str) -> str | None:
    """The stripped output of a git command, or None when it fails or git is missing."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(cwd: Path) -> tuple[bool, str | None, str | None]:
    """Whether ``cwd`` is in a git work tree, its branch, and the commit a detached HEAD is
    at; never raises. A repository with no commits yet still names its branch."""
    if _git(cwd, "rev-parse", "--is-inside-work-tree") != "true":
        return False, None, None
    branch = _git(cwd, "symbolic-ref", "--short", "-q", "HEAD")
    if branch:
        return True, branch, None
    return True, None, _git(cwd, "rev-parse", "--short", "HEAD") or None


def read_environment(
    cwd: Path | None = None, *, clock: Callable[[], dt.datetime] | None = None
) -> Environment:
    """The environment of this process, with ``cwd`` and the clock replaceable for tests."""
    where = (cwd or Path.cwd()).resolve()
    is_git, branch, detached_at = git_state(where)
    now = (clock or dt.datetime.now)()
    return Environment(
        now=now,
        cwd=where,
        git_branch=branch,
        is_git=is_git,
        detached_at=detached_at,
        os_name=f"{platform.system().lower()} {platform.release()}",
        python_version=platform.python_version(),
    )


def git_head_file(cwd: Path) -> Path | None:
    """The file HEAD is stored in for ``cwd``'s repository (a worktree's own); None
    outside git."""
    gitdir = _git(cwd, "rev-parse", "--absolute-git-dir")
    return Path(gitdir) / "HEAD" if gitdir else None


def _head_bytes(head: Path | None) -> bytes | None:
    if head is None:
        return None
    try:
        return head.read_bytes()
    except OSError:
        return None


def watch_environment(
    cwd: Path | None = None, *, clock: Callable[[], dt.datetime] | None = None
) -> Callable[[], Environment]:
    """A reader of the environment for an agent that asks before every model call: the
    date is read each time, and git is asked again only when the HEAD file changed (a
    checkout or a switch of branch during the session), so the prompt never states a stale
    branch and a call costs one small file read, not three git commands."""
    env = read_environment(cwd, clock=clock)
    head = git_head_file(env.cwd) if env.is_git else None
    seen = _head_bytes(head)
    now = clock or dt.datetime.now

    def current() -> Environment:
        nonlocal env, seen
        if head is not None and (state := _head_bytes(head)) != seen:
            seen = state
            is_git, branch, detached_at = git_state(env.cwd)
            env = replace(env, is_git=is_git, git_branch=branch, detached_at=detached_at)
        return replace(env, now=now())

    return current


def working_directory(root: Path, cwd: Path | None) -> Path:
    """``cwd`` resolved, or ``root`` when it is None or outside ``root`` (a session run with
    ``--root`` from elsewhere works in the root)."""
    if cwd is None:
        return root
    where = cwd.resolve()
    return where if where.is_relative_to(root) else root
