"""Path aliasing: the model sees ``@project``, ``@pkg`` and ``@state``, never real paths.

:func:`alias_text` replaces every occurrence of a mount's real absolute path in a text with
the mount's name. Each mount is known by two spellings, the absolute path it was given and
that path with its symbolic links resolved, and a root matches however many slashes
separate its parts (``/x//proj``). The longest root wins, so a root that is a prefix of
another, or a state directory inside the project, is aliased to the right mount.

A root found where it is not a whole path, glued to a longer name (``/x/proj.txt`` or
``/x/project2/a`` when the project is ``/x/proj``), cannot be aliased without lying about
which file is meant, and left alone it would reveal the mount's real location: the whole
path is replaced by :data:`HIDDEN_PATH`. So no real root text ever reaches the model.

:func:`dealias` turns a path the model sends back into a real path, refusing traversal,
paths outside every mount, the state directory reached through another mount, and writes
to the read-only ``@pkg``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal

from agentprompt.workflow.errors import ReadOnlyMount, UnsafeModelPath

__all__ = [
    "HIDDEN_PATH",
    "MOUNT_NAMES",
    "MountName",
    "Mounts",
    "alias_path",
    "alias_text",
    "dealias",
    "mount_overlap",
]

MountName = Literal["@project", "@pkg", "@state"]
"""The three mounts a workflow model works with."""

MOUNT_NAMES: tuple[MountName, ...] = ("@project", "@pkg", "@state")
"""Every mount name, in the order the runtime rules present them."""

HIDDEN_PATH = "[hidden path]"
"""What a path that contains a mount root, but is not inside that mount, is shown as."""

# A root is a whole path only where it is not glued to a longer name: not preceded by a
# name character (so ``@pkg/x`` never matches a root ``/x``), and not followed by one
# (so ``/p`` does not match inside ``/p2``). A dot ends a path unless a name follows it.
_NAME = r"[\w\-~@]"
_BEFORE = r"(?<!" + _NAME + r")"
_AFTER = r"(?!" + _NAME + r"|\." + _NAME + r")"
# The characters of a path-like word, for hiding a whole path around a glued root.
_WORD = re.compile(r"[^\s'\"`()<>\[\]{},;=:|]")


@dataclass(frozen=True, kw_only=True)
class Mounts:
    """The real directories behind the three mounts."""

    project: Path
    """The user's project (``@project``): read and write, as the tool policy allows."""
    package: Path
    """The workflow package (``@pkg``): read-only."""
    state: Path
    """The run's state directory (``@state``): hidden runtime bookkeeping."""

    def roots(self) -> tuple[tuple[MountName, str], ...]:
        """Each mount with each spelling of its real root (as given, and with symbolic
        links resolved), longest root first."""
        return _roots(self)

    def root_of(self, mount: MountName) -> Path:
        """The real directory behind ``mount``."""
        return {"@project": self.project, "@pkg": self.package, "@state": self.state}[mount]


def _text(path: Path) -> str:
    text = re.sub("/+", "/", os.path.normpath(str(path)))
    return text if text == "/" else text.rstrip("/")


@lru_cache(maxsize=64)
def _roots(mounts: Mounts) -> tuple[tuple[MountName, str], ...]:
    pairs: dict[str, MountName] = {}
    for name in MOUNT_NAMES:
        root = mounts.root_of(name)
        for spelling in (_text(root), _text(root.resolve())):
            pairs.setdefault(spelling, name)
    ordered = sorted(pairs.items(), key=lambda pair: len(pair[0]), reverse=True)
    return tuple((name, root) for root, name in ordered)


def _root_pattern(root: str) -> str:
    """A root as a regex that also matches it with doubled slashes (``/x//proj``)."""
    return "/+".join(re.escape(part) for part in root.split("/"))


@lru_cache(maxsize=64)
def _patterns(mounts: Mounts) -> tuple[re.Pattern[str], re.Pattern[str], dict[str, MountName]]:
    roots = _roots(mounts)
    groups = "|".join(f"(?P<r{i}>{_root_pattern(root)})" for i, (_, root) in enumerate(roots))
    whole = re.compile(_BEFORE + "(?:" + groups + ")" + _AFTER)
    anywhere = re.compile(groups)
    return whole, anywhere, {f"r{i}": name for i, (name, _) in enumerate(roots)}


