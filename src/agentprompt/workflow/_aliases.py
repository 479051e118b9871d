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

import html
import os
import posixpath
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal
from urllib.parse import unquote

from agentprompt.workflow._errors import READ_ONLY, UnsafeModelPath

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
            for form in ("NFC", "NFD"):
                pairs.setdefault(unicodedata.normalize(form, spelling), name)
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

    Other spellings of a root are found too, after normalising the text for matching:
    Unicode NFC or NFD, letter case, fullwidth and other look-alike slashes, zero-width and
    direction characters, percent and HTML-entity encoding, ``.`` and ``..`` segments and
    doubled slashes. Such a path is aliased when its clean spelling names a place in a
    mount, and hidden otherwise. Last, an absolute path that exists on disk and leads into
    a mount by another way (another symbolic link to it) is aliased or hidden as well.
    """
    if not text:
        return text
    out = _alias_literal(text, mounts)
    if _may_hide_more(out, mounts):
        out = _alias_loose(out, mounts)
    if "/" in out:
        out = _alias_on_disk(out, mounts)
    return out


def _alias_literal(text: str, mounts: Mounts) -> str:
    """``text`` with every literal spelling of a mount root aliased (or hidden)."""
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


_IGNORED = dict.fromkeys(
    map(
        ord,
        "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e"
        "\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066"
        "\u2067\u2068\u2069\u206a\u206b\u206c\u206d\u206e\u206f\ufeff",
    )
)
"""Characters no one sees: zero-width, joiners, direction marks, isolates and overrides."""
_SLASHES = {ord(c): "/" for c in "\u2044\u2215\u29f8\uff0f\u2571\u27cb"}
"""Look-alike slashes (fraction, division, fullwidth...), read as ``/`` when matching."""
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});?")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_LOOSE_SEP = r"/(?:/|\./|[^/\s]+/\.\./)*"
"""Between two parts of a root: a slash, then any more slashes, ``./`` or ``name/../``."""
_LOOSE_NAME = r"[\w\-~@]"
# The characters of a whole path-like word around a found root, for hiding it whole.
_SPAN = re.compile(r"[^\s'\"`()<>\[\]{},|=]")


def _fold(text: str) -> str:
    """``text`` as matching sees it: invisible characters gone, look-alike slashes made
    ``/``, compatibility forms and case folded, and decomposed (NFKD), so NFC and NFD
    spellings of one name fold alike."""
    text = text.translate(_IGNORED).translate(_SLASHES)
    return unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", text).casefold())


def _loose_text(text: str) -> tuple[str, list[int], list[int]]:
    """``text`` folded for matching (entities and percent escapes decoded, then
    :func:`_fold`), with each folded character's span in ``text`` (start, end lists)."""
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        piece, end = ch, i + 1
        if ch == "&":
            found = _ENTITY.match(text, i)
            if found is not None:
                decoded = html.unescape(found.group(0))
                if decoded != found.group(0):
                    piece, end = decoded, found.end()
        elif ch == "%":
            found = _PERCENT.match(text, i)
            if found is not None:
                piece, end = unquote(found.group(0), errors="replace"), found.end()
        for folded in _fold(piece):
            out.append(folded)
            starts.append(i)
            ends.append(end)
        i = end
    return "".join(out), starts, ends


@lru_cache(maxsize=64)
def _loose_pattern(mounts: Mounts) -> re.Pattern[str]:
    """Every spelling of every root, folded, with loose separators between its parts."""
    roots = {_fold(root) for _, root in _roots(mounts)}
    alternatives = sorted(
        ("/" + _LOOSE_SEP.join(re.escape(p) for p in root.split("/") if p) for root in roots),
        key=len,
        reverse=True,
    )
    body = "|".join(alternatives)
    return re.compile(r"(?<!" + _LOOSE_NAME + r")(?:" + body + r")(?!" + _LOOSE_NAME + r")")


@lru_cache(maxsize=64)
def _last_parts(mounts: Mounts) -> tuple[str, ...]:
    """Each root's last name, folded: a text holding no spelling of any cannot hold a root."""
    parts = {_fold(root.rsplit("/", 1)[-1]) for _, root in _roots(mounts)}
    return tuple(parts - {""})


def _may_hide_more(text: str, mounts: Mounts) -> bool:
    """Cheap pre-check (whole-text decoding and folding, no per-character work): only a
    text holding some spelling of a root's last name can hold another spelling of a root."""
    probe = text
    if "&" in probe:
        probe = html.unescape(probe)
    if "%" in probe:
        probe = unquote(probe, errors="replace")
    probe = probe.lower() if probe.isascii() else _fold(probe)
    return any(part in probe for part in _last_parts(mounts))


