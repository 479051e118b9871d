"""Path safety: every path a reply names must resolve to a plain file inside the root.

A model's reply is untrusted input. Before any content is read or written, each path is
checked: no NUL bytes, no absolute paths or drive letters, no ``..``, no first folder a shell
would expand (``~``, ``~user``, ``$HOME``, ``${HOME}``, ``%USERPROFILE%``), nothing under
``.git/`` or the applier's own journal, no symlink (anywhere on the way) that leads out of
the root, and no device file, FIFO, socket or directory where a file is expected.
"""

from __future__ import annotations

import os
import re
import stat
import unicodedata
from collections.abc import Sequence
from pathlib import Path

from agentprompt.edits.actions import EditError
from agentprompt.errors import UsageError, literal

__all__ = [
    "JOURNAL_DIR",
    "TEMP_NAME",
    "PathTooLong",
    "UnsafePath",
    "check_inside",
    "check_portable",
    "check_target",
    "check_writable",
    "is_symlink",
    "portable_key",
    "resolve_inside",
    "resolve_target",
]

JOURNAL_DIR = ".agentprompt/journal"
"""Where the applier keeps its journal, relative to the root; replies may not touch it."""


TEMP_NAME = re.compile(r"^\..*\.agentprompt-[0-9a-f]+\.tmp$")
"""The applier's temporary file names; replies may not name such a file."""

NAME_LIMIT = 255
"""The most bytes one file or directory name may take on common file systems."""
PATH_LIMIT = 4096
"""The most bytes a whole path may take (Linux ``PATH_MAX``)."""
TEMP_EXTRA = len(".x.agentprompt-0123456789abcdef.tmp") - 1
"""How many bytes a temporary copy's name adds to the file's name."""

_IGNORED = (
    "\u00ad\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u206a\u206b\u206c\u206d\u206e\u206f\ufeff"
)
"""Characters a file system ignores in names (HFS+ drops these, as git's ``protectHFS``
knows), or that no one sees: zero-width, joiners, direction marks and overrides."""
_ZERO_WIDTH = dict.fromkeys(map(ord, _IGNORED))

_SHELL_START = re.compile(
    r"~(?:[A-Za-z_][A-Za-z0-9_-]*)?|\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\}|%[A-Za-z_][\w()]*%"
)
"""A first folder a shell would expand: ``~``, ``~user``, ``$VAR``, ``${VAR}``, ``%VAR%``.
Meant as the home folder or a variable's value, never as a folder of that name in the root,
it is refused unless the root holds such an entry."""

OWN_FILES = ((".agentprompt",), ("config", "prompts"))
"""Folders holding agentprompt's own instructions and state, relative to the root: a reply
may not write there (a model could otherwise rewrite the instructions it is given)."""


def _why(name: str, /, **values: object) -> str:
    """The catalogue's reason ``reason_<name>``: a refused path of an edit is part of its
    feedback, so it is worded in the language of the apply in progress (English elsewhere)."""
    # Imported here: checking a path that is safe needs no prompt loader.
    from agentprompt.edits._reasons import reason

    return reason(name, **values)


