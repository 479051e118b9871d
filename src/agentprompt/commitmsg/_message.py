"""Commit messages from a staged diff (``get_commit_message``).

The model gets the commit system prompt (``commit_system.md``) and the diff. Its reply is
checked against the format: ``<type>: <subject>`` with a conventional type and a subject of
at most 50 characters, a blank line, a body wrapped at 72. What can be repaired mechanically
(fences, quotes, a preamble, a capitalised type, a final full stop, a missing blank line, a
body over 72 columns) is cleaned up; what cannot (no type, a subject too long) is re-asked
once with the problems listed. The result says which of these happened.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agentprompt.commitmsg._style import subject_style_problems
from agentprompt.errors import UsageError
from agentprompt.llm.base import ModelClient, ModelRequest
from agentprompt.messages import Message
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.repo.discovery import run_git

__all__ = [
    "BODY_WIDTH",
    "COMMIT_TYPES",
    "SUBJECT_LIMIT",
    "CommitMessage",
    "clean_commit_message",
    "commit_messages",
    "commit_problems",
    "get_commit_message",
    "staged_diff",
]

COMMIT_TYPES = (
    "feat",
    "fix",
    "docs",
    "style",
    "refactor",
    "perf",
    "test",
    "build",
    "ci",
    "chore",
    "revert",
)
"""The conventional commit types the prompt allows."""

SUBJECT_LIMIT = 50
"""The longest subject line, type included."""

BODY_WIDTH = 72
"""The column the body is wrapped at."""

_HEADER = re.compile(r"^(?P<type>[A-Za-z]+)(?P<scope>\([^)]*\))?(?P<bang>!)?:\s*(?P<subject>.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _no_staged_diff(root: Path, problem: str) -> UsageError:
    """The staged diff cannot be read (not a git repository, or git is missing)."""
    return UsageError(
        f"cannot read the staged diff of {root}: {problem}; run it inside a git repository"
    )


def staged_diff(root: Path) -> str:
    """``git diff --cached`` in ``root``.

    Outside a work tree ``git diff --cached`` does not fail cleanly (it falls back to
    ``--no-index`` and prints its whole usage), so the work tree is checked first, and only
    the first line of any other git error is kept.
    """
    inside = run_git(["rev-parse", "--is-inside-work-tree"], root)
    if inside is None:
        raise _no_staged_diff(root, "git cannot be started")
    if inside.returncode != 0 or inside.stdout.strip() != b"true":
        raise _no_staged_diff(root, "it is not inside a git work tree")
    done = run_git(["diff", "--cached", "--no-color", "--no-ext-diff"], root)
    if done is None:
        raise _no_staged_diff(root, "git cannot be started")
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise _no_staged_diff(root, lines[0] if lines else f"git exited {done.returncode}")
    return done.stdout.decode("utf-8", "replace")


@dataclass(frozen=True, kw_only=True)
class CommitMessage:
    """A commit message and how it was obtained."""

    text: str
    """The message: subject, blank line, body (no final newline)."""
    action: Literal["accepted", "cleaned", "reasked", "invalid"]
    """What was done: taken as given, cleaned up, asked again once, or still broken after
    asking again (``problems`` says how)."""
    cleanups: tuple[str, ...] = ()
    """The repairs made to the model's text."""
    problems: tuple[str, ...] = ()
    """What is still wrong with ``text`` (empty unless ``action`` is ``invalid``)."""
    replies: tuple[str, ...] = ()
    """The model's raw replies, in order."""


def commit_problems(text: str) -> list[str]:
    """Everything about ``text`` that breaks the commit message format (empty: it is fine)."""
    lines = text.split("\n")
    if not text.strip():
        return ["the message is empty"]
    problems: list[str] = []
    match = _HEADER.match(lines[0])
    if match is None:
        problems.append(f"the subject line {lines[0]!r} does not start with '<type>: '")
    elif match.group("type") not in COMMIT_TYPES:
        problems.append(
            f"{match.group('type')!r} is not a conventional type ({', '.join(COMMIT_TYPES)})"
        )
    elif not match.group("subject").strip():
        problems.append("the subject after the type is empty")
    if len(lines[0]) > SUBJECT_LIMIT:
        problems.append(
            f"the subject line has {len(lines[0])} characters; the limit is {SUBJECT_LIMIT}"
        )
    if len(lines) > 1 and lines[1].strip():
        problems.append("the subject is not followed by a blank line")
    long = [i + 1 for i, line in enumerate(lines[1:], 1) if len(line) > BODY_WIDTH]
    if long:
        problems.append(f"body line(s) {long} are longer than {BODY_WIDTH} characters")
    if match is not None and match.group("type") in COMMIT_TYPES:
        problems.extend(subject_style_problems(text))
    return problems


