"""The read-only browsing tools: ls, tree, glob and grep.

Directories are resolved with the edit engine's path safety, and tree, glob and grep walk
the repository through :func:`agentprompt.repo.discover`, so what git (or ``.gitignore``)
ignores, ``.git`` itself, dependencies and build output stay out of the results. Every list
is capped by the policy and says so when it is cut.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from agentprompt.edits.paths import resolve_inside
from agentprompt.repo.discovery import RepoFile, UnreadableFile, discover, read_text
from agentprompt.repo.map import build_tree, render_tree
from agentprompt.tools.context import ToolContext, ToolFailure

__all__ = ["glob", "glob_matcher", "grep", "ls", "tree"]


def glob_matcher(pattern: str) -> Callable[[str], bool]:
    """A test for POSIX relative paths, with gitignore's glob rules: ``*`` and ``?`` stay
    within a name, ``**`` spans folders, ``[...]`` is a character class, a pattern without a
    slash matches a name at any depth, and a pattern naming a folder matches what is in it."""
    text = pattern.strip().replace("\\", "/")
    anchored = "/" in text.rstrip("/")
    text = text.strip("/")
    out = [] if anchored else ["(?:.*/)?"]
    i = 0
    while i < len(text):
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif text[i] == "*":
            out.append("[^/]*")
            i += 1
        elif text[i] == "?":
            out.append("[^/]")
            i += 1
        elif text[i] == "[" and "]" in text[i + 2 :]:
            end = text.index("]", i + 2)
            body = text[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(text[i]))
            i += 1
    regex = re.compile("".join(out) + "(?:/.*)?", re.DOTALL)
    return lambda path: regex.fullmatch(path) is not None


def _directory(ctx: ToolContext, path: str) -> tuple[Path, str]:
    """The real directory ``path`` names and its POSIX prefix relative to the root; an
    absolute path is refused by the path safety, as the file tools refuse it."""
    given = path.replace("\\", "/")
    rel = "/".join(p for p in given.split("/") if p not in ("", "."))
    if given.startswith("/"):
        rel = given  # resolve_inside names the problem
    elif not rel:
        return Path(ctx.root).resolve(), ""
    real = resolve_inside(ctx.root, rel)
    if not real.is_dir():
        what = "a file" if real.exists() else "not found"
        raise ToolFailure(f"{path} is {what}, not a directory; give a directory to list")
    return real, rel + "/"


def _files(ctx: ToolContext, prefix: str) -> list[RepoFile]:
    return [f for f in discover(Path(ctx.root)).files if f.path.startswith(prefix)]


def _capped(lines: list[str], cap: int, what: str) -> str:
    if len(lines) <= cap:
        return "\n".join(lines)
    return "\n".join([*lines[:cap], f"[{len(lines) - cap} more {what} not shown; narrow it]"])


def ls(ctx: ToolContext, path: str = ".") -> str:
    """List a directory's entries; directories end in a slash.

    Args:
        path: The directory, relative to the repository root.
    """
    real, _ = _directory(ctx, path)
    entries = []
    with os.scandir(real) as found:
        for entry in found:
            if entry.name == ".git":
                continue
            entries.append(entry.name + ("/" if entry.is_dir() else ""))
    if not entries:
        return f"{path} is empty."
    entries.sort(key=lambda name: (not name.endswith("/"), name.lower()))
    return _capped(entries, ctx.policy.max_tree_entries, "entries")


def tree(ctx: ToolContext, path: str = ".", depth: int | None = None) -> str:
    """Show the directory tree of the repository's files (ignored files left out).

    Args:
        path: The directory to start from, relative to the repository root.
        depth: How many levels to show (default: all).
    """
    _, prefix = _directory(ctx, path)
    if depth is not None and depth < 1:
        raise ToolFailure(f"depth must be 1 or more, not {depth}")
    files = [f.path[len(prefix) :] for f in _files(ctx, prefix)]
    if not files:
        return f"No files under {path}."
    lines = render_tree(build_tree(files)).splitlines()
    if depth is not None:
        lines = [line for line in lines if (len(line) - len(line.lstrip(" "))) // 2 < depth]
    return _capped(lines, ctx.policy.max_tree_entries, "entries")


def glob(ctx: ToolContext, pattern: str, path: str = ".") -> str:
    """Find files whose path matches a glob pattern (gitignore syntax: src/**/*.py, *.md).

    Args:
        pattern: The pattern, matched against paths relative to the directory.
        path: The directory to search, relative to the repository root.
    """
    _, prefix = _directory(ctx, path)
    spec = glob_matcher(pattern)
    hits = [f.path for f in _files(ctx, prefix) if spec(f.path[len(prefix) :])]
    if not hits:
        return f"No files match {pattern!r} under {path}."
    return _capped(hits, ctx.policy.max_matches, "files")


def grep(
    ctx: ToolContext,
    pattern: str,
    path: str = ".",
    include: str | None = None,
    ignore_case: bool = False,
) -> str:
    """Search file contents for a regular expression; lists path:line: text for each match.

    Args:
        pattern: A Python regular expression.
        path: The directory to search, relative to the repository root.
        include: Only search files matching this glob pattern (e.g. *.py).
        ignore_case: Match regardless of letter case.
    """
    try:
        regex = re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as exc:
        raise ToolFailure(f"pattern {pattern!r} is not a valid regular expression: {exc}") from None
    _, prefix = _directory(ctx, path)
    spec = glob_matcher(include) if include else None
    cap = ctx.policy.max_matches
    hits: list[str] = []
    for file in _files(ctx, prefix):
        if spec is not None and not spec(file.path[len(prefix) :]):
            continue
        try:
            text = read_text(Path(ctx.root), file.path)
        except UnreadableFile:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if regex.search(line):
                hits.append(f"{file.path}:{number}: {line.strip()[:300]}")
                if len(hits) > cap:
                    stop = f"[stopped after {cap} matches; narrow the pattern, path or include]"
                    return "\n".join([*hits[:cap], stop])
    if not hits:
        return f"No matches for {pattern!r} under {path}."
    return "\n".join(hits)