class UnsafePath(EditError):
    """A path that could leave the root or damage the repository; it is refused."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(_why("unsafe_path", path=repr(path), reason=reason))


def _realpath(path: str, cache: dict[str, str] | None) -> str:
    if cache is None:
        return os.path.realpath(path)
    found = cache.get(path)
    if found is None:
        found = cache[path] = os.path.realpath(path)
    return found


class PathTooLong(UnsafePath):
    """A path with a name, or a whole length, no file system holds; nothing of it exists."""


def _check_lengths(path: str, parts: list[str]) -> None:
    """Refuse names no file system holds, before anything is created on the way."""
    for part in parts[:-1]:
        if len(part.encode("utf-8")) > NAME_LIMIT:
            raise PathTooLong(path, _why("path_dir_name_long", limit=NAME_LIMIT, name=part[:40]))
    if len(parts[-1].encode("utf-8")) + TEMP_EXTRA > NAME_LIMIT:
        raise PathTooLong(path, _why("path_name_long", limit=NAME_LIMIT - TEMP_EXTRA))


def _real_child(parent: str, key: str, name: str, cache: dict[str, str] | None) -> str:
    """The real path of directory ``name`` in the real directory ``parent`` (``key``: its
    path from the root, for the cache); one ``lstat`` per directory, not per ancestor."""
    found = cache.get("\0" + key) if cache is not None else None
    if found is None:
        found = os.path.join(parent, name)
        if os.path.islink(found):
            found = os.path.realpath(found)
        if cache is not None:
            cache["\0" + key] = found
    return found


def resolve_inside(root: Path, path: str, cache: dict[str, str] | None = None) -> Path:
    """The real location of ``path`` (relative to ``root``), refused if it is unsafe.

    Symlinks inside the root are followed (the real file is what gets written); the result
    is an absolute path under the real root. Raises :class:`UnsafePath` with the reason.
    ``cache`` (a dict the caller keeps for one batch of paths) remembers resolved
    directories, so many files in the same directories cost one lookup each.
    """
    return Path(_resolve(root, path, cache)[0])


def check_inside(root: Path, paths: Sequence[str], *, input: str) -> tuple[str, ...]:
    """``paths`` (given as ``input``) when every one is a path the edit engine would write
    (no ``..``, no absolute path, no symlink out of the root, nothing under ``.git``), so
    nothing outside the root is ever read; else a :class:`UsageError` naming ``input``."""
    cache: dict[str, str] = {}
    for path in paths:
        if not path.strip():
            raise UsageError("an empty path", input=input, fix="give paths relative to the root")
        try:
            resolve_inside(root, path, cache)
        except UnsafePath as exc:
            raise UsageError(literal(str(exc)), input=input) from None
    return tuple(paths)


def resolve_target(
    root: Path, path: str, cache: dict[str, str] | None = None
) -> tuple[Path, os.stat_result | None]:
    """:func:`resolve_inside` plus the target's status (``None`` when it does not exist);
    anything but a regular file is refused, as by :func:`check_target`."""
    real, info = _resolve(root, path, cache)
    target = Path(real)
    return target, (check_target(target, path) if info is None else _regular(info, path))


def _resolve(
    root: Path, path: str, cache: dict[str, str] | None
) -> tuple[str, os.stat_result | None]:
    """The checked real path, and its ``lstat`` when that was taken on the way."""
    if not path or not path.strip():
        raise UnsafePath(path, _why("path_empty"))
    if "\0" in path:
        raise UnsafePath(path, _why("path_nul"))
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise UnsafePath(path, _why("path_unencodable")) from None
    posix = path.replace("\\", "/")
    if posix.startswith("/") or (len(posix) > 1 and posix[1] == ":" and posix[0].isalpha()):
        raise UnsafePath(path, _why("path_absolute"))
    parts = [p for p in posix.split("/") if p not in ("", ".")]
    if not parts:
        raise UnsafePath(path, _why("path_root"))
    if ".." in parts:
        raise UnsafePath(path, _why("path_parent"))
    if _may_name_git(posix) and any(_is_git(p) for p in parts):
        raise UnsafePath(path, _why("path_git"))
    if _SHELL_START.fullmatch(parts[0]) and not os.path.lexists(os.path.join(root, parts[0])):
        raise UnsafePath(path, _shell_start(parts))
    _check_lengths(path, parts)
    if TEMP_NAME.match(parts[-1]):
        raise UnsafePath(path, _why("path_temp"))
    real_root = _realpath(str(root), cache)
    parent = cache.get("\0" + "/".join(parts[:-1])) if cache is not None else None
    if parent is None:
        parent = real_root
        for depth in range(1, len(parts)):
            parent = _real_child(parent, "/".join(parts[:depth]), parts[depth - 1], cache)
    real = os.path.join(parent, parts[-1])
    try:
        info: os.stat_result | None = os.lstat(real)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    if info is not None and stat.S_ISLNK(info.st_mode):
        real = os.path.realpath(real)
        info = None
    if len(os.fsencode(real)) + TEMP_EXTRA >= PATH_LIMIT:
        raise PathTooLong(path, _why("path_too_long", limit=PATH_LIMIT))
    prefix = real_root.rstrip(os.sep) + os.sep
    if real == real_root:
        raise UnsafePath(path, _why("path_resolves_root"))
    if not real.startswith(prefix):
        raise UnsafePath(path, _why("path_link_outside"))
    inner = real[len(prefix) :].split(os.sep)
    if _may_name_git(real[len(prefix) :]) and any(_is_git(p) for p in inner):
        raise UnsafePath(path, _why("path_link_git"))
    if [p.lower() for p in inner[:2]] == JOURNAL_DIR.split("/"):
        raise UnsafePath(path, _why("path_journal"))
    return real, info


def _shell_start(parts: list[str]) -> str:
    """The reason refusing a path whose first folder (``parts[0]``) a shell would expand,
    naming the path relative to the root that was most likely meant."""
    if len(parts) == 1:
        return _why("path_shell_start_alone", start=parts[0])
    return _why("path_shell_start", start=parts[0], rest="/".join(parts[1:]))


def _may_name_git(path: str) -> bool:
    """Cheap pre-check: only a non-ASCII path or one holding ``git`` can name ``.git``."""
    return not path.isascii() or "git" in path.lower()


def _is_git(part: str) -> bool:
    """``part`` names ``.git`` on some platform, as git's ``protectNTFS`` and ``protectHFS``
    see it: any case, trailing dots or spaces (Windows drops them), an NTFS stream suffix
    (``.git::$INDEX_ALLOCATION``), characters HFS+ ignores (``.g\u200eit``), or the 8.3
    short name ``GIT~1``."""
    if part.isascii():
        name = part.split(":", 1)[0].lower().rstrip(". ")
        return name == ".git" or (name.startswith("git~") and name[4:].isdigit())
    name = unicodedata.normalize("NFKC", part.translate(_ZERO_WIDTH)).casefold()
    name = name.split(":", 1)[0].rstrip(". ")
    return name == ".git" or re.fullmatch(r"git~\d+", name) is not None


def portable_key(name: str) -> str:
    """The one name ``name`` is on every common file system: macOS and Windows ignore case,
    macOS ignores Unicode normalization (NFC and NFD are one name) and the characters of
    :data:`_IGNORED`, Windows drops trailing dots and spaces. Two names with one key are one
    file somewhere."""
    if name.isascii():
        return name.lower().rstrip(". ") or name
    folded = unicodedata.normalize("NFC", name.translate(_ZERO_WIDTH)).casefold()
    return unicodedata.normalize("NFC", folded).rstrip(". ") or name


def _real_root(root: Path, cache: dict[str, str] | None) -> str:
    return _realpath(str(root), cache)


def check_writable(
    root: Path,
    real: Path,
    info: os.stat_result | None,
    path: str,
    cache: dict[str, str] | None = None,
) -> None:
    """Refuse a write (or delete, or move) of ``real`` (``path`` resolved by
    :func:`resolve_target`, with its status ``info``): agentprompt's own instructions and
    state (:data:`OWN_FILES`), which a reply may read but never change, and a read-only file,
    which a reply does not replace without a word."""
    prefix = _real_root(root, cache).rstrip(os.sep) + os.sep
    spelled = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    inner = str(real)[len(prefix) :].split(os.sep)
    for parts in (spelled, inner):
        keys = [portable_key(p) for p in parts[:-1]]
        for own in OWN_FILES:
            if tuple(keys[: len(own)]) == own:
                raise UnsafePath(path, _why("path_own_config", where="/".join(own) + "/"))
    if info is not None and not info.st_mode & 0o222:
        raise UnsafePath(path, _why("path_read_only", mode=f"{stat.S_IMODE(info.st_mode):04o}"))


def check_portable(real: Path, path: str) -> tuple[str, str] | None:
    """For a file to be created at ``real``: the first name on its way that does not exist
    yet and an existing name beside it that is the same name on macOS or Windows
    (:func:`portable_key`), as ``(existing, new)``; ``None`` when there is none. The
    existing directory ``sub/`` and a new ``SUB/x.txt`` are one directory there."""
    below = real
    parent = real.parent
    while not parent.exists():
        if parent == parent.parent:
            return None
        below, parent = parent, parent.parent
    try:
        names = os.listdir(parent)
    except OSError:
        return None
    name = below.name
    key = portable_key(name)
    for other in names:
        if other != name and portable_key(other) == key:
            return other, name
    return None


def is_symlink(root: Path, path: str) -> bool:
    """``path`` (already checked by :func:`resolve_inside`) itself names a symlink."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    parent = resolve_inside(root, "/".join(parts[:-1])) if len(parts) > 1 else Path(root)
    return os.path.islink(os.path.join(parent, parts[-1]))


def check_target(real: Path, path: str) -> os.stat_result | None:
    """The status of the resolved ``real`` file (``None`` if it does not exist); anything but
    a regular file is refused."""
    try:
        info = os.lstat(real)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise UnsafePath(path, _why("path_file_in_way")) from None
    return _regular(info, path)


def _regular(info: os.stat_result, path: str) -> os.stat_result:
    """``info`` if it describes a regular file; otherwise the refusal, with the reason."""
    mode = info.st_mode
    if stat.S_ISREG(mode):
        return info
    if stat.S_ISDIR(mode):
        raise UnsafePath(path, _why("path_directory"))
    if stat.S_ISFIFO(mode):
        raise UnsafePath(path, _why("path_fifo"))
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        raise UnsafePath(path, _why("path_device"))
    if stat.S_ISSOCK(mode):
        raise UnsafePath(path, _why("path_socket"))
    raise UnsafePath(path, _why("path_special"))