def _clean(word: str) -> str:
    """``word`` decoded and normalised: entities and percent escapes decoded, invisible
    characters dropped, look-alike slashes made ``/``, NFC, and each absolute path in it
    with its ``.``, ``..`` and doubled slashes resolved."""
    text = html.unescape(word)
    for _ in range(3):
        decoded = unquote(text, errors="replace")
        if decoded == text:
            break
        text = decoded
    text = unicodedata.normalize("NFC", text.translate(_IGNORED).translate(_SLASHES))

    def tidy(found: re.Match[str]) -> str:
        path = found.group(0)
        tidied = posixpath.normpath(path)
        return tidied + "/" if path.endswith("/") and tidied != "/" else tidied

    return re.sub(r"/[^\s'\"`()<>\[\]{},|=]*", tidy, text)


def _alias_loose(text: str, mounts: Mounts) -> str:
    """Find each remaining spelling of a root in the folded text; alias the word it is in
    when the word's clean spelling names a place in a mount, else hide it."""
    loose, starts, ends = _loose_text(text)
    pattern = _loose_pattern(mounts)
    spans: list[tuple[int, int]] = []
    for found in pattern.finditer(loose):
        start, end = starts[found.start()], ends[found.end() - 1]
        while start > 0 and _SPAN.match(text, start - 1):
            start -= 1
        while end < len(text) and _SPAN.match(text, end):
            end += 1
        if spans and start < spans[-1][1]:
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    if not spans:
        return text
    out: list[str] = []
    pos = 0
    for start, end in spans:
        out.append(text[pos:start])
        aliased = _alias_literal(_clean(text[start:end]), mounts)
        leftover = pattern.search(_loose_text(aliased)[0]) is not None
        out.append(HIDDEN_PATH if leftover else aliased)
        pos = end
    out.append(text[pos:])
    return "".join(out)


_ABSOLUTE = re.compile(r"(?<![\w\-~@./])/[^\s'\"`()<>\[\]{},;|=:*?]+")
_DISK_LIMIT = 256
"""The most absolute paths of one text looked up on disk."""


@lru_cache(maxsize=64)
def _root_ids(mounts: Mounts) -> tuple[tuple[tuple[int, int], MountName], ...]:
    found: list[tuple[tuple[int, int], MountName]] = []
    for name in MOUNT_NAMES:
        try:
            info = os.stat(mounts.root_of(name))
        except OSError:
            continue
        found.append(((info.st_dev, info.st_ino), name))
    return tuple(found)


def _alias_on_disk(text: str, mounts: Mounts) -> str:
    """An absolute path that leads into a mount by a way no spelling names (another
    symbolic link to the project, a symlinked parent, another letter case on a
    case-insensitive file system): found by the directories' identity on disk, it is
    aliased to its mount (the deepest mount it reaches)."""
    ids = dict(_root_ids(mounts))
    if not ids:
        return text
    looked = 0
    known: dict[str, MountName | bool | None] = {}

    def identity(prefix: str) -> MountName | bool | None:
        """The mount ``prefix`` is the root of, None if none, False if it does not exist."""
        if prefix not in known:
            try:
                info = os.stat(prefix)
            except (OSError, ValueError):
                known[prefix] = False
            else:
                known[prefix] = ids.get((info.st_dev, info.st_ino))
        return known[prefix]

    def swap(found: re.Match[str]) -> str:
        nonlocal looked
        path = found.group(0)
        if looked >= _DISK_LIMIT or path.startswith(tuple(MOUNT_NAMES)):
            return path
        looked += 1
        parts = [p for p in path.split("/") if p]
        best: tuple[MountName, int] | None = None
        prefix = ""
        for depth, part in enumerate(parts, start=1):
            prefix += "/" + part
            name = identity(prefix)
            if name is False:
                break
            if name is not None and name is not True:
                best = (name, depth)
        if best is None:
            return path
        rest = "/".join(parts[best[1] :])
        tail = "/" if path.endswith("/") and rest else ""
        return best[0] + ("/" + rest if rest else "") + tail

    return _ABSOLUTE.sub(swap, text)


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
    under ``@pkg`` (also through ``@project``) raises it too.
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
        raise UnsafeModelPath(path, READ_ONLY)
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
        raise UnsafeModelPath(path, READ_ONLY)
    return target
