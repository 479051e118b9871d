"""Committing exactly the files one change set wrote (a bridge round's), with a message.

Only the paths given are staged and committed (``git commit --only``): whatever else the
user had staged stays staged and out of the commit. A path git ignores, or a deleted file
git never tracked, is left out. Without a model the message is made from the round
(``commit_round.md``): its number, the first line of the task, the files it changed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentprompt.commitmsg._message import SUBJECT_LIMIT, clean_commit_message
from agentprompt.errors import AgentPromptError, UsageError, literal
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.repo.discovery import run_git

__all__ = [
    "CommitResult",
    "check_committable",
    "commit_files",
    "paths_diff",
    "round_message",
]


@dataclass(frozen=True, kw_only=True)
class CommitResult:
    """What :func:`commit_files` committed."""

    commit: str | None
    """The new commit's hash (``None``: the files already matched the last commit)."""
    files: tuple[str, ...] = ()
    """The paths committed."""
    left_out: tuple[str, ...] = ()
    """Paths given that were not committed (ignored by git, or deleted and never tracked)."""


def _first_line(done: object) -> str:
    stderr = getattr(done, "stderr", b"") or b""
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else f"git exited {getattr(done, 'returncode', '?')}"


def check_committable(root: Path) -> None:
    """Refuse (a :class:`~agentprompt.errors.UsageError` of ``commit``) unless git can
    commit in ``root``: a git work tree, and an identity to commit as."""
    inside = run_git(["rev-parse", "--is-inside-work-tree"], root)
    if inside is None:
        raise UsageError(
            "{commit} needs git, and git cannot be started", input="commit", fix="install git"
        )
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        raise UsageError(
            f"{{commit}}: {literal(str(root))} is not inside a git repository",
            input="commit",
            fix="run 'git init' there first, or leave out {commit}",
        )
    ident = run_git(["var", "GIT_COMMITTER_IDENT"], root)
    author = run_git(["var", "GIT_AUTHOR_IDENT"], root)
    if ident is None or author is None or ident.returncode != 0 or author.returncode != 0:
        raise UsageError(
            "{commit}: git has no name and email to commit with",
            input="commit",
            fix="set them with git config user.name and git config user.email",
        )


def _git(args: list[str], root: Path, stdin: bytes | None = None) -> bytes:
    done = run_git(["--literal-pathspecs", *args], root, stdin=stdin)
    if done is None or done.returncode != 0:
        raise AgentPromptError(f"git {args[0]} failed: {literal(_first_line(done))}")
    return done.stdout


def _nul_list(data: bytes) -> set[str]:
    return {p for p in data.decode("utf-8", "surrogateescape").split("\0") if p}


def _committable(root: Path, paths: Sequence[str]) -> tuple[list[str], list[str]]:
    """The paths to commit and those left out (ignored, or gone and never tracked)."""
    joined = "".join(f"{p}\0" for p in paths).encode("utf-8", "surrogateescape")
    tracked = _nul_list(_git(["ls-files", "-z", "--", *paths], root))
    checked = run_git(["check-ignore", "-z", "--stdin"], root, stdin=joined)
    ignored = set()
    if checked is not None and checked.returncode == 0:
        ignored = _nul_list(checked.stdout)
    keep, left = [], []
    for path in paths:
        there = os.path.lexists(root / path)
        if path in tracked or (there and path not in ignored):
            keep.append(path)
        else:
            left.append(path)
    return keep, left


def paths_diff(root: Path, paths: Sequence[str]) -> str:
    """The diff of ``paths`` against the last commit, once they are staged
    (:func:`commit_files` stages them; a model writes its message from this)."""
    keep, _ = _committable(root, paths)
    if not keep:
        return ""
    _git(["add", "-A", "--", *keep], root)
    data = _git(["diff", "--cached", "--no-color", "--no-ext-diff", "--", *keep], root)
    return data.decode("utf-8", "replace")


def commit_files(root: Path, paths: Sequence[str], message: str) -> CommitResult:
    """Stage ``paths`` and commit only them with ``message``.

    Raises an :class:`~agentprompt.errors.AgentPromptError` naming git's complaint when a
    git step fails (a hook refusing the commit, say): the files stay as they are.
    """
    keep, left = _committable(root, paths)
    if not keep:
        return CommitResult(commit=None, left_out=tuple(left))
    _git(["add", "-A", "--", *keep], root)
    same = run_git(["--literal-pathspecs", "diff", "--cached", "--quiet", "--", *keep], root)
    head = run_git(["rev-parse", "--verify", "--quiet", "HEAD"], root)
    if same is not None and same.returncode == 0 and head is not None and head.returncode == 0:
        return CommitResult(commit=None, left_out=tuple(left))
    _git(["commit", "--quiet", "--only", "--no-edit", "-m", message, "--", *keep], root)
    sha = _git(["rev-parse", "HEAD"], root).decode().strip()
    return CommitResult(commit=sha, files=tuple(keep), left_out=tuple(left))


def round_message(
    task: str, rounds: int, files: Sequence[tuple[str, str]], *, root: Path | None = None
) -> str:
    """The commit message of a round made without a model (``commit_round.md``): its
    number and the first line of ``task`` as the subject (cut to the subject's limit),
    then each of ``files`` as ``(path, how)``, ``how`` being ``changed``, ``created`` or
    ``deleted``."""
    first = next((line.strip() for line in task.splitlines() if line.strip()), "")
    text = PromptLibrary(root).render(
        "commit_round",
        rounds=str(rounds),
        task=first,
        files="\n".join(f"- {path} ({how})" for path, how in files),
    )
    subject, _, rest = text.partition("\n")
    subject = subject.rstrip().rstrip(".")
    if len(subject) > SUBJECT_LIMIT:
        cut = subject[: SUBJECT_LIMIT - 3]
        # At a word's end, unless that leaves too little of the task.
        word = cut.rsplit(" ", 1)[0]
        subject = (word if len(word) >= SUBJECT_LIMIT * 2 // 3 else cut).rstrip(" ,;:") + "..."
    message, _ = clean_commit_message(f"{subject}\n{rest}")
    return message