def alias_text(text: str, mounts: Mounts) -> str:
    """``text`` with every real mount path replaced by its mount name.

    The longest root wins where roots nest, so ``/x/proj/.state/run.json`` becomes
    ``@state/run.json`` when the state directory lives inside the project ``/x/proj``. A
    root glued to a longer name hides its whole path as :data:`HIDDEN_PATH`.
    """
    if not text or "/" not in text:
        return text
    whole, anywhere, names = _patterns(mounts)
    out: list[str] = []
    pos = 0
    alias: re.Match[str] | None = None
    while True:
        found = anywhere.search(text, pos)
        if found is None:
            break
        if alias is None or alias.start() < pos:  # the next whole-path match, found once
            alias = whole.search(text, pos)
        if alias is not None and alias.start() <= found.start():
            out.append(text[pos : alias.start()])
            out.append(names[str(alias.lastgroup)])
            pos = alias.end()
            continue
        start, end = found.start(), found.end()
        while start > pos and _WORD.match(text, start - 1):
            start -= 1
        while end < len(text) and _WORD.match(text, end):
            end += 1
        out.append(text[pos:start])
        out.append(HIDDEN_PATH)
        pos = end
    out.append(text[pos:])
    return "".join(out)


def mount_overlap(mounts: Mounts) -> str | None:
    """Why these mounts cannot be used together, or None when they can.

    Two mounts may not be the same directory, the project may not lie inside the package
    (it would be read-only), and the state directory may not lie inside the package. The
    package and the state directory may lie inside the project.
    """
    spellings = {
        name: {Path(_text(mounts.root_of(name))), Path(_text(mounts.root_of(name).resolve()))}
        for name in MOUNT_NAMES
    }

    def inside(inner: MountName, outer: MountName) -> bool:
        return any(i.is_relative_to(o) for i in spellings[inner] for o in spellings[outer])

    pairs: tuple[tuple[MountName, MountName], ...] = (
        ("@project", "@pkg"),
        ("@project", "@state"),
        ("@pkg", "@state"),
    )
    for a, b in pairs:
        if spellings[a] & spellings[b]:
            return f"{a} and {b} are the same directory; give each mount its own directory"
    if inside("@project", "@pkg"):
        return (
            "the project lies inside the package (@pkg is read-only); choose a project "
            "directory outside the package"
        )
    if inside("@state", "@pkg"):
        return (
            "the state directory lies inside the package (@pkg is read-only); choose a "
            "state directory outside the package"
        )
    return None


def alias_path(path: Path | str, mounts: Mounts) -> str:
    """A real path as the model sees it (``@project/src/app.py``).

    A path inside no mount is refused: the model must never learn where files really are.
    """
    real = _text(Path(path))
    for name, root in mounts.roots():
        if real == root:
            return name
        prefix = root if root.endswith("/") else root + "/"
        if real.startswith(prefix):
            return f"{name}/{real[len(prefix) :]}"
    raise UnsafeModelPath(str(path), "it is inside no mount (@project, @pkg or @state)")


def dealias(path: str, mounts: Mounts, *, write: bool = False) -> Path:
    """The real path behind a path the model sent (``@project/src/app.py``).

    A path without a mount is taken relative to ``@project``. Refused, with
    :class:`UnsafeModelPath`: :data:`HIDDEN_PATH`, absolute real paths, ``..`` anywhere, a
    mount name glued to other text (``@pkgx``), a path whose symbolic links lead outside
    its mount, and the hidden state directory reached through another mount
    (``@project/.agentprompt/...``; name it ``@state/...``). With ``write=True`` a path
    under ``@pkg`` (also through ``@project``) raises :class:`ReadOnlyMount`.
    """
    if "\0" in path:
        raise UnsafeModelPath(path, "it contains a NUL character")
    text = path.replace("\\", "/").strip()
    if not text:
        raise UnsafeModelPath(path, "it is empty")
    if HIDDEN_PATH in text:
        raise UnsafeModelPath(path, f"{HIDDEN_PATH} stands for a path outside every mount")
    head, _, rest = text.partition("/")
    mount: MountName
    if head.startswith("@"):
        if head not in MOUNT_NAMES:
            raise UnsafeModelPath(path, f"{head} is not a mount (use @project, @pkg or @state)")
        mount = head
    elif text.startswith("/"):
        raise UnsafeModelPath(path, "absolute paths are not accepted; name a mount instead")
    else:
        mount, rest = "@project", text
    parts = [p for p in PurePosixPath(rest).parts if p not in ("", ".")] if rest else []
    if ".." in parts:
        raise UnsafeModelPath(path, "'..' may not appear in a path")
    if write and mount == "@pkg":
        raise ReadOnlyMount(path)
    root = mounts.root_of(mount)
    target = root.joinpath(*parts)
    real_root = root.resolve()
    real_target = target.resolve()
    if real_target != real_root and not real_target.is_relative_to(real_root):
        raise UnsafeModelPath(path, f"a symbolic link leads it outside {mount}")
    if mount != "@state" and real_target.is_relative_to(mounts.state.resolve()):
        raise UnsafeModelPath(
            path, "it is inside the hidden state directory; name the file as @state/..."
        )
    if write and mount != "@pkg" and real_target.is_relative_to(mounts.package.resolve()):
        raise ReadOnlyMount(path)
    return target
