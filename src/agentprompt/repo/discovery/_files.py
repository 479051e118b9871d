"""Discovery: which files of a repository a prompt may show, and why each other file may not.

Inside a git work tree the candidates are git's own view (tracked files plus untracked files
that no ``.gitignore``, ``.git/info/exclude`` or global excludes file ignores), from a single
``git ls-files`` call. Outside git, the tree is walked and ``.gitignore`` files at every
depth are applied with git's semantics (:mod:`agentprompt.repo.discovery._ignore`). Then, in both
cases, the default exclusions (build output and caches only for files git does not track,
see :mod:`agentprompt.repo.discovery._defaults`), the caller's extra patterns and
``.agentpromptignore`` files (gitignore syntax, any depth; a ``!`` line there can re-include
a default exclusion) are applied, followed by the per-file checks: paths resolving outside
the root or into ``.git``, symlinks to files that are not included themselves, the size
cap, binary content, and generated or minified files (by name, by a generator's header or by
very long lines, reading at most the first 8 KiB of a file; kept on request with
``DiscoveryOptions(include_generated=True)``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agentprompt.errors import AgentPromptError, NotADirectory
from agentprompt.repo.discovery._git import GitListing, run_git
from agentprompt.repo.discovery._sniff_memo import Remembered, SniffStamp
from agentprompt.repo.discovery._walk import (
    AGENTPROMPTIGNORE,
    DiscoveryOptions,
    Exclusion,
    RepoFile,
    in_git_dir,
    inside,
    is_generated_reason,
    scan,
)

__all__ = [
    "AGENTPROMPTIGNORE",
    "Discovery",
    "DiscoveryOptions",
    "Exclusion",
    "RepoFile",
    "UnreadableFile",
    "discover",
    "explain",
    "explain_in",
    "is_generated_reason",
    "read_text",
    "read_texts",
]


class UnreadableFile(AgentPromptError):
    """A file could not be read as UTF-8 text."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"cannot read {path}: {why}; it is left out")
        self.path = path
        """The file, relative to the root."""
        self.why = why
        """What went wrong."""


@dataclass(frozen=True, kw_only=True)
class Discovery:
    """The result of :func:`discover`."""

    root: Path
    """The resolved root directory."""
    files: tuple[RepoFile, ...]
    """The included files, sorted by path."""
    excluded: tuple[Exclusion, ...]
    """Reportable exclusions, sorted by path (whole directories summarised as ``dir/``)."""
    problems: tuple[str, ...]
    """Files that could not be read, each reported once."""
    git: bool
    """True when git's view of the files was used."""
    sniffed: Mapping[str, Remembered] = field(default_factory=dict)
    """The content verdict of every file read or reused, with the file's stamp, by path:
    what a later :func:`discover` of the same root may reuse (see
    :mod:`agentprompt.repo.discovery._sniff_memo`)."""


def _resolve_root(root: Path) -> Path:
    if not root.is_dir():
        raise NotADirectory(root)
    return root.resolve()


def discover(
    root: Path,
    options: DiscoveryOptions | None = None,
    *,
    known: Mapping[str, Remembered] | None = None,
    listing: GitListing | None = None,
) -> Discovery:
    """The files under ``root`` a prompt may show, and the reason for every one left out.

    ``known``: content verdicts of an earlier discovery of the same root
    (:attr:`Discovery.sniffed`); files whose size, times and inode are unchanged are not
    read again. ``listing``: git's listing of the resolved root, when the caller already
    has it. Raises :class:`~agentprompt.errors.NotADirectory` when ``root`` is not a directory.
    """
    options = options or DiscoveryOptions()
    resolved = _resolve_root(root)
    found = scan(resolved, options, known, listing)
    return Discovery(
        root=resolved,
        files=found.files,
        excluded=found.excluded,
        problems=found.problems,
        git=found.git,
        sniffed=found.sniffed,
    )


def _relative(root: Path, path: str) -> str | None:
    """``path`` (relative to ``root`` or absolute) as a POSIX path relative to ``root``."""
    given = Path(path)
    full = given if given.is_absolute() else root / given
    normal = os.path.normpath(os.path.abspath(full))
    if normal == str(root):
        return ""
    if not normal.startswith(str(root) + os.sep):
        return None
    return Path(normal).relative_to(root).as_posix()


def _git_ignore_reason(root: Path, rel: str) -> str | None:
    """Which git ignore rule (file, line, pattern) leaves ``rel`` out, if any."""
    done = run_git(
        ["check-ignore", "-z", "-v", "--no-index", "--stdin"], root, stdin=os.fsencode(rel) + b"\0"
    )
    if done is None:
        return None
    fields = os.fsdecode(done.stdout).split("\0")
    if done.returncode != 0 or len(fields) < 3 or not fields[0]:
        return None
    source, line, pattern = fields[0], fields[1], fields[2]
    return f"ignored by git: {source}:{line} (`{pattern}`)"


def _covering(excluded: Iterable[Exclusion], rel: str) -> Exclusion | None:
    for item in excluded:
        if item.path == rel or (item.path.endswith("/") and (rel + "/").startswith(item.path)):
            return item
    return None


