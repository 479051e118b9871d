"""The directory tree a model is shown (file selection's tree, the bridge's file structure).

One line per entry, two spaces of indentation per level, folders written ``name/``::

    src/
      utils.ts (exports: formatDate, parseJSON, ...)
      index.ts (main entry, imports: utils)

Order is fixed so the text is byte-stable between runs (and so caches hold): in every folder,
sub-folders come first, then files, each sorted by name ignoring case (ties by exact name).
A file line may carry an annotation in parentheses and, on request, a token count in square
brackets; a folder's count is the sum of its files'. A name holding a line break (or another
control character) is written as a JSON string, so every entry is exactly one line.

A tree may be folded (:func:`fold_tree`): a folder outside the ones kept open is one line
saying how many files it holds and of which kinds, ``docs/ (folded: 40 files, 31 .rst,
6 .py, 3 other)``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agentprompt.repo.discovery import UnreadableFile, read_text
from agentprompt.tokens import Tokenizer

__all__ = [
    "TreeNode",
    "build_tree",
    "count_file_tokens",
    "display_name",
    "entry_line",
    "find_folder",
    "fold_tree",
    "folded_note",
    "folder_listing",
    "folders_holding",
    "opening_cost_lines",
    "render_tree",
]

_INDENT = "  "


@dataclass(frozen=True, kw_only=True)
class TreeNode:
    """A folder or a file in the tree."""

    name: str
    """The entry's own name (no slashes); ``""`` for the root."""
    path: str
    """POSIX path relative to the root; ``""`` for the root."""
    is_dir: bool
    """True for a folder."""
    children: tuple[TreeNode, ...] = ()
    """Sub-folders first, then files, each sorted by name ignoring case."""
    annotation: str | None = None
    """Text shown in parentheses after a file's name."""
    tokens: int | None = None
    """Tokens of the file, or of all files under the folder; ``None`` when not counted."""


def _order(node: TreeNode) -> tuple[bool, str, str]:
    return (not node.is_dir, node.name.casefold(), node.name)


def _build(
    prefix: str,
    entries: dict[str, Any],
    annotations: Mapping[str, str],
    tokens: Mapping[str, int] | None,
) -> tuple[TreeNode, ...]:
    nodes = []
    for name, sub in entries.items():
        path = prefix + name
        if sub is None:
            nodes.append(
                TreeNode(
                    name=name,
                    path=path,
                    is_dir=False,
                    annotation=annotations.get(path) or None,
                    tokens=None if tokens is None else tokens.get(path, 0),
                )
            )
            continue
        children = _build(path + "/", sub, annotations, tokens)
        total = None if tokens is None else sum(c.tokens or 0 for c in children)
        nodes.append(TreeNode(name=name, path=path, is_dir=True, children=children, tokens=total))
    return tuple(sorted(nodes, key=_order))


def build_tree(
    paths: Iterable[str],
    *,
    annotations: Mapping[str, str] | None = None,
    tokens: Mapping[str, int] | None = None,
) -> TreeNode:
    """The tree of the given file paths (POSIX, relative), with optional per-file extras.

    ``annotations`` maps a file path to the text shown in parentheses after its name;
    ``tokens`` maps a file path to its token count (folders get the sum).
    """
    nested: dict[str, Any] = {}
    for path in paths:
        parts = [p for p in path.split("/") if p]
        if not parts:
            continue
        level = nested
        for part in parts[:-1]:
            existing = level.get(part)
            if existing is None:
                existing = level[part] = {}
            level = existing
        level.setdefault(parts[-1], None)
    children = _build("", nested, annotations or {}, tokens)
    total = None if tokens is None else sum(c.tokens or 0 for c in children)
    return TreeNode(name="", path="", is_dir=True, children=children, tokens=total)


_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029\ud800-\udfff]")


FOLDED_KINDS = 3
"""How many kinds of file a folded folder's line names (the commonest first)."""


def _files_under(node: TreeNode) -> list[str]:
    """The names of every file under ``node``."""
    names: list[str] = []
    stack = [node]
    while stack:
        current = stack.pop()
        for child in current.children:
            if child.is_dir:
                stack.append(child)
            else:
                names.append(child.name)
    return names


def _kind(name: str) -> str:
    dot = name.rfind(".")
    return name[dot:].lower() if 0 < dot < len(name) - 1 else ""


def folded_note(node: TreeNode) -> str:
    """The note of a folded folder: how many files it holds, and the commonest kinds."""
    names = _files_under(node)
    kinds: dict[str, int] = {}
    for name in names:
        kind = _kind(name)
        kinds[kind] = kinds.get(kind, 0) + 1
    named = sorted(((n, k) for k, n in kinds.items() if k), key=lambda nk: (-nk[0], nk[1]))
    shown = named[:FOLDED_KINDS]
    words = [f"{n} {k}" for n, k in shown]
    rest = len(names) - sum(n for n, _ in shown)
    if rest and words:
        words.append(f"{rest} other")
    files = "1 file" if len(names) == 1 else f"{len(names)} files"
    return "folded: " + ", ".join([files, *words])


LISTED_AT_MOST = 16
"""An open folder with more entries than this lists only its open folders and the files
shown (the rest are one line saying how many there are)."""


def _folded(node: TreeNode) -> TreeNode:
    """``node`` (a folder) as one line with its note."""
    return replace(node, children=(), annotation=folded_note(node))


