"""Path aliasing: the model sees ``@project``, ``@pkg`` and ``@state``, never real paths.

:func:`alias_text` replaces every occurrence of a mount's real absolute path in a text with
the mount's name (longest root first, so a root that is a prefix of another, or a state
directory inside the project, is still aliased to the right mount). :func:`dealias` turns a
path the model sends back into a real path, refusing traversal, paths outside every mount,
and writes to the read-only ``@pkg``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from agentprompt.workflow.errors import ReadOnlyMount, UnsafeModelPath

__all__ = [
    "MOUNT_NAMES",
    "MountName",
    "Mounts",
    "alias_path",
    "alias_text",
    "dealias",
]

MountName = Literal["@project", "@pkg", "@state"]
"""The three mounts a workflow model works with."""

MOUNT_NAMES: tuple[MountName, ...] = ("@project", "@pkg", "@state")
"""Every mount name, in the order the runtime rules present them."""

# A root is a real path only where it is not glued to a longer name: not preceded by a
# name character (so ``@pkg/x`` never matches a root ``/x``), and not followed by one
# (so ``/p`` does not match inside ``/p2``). A dot ends a path unless a name follows it.
# Where in doubt, alias: a wrongly aliased word leaks nothing.
_BEFORE = r"(?<![\w\-~@])"
_AFTER = r"(?![\w\-~@]|\.[\w\-~@])"


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
        """Each mount with its real root as text, longest root first."""
        pairs: list[tuple[MountName, str]] = [
            ("@project", _text(self.project)),
            ("@pkg", _text(self.package)),
            ("@state", _text(self.state)),
        ]
        return tuple(sorted(pairs, key=lambda pair: len(pair[1]), reverse=True))

    def root_of(self, mount: MountName) -> Path:
        """The real directory behind ``mount``."""
        return {"@project": self.project, "@pkg": self.package, "@state": self.state}[mount]


def _text(path: Path) -> str:
    text = os.path.normpath(str(path))
    return text if text == "/" else text.rstrip("/")


def alias_text(text: str, mounts: Mounts) -> str:
    """``text`` with every real mount path replaced by its mount name.

    The longest root wins where roots nest, so ``/x/proj/.state/run.json`` becomes
    ``@state/run.json`` when the state directory lives inside the project ``/x/proj``.
    """
    roots = mounts.roots()
    if not text or not any(root in text for _, root in roots):
        return text
    names: dict[str, MountName] = {}
    for name, root in roots:  # longest first, so the regex tries nested roots before outer ones
        names.setdefault(root, name)
    pattern = re.compile(_BEFORE + "(" + "|".join(re.escape(root) for root in names) + ")" + _AFTER)
    return pattern.sub(lambda m: names[m.group(1)], text)


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
    :class:`UnsafeModelPath`: absolute real paths, ``..`` anywhere, a mount name glued to
    other text (``@pkgx``), and a path whose symbolic links lead outside its mount. With
    ``write=True`` a path under ``@pkg`` raises :class:`ReadOnlyMount`.
    """
    if "\0" in path:
        raise UnsafeModelPath(path, "it contains a NUL character")
    text = path.replace("\\", "/").strip()
    if not text:
        raise UnsafeModelPath(path, "it is empty")
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
    if write and mount != "@pkg":
        package = mounts.package.resolve()
        if real_target == package or real_target.is_relative_to(package):
            raise ReadOnlyMount(path)
    return target