def explain(root: Path, path: str, options: DiscoveryOptions | None = None) -> Exclusion | RepoFile:
    """Why ``path`` is in (its :class:`RepoFile`) or out (an :class:`Exclusion` with the reason).

    ``path`` is relative to ``root`` or absolute. Raises
    :class:`~agentprompt.errors.NotADirectory` when ``root`` is not a directory.
    """
    return explain_in(discover(root, options), path)


def explain_in(found: Discovery, path: str) -> Exclusion | RepoFile:
    """As :func:`explain`, over a discovery already made (no second scan)."""
    rel = _relative(found.root, path)
    if rel is None:
        return Exclusion(path=path, reason="outside the root")
    if rel == "":
        return Exclusion(path="./", reason="the root directory itself, not a file")
    for item in found.files:
        if item.path == rel:
            return item
    covering = _covering(found.excluded, rel)
    if covering is not None:
        return Exclusion(path=rel, reason=covering.reason)
    if rel == ".git" or rel.startswith(".git/"):
        return Exclusion(path=rel, reason="inside .git, git's own data (never listed)")
    link = _linked_folder(found.root, rel)
    if link is not None:
        return Exclusion(path=rel, reason=link)
    full = found.root / rel
    if not full.exists() and not full.is_symlink():
        return Exclusion(path=rel, reason="does not exist")
    if full.is_dir():
        return Exclusion(path=rel, reason="a directory, not a file")
    if not found.git:
        return Exclusion(path=rel, reason="not reached by the folder walk")
    why = _git_ignore_reason(found.root, rel)
    if why is not None:
        return Exclusion(path=rel, reason=why)
    return Exclusion(path=rel, reason="not listed by git (inside a nested repository)")


def _linked_folder(root: Path, rel: str) -> str | None:
    """Why ``rel`` is out when one of its folders is a symlink (``None`` when none is)."""
    parts = rel.split("/")[:-1]
    for end in range(1, len(parts) + 1):
        folder = "/".join(parts[:end])
        full = root / folder
        if full.is_symlink():
            real = os.path.realpath(full)
            if not inside(str(root), real):
                where = "pointing outside the root (not followed)"
            elif in_git_dir(str(root), real):
                where = "pointing into .git (never followed)"
            else:
                target = Path(real).relative_to(root).as_posix() or "."
                where = f"to {target}/ inside the root (not followed; its target is listed)"
            return f"inside {folder}/, a symlinked folder {where}"
    return None


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def read_text(root: Path, path: str) -> str:
    """The UTF-8 text of ``path`` (relative to ``root``); raises :class:`UnreadableFile`.

    The path is resolved again just before reading: one that now leads outside the root or
    into ``.git`` (a folder or file swapped for a symlink since discovery) is refused.
    """
    base = os.path.realpath(root)
    return _read_real(base, path, os.path.realpath(os.path.join(base, path)))


def read_texts(
    root: Path, paths: Iterable[str], *, stamps: dict[str, SniffStamp] | None = None
) -> tuple[dict[str, str], dict[str, str]]:
    """The text of each of ``paths`` as :func:`read_text` reads it, and the reason for each
    that cannot be read.

    Resolving every path again costs more than reading a whole repository, so each folder
    is resolved once and each file is opened without following a symlink; a file that is a
    symlink itself, or fails in any other way, is read by :func:`read_text` for its exact
    verdict. ``stamps``, when given, receives the (size, mtime_ns, ctime_ns, inode) of each
    file opened directly, taken *after* reading: equal to a stamp taken before reading
    (discovery's), it says the text read is the text that stamp describes."""
    base = os.path.realpath(root)
    folders: dict[str, str] = {}
    texts: dict[str, str] = {}
    problems: dict[str, str] = {}
    for path in paths:
        folder, _, name = path.rpartition("/")
        if _NOFOLLOW and name not in ("", ".", ".."):
            real_folder = folders.get(folder)
            if real_folder is None:
                real_folder = folders[folder] = os.path.realpath(os.path.join(base, folder))
            try:
                texts[path] = _read_real(base, path, os.path.join(real_folder, name), stamps)
                continue
            except UnreadableFile:
                pass  # read again the careful way, for the exact reason
        try:
            texts[path] = read_text(root, path)
        except UnreadableFile as exc:
            problems[path] = exc.why
    return texts, problems


def _read_real(base: str, path: str, real: str, stamps: dict[str, SniffStamp] | None = None) -> str:
    """The UTF-8 text at the resolved location ``real`` of ``path``, refused outside the
    resolved root ``base`` or inside its ``.git``; with ``stamps``, the file's stamp after
    reading is put there."""
    if not inside(base, real) or in_git_dir(base, real):
        raise UnreadableFile(path, "it resolves outside the repository root or into .git")
    try:
        handle = os.open(real, os.O_RDONLY | _NOFOLLOW)
        with os.fdopen(handle, "rb") as stream:
            data = stream.read()
            if stamps is not None:
                st = os.fstat(stream.fileno())
                stamps[path] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)
    except OSError as exc:
        raise UnreadableFile(path, exc.strerror or type(exc).__name__) from None
    if b"\0" in data:
        raise UnreadableFile(path, "binary content")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UnreadableFile(path, f"not UTF-8 text (invalid byte at offset {exc.start})") from None