def _rest_line(node: TreeNode, rest: Sequence[TreeNode]) -> TreeNode:
    """The line standing for the entries of a large open folder that are not listed."""
    files = sum(1 for c in rest if not c.is_dir)
    folders = len(rest) - files
    words = [f"{files} file{'s' if files != 1 else ''}"] if files else []
    words += [f"{folders} folder{'s' if folders != 1 else ''}"] if folders else []
    return TreeNode(
        name=f"… {len(rest)} more", path=node.path + "/…", is_dir=False, annotation=", ".join(words)
    )


def fold_tree(
    tree: TreeNode,
    open_folders: Iterable[str],
    shown: Collection[str] | None = None,
) -> TreeNode:
    """``tree`` with every folder not in ``open_folders`` (POSIX paths, no trailing slash;
    the root is always open) folded to one line: no children, and a note saying how many
    files it holds and of which kinds (:func:`folded_note`). A folder inside a folded one
    is folded with it, whatever ``open_folders`` says. With ``shown`` (the files a prompt
    shows), an open folder of more than :data:`LISTED_AT_MOST` entries lists only its open
    folders and the files ``shown``, and one line saying how many entries it has besides
    (the root lists everything)."""
    opened = set(open_folders)

    def fold(node: TreeNode) -> TreeNode:
        children = [
            c if not c.is_dir else fold(c) if c.path in opened else _folded(c)
            for c in node.children
        ]
        if shown is not None and node.path and len(children) > LISTED_AT_MOST:
            listed = [c for c in node.children if c.path in opened or c.path in shown]
            kept = {c.path for c in listed}
            rest = [c for c in node.children if c.path not in kept]
            children = [c for c in children if c.path in kept]
            if rest:
                children.append(_rest_line(node, rest))
        return replace(node, children=tuple(children))

    return fold(tree)


def entry_line(tree: TreeNode, path: str) -> str:
    """The line of the file ``path`` in the tree (empty when there is no such file)."""
    folder, _, name = path.rpartition("/")
    node = find_folder(tree, folder)
    entry = next((c for c in node.children if c.name == name), None) if node else None
    if entry is None:
        return ""
    return _line(entry, path.count("/")) + "\n"


def opening_cost_lines(tree: TreeNode, folder: str) -> tuple[str, bool]:
    """What opening ``folder`` adds to a tree folded with ``shown``: its listing (every
    entry, folders folded), or for a folder of more than :data:`LISTED_AT_MOST` entries
    only its line for the entries not listed; and whether it lists only what is shown
    (each file shown in it then adds its own line)."""
    node = find_folder(tree, folder)
    if node is None:
        return "", False
    if len(node.children) <= LISTED_AT_MOST or not folder:
        return folder_listing(tree, folder), False
    depth = len([p for p in folder.split("/") if p])
    return _line(_rest_line(node, node.children), depth) + "\n", True


def find_folder(tree: TreeNode, folder: str) -> TreeNode | None:
    """The node of ``folder`` (a POSIX path; ``""`` is the root) in ``tree``, or None."""
    node = tree
    for name in [p for p in folder.split("/") if p]:
        found = next((c for c in node.children if c.is_dir and c.name == name), None)
        if found is None:
            return None
        node = found
    return node


def folder_listing(tree: TreeNode, folder: str) -> str:
    """The lines opening ``folder`` adds to a folded tree: its files, and its folders
    folded, indented as in :func:`render_tree` (empty when there is no such folder)."""
    node = find_folder(tree, folder)
    if node is None:
        return ""
    depth = len([p for p in folder.split("/") if p])
    lines = []
    for child in node.children:
        if child.is_dir:
            child = TreeNode(
                name=child.name, path=child.path, is_dir=True, annotation=folded_note(child)
            )
        lines.append(_line(child, depth) + "\n")
    return "".join(lines)


def folders_holding(paths: Iterable[str]) -> set[str]:
    """Every folder that holds one of ``paths`` (at any depth), as POSIX paths."""
    folders: set[str] = set()
    for path in paths:
        parts = path.split("/")[:-1]
        for end in range(1, len(parts) + 1):
            folders.add("/".join(parts[:end]))
    return folders


def display_name(name: str) -> str:
    """``name`` as a tree line shows it: a name holding a line break or another control
    character, or bytes that are not UTF-8, is written as an ASCII JSON string
    (``"a\\nb.py"``), so one entry stays one line of valid text."""
    return json.dumps(name) if _CONTROL.search(name) else name


def _line(node: TreeNode, depth: int) -> str:
    text = _INDENT * depth + display_name(node.name) + ("/" if node.is_dir else "")
    if node.annotation:
        text += f" ({node.annotation})"
    if node.tokens is not None:
        text += f" [{node.tokens} tokens]"
    return text


def render_tree(tree: TreeNode) -> str:
    """The tree as text: one line per entry, two spaces per level, a final newline.

    An empty tree renders as the empty string.
    """
    lines: list[str] = []

    def visit(node: TreeNode, depth: int) -> None:
        """Append the lines of ``node``'s children, depth first."""
        for child in node.children:
            lines.append(_line(child, depth))
            if child.is_dir:
                visit(child, depth + 1)

    visit(tree, 0)
    return "".join(line + "\n" for line in lines)


def count_file_tokens(
    root: Path, paths: Iterable[str], counter: Tokenizer
) -> tuple[dict[str, int], tuple[str, ...]]:
    """Tokens of each file's text, and a problem line for each file that could not be read."""
    counts: dict[str, int] = {}
    problems: list[str] = []
    for path in paths:
        try:
            counts[path] = counter.count(read_text(root, path))
        except UnreadableFile as exc:
            problems.append(f"{path}: {exc.why}")
    return counts, tuple(problems)