def _strip_wrapping(lines: list[str], done: list[str]) -> list[str]:
    opening = next((i for i, line in enumerate(lines) if _FENCE.match(line)), None)
    if opening is not None:
        end = next(
            (i for i in range(opening + 1, len(lines)) if _FENCE.match(lines[i])), len(lines)
        )
        lines = lines[opening + 1 : end]
        done.append("removed the markdown fence (and any text around it)")
    start = next(
        (i for i, line in enumerate(lines) if _HEADER.match(line.strip().lstrip("\"'`"))), None
    )
    if start:
        lines = lines[start:]
        done.append("removed the text before the subject line")
    while lines and not lines[-1].strip():
        lines.pop()
    if lines and len(lines[0]) > 1 and lines[0][0] == lines[-1][-1] and lines[0][0] in "\"'`":
        lines[0] = lines[0][1:]
        lines[-1] = lines[-1][:-1]
        done.append("removed the quotes around the message")
    return lines


def _wrap_body(body: list[str]) -> list[str]:
    out: list[str] = []
    for line in body:
        if len(line) <= BODY_WIDTH:
            out.append(line)
            continue
        bullet = re.match(r"^(\s*(?:[-*]|\d+\.)\s+)", line)
        indent = " " * len(bullet.group(1)) if bullet else ""
        out.extend(
            textwrap.wrap(line, BODY_WIDTH, subsequent_indent=indent, break_long_words=False)
            or [""]
        )
    return out


def clean_commit_message(reply: str) -> tuple[str, tuple[str, ...]]:
    """The reply with the mechanical format faults repaired, and the repairs made."""
    done: list[str] = []
    lines = _strip_wrapping([line.rstrip() for line in reply.strip().splitlines()], done)
    if not lines:
        return "", tuple(done)
    head = lines[0].strip()
    match = _HEADER.match(head)
    if match is not None:
        kind = match.group("type")
        if kind.lower() in COMMIT_TYPES and kind != kind.lower():
            head = kind.lower() + head[len(kind) :]
            done.append("wrote the type in lower case")
        if head.endswith(".") and not head.endswith(".."):
            head = head[:-1]
            done.append("removed the full stop after the subject")
    body = lines[1:]
    if body and body[0].strip():
        body = ["", *body]
        done.append("added the blank line after the subject")
    wrapped = _wrap_body(body)
    if wrapped != body:
        done.append(f"wrapped the body at {BODY_WIDTH} characters")
    return "\n".join([head, *wrapped]), tuple(done)


def commit_messages(diff: str, *, root: Path | None = None) -> tuple[Message, ...]:
    """The request ``get_commit_message`` sends: the commit system prompt and the diff."""
    if not diff.strip():
        raise UsageError(
            "the staged diff is empty: stage the changes to describe with 'git add' first"
        )
    lib = PromptLibrary(root)
    return (
        Message(role="system", content=lib.render("commit_system")),
        Message(role="user", content=lib.render("commit_user", diff=diff.rstrip("\n"))),
    )


def get_commit_message(diff: str, model: ModelClient, *, root: Path | None = None) -> CommitMessage:
    """A commit message for ``diff`` from ``model``: cleaned up, or re-asked once when the
    format cannot be repaired."""
    messages = commit_messages(diff, root=root)
    first = model.complete(ModelRequest(messages=messages)).text
    text, cleanups = clean_commit_message(first)
    problems = commit_problems(text)
    if not problems:
        action: Literal["accepted", "cleaned"] = "cleaned" if cleanups else "accepted"
        return CommitMessage(text=text, action=action, cleanups=cleanups, replies=(first,))
    retry = PromptLibrary(root).render(
        "commit_retry", problems="\n".join(f"- {p}" for p in problems)
    )
    second = model.complete(
        ModelRequest(
            messages=(
                *messages,
                Message(role="assistant", content=first),
                Message(role="user", content=retry),
            )
        )
    ).text
    text2, cleanups2 = clean_commit_message(second)
    problems2 = commit_problems(text2)
    return CommitMessage(
        text=text2,
        action="invalid" if problems2 else "reasked",
        cleanups=cleanups2,
        problems=tuple(problems2),
        replies=(first, second),
    )
