"""The bridge's per-file notes: what a file exports, or that it is a program's entry and
what it imports (the annotated tree, the bridge's tree), with the entry points a project's
manifests declare.
"""

from __future__ import annotations

import contextlib
import json
import posixpath
import tomllib
from collections.abc import Sequence
from pathlib import Path

from agentprompt.repo.discovery import Discovery, UnreadableFile, read_text
from agentprompt.repo.extraction import extract_repository
from agentprompt.repo.map.render import file_annotation, needs_text_for_entry
from agentprompt.repo.symbols import FileSymbols

__all__ = ["annotate_files", "declared_entry_points", "file_note"]


def annotate_files(
    root: Path, discovery: Discovery, *, use_cache: bool = True, cache_path: Path | None = None
) -> dict[str, str]:
    """The bridge's per-file notes (``exports: ...``, ``main entry, imports: ...``) by path."""
    extraction = extract_repository(discovery, use_cache=use_cache, cache_path=cache_path)
    try:
        loaded = extraction.symbols(extraction.files)
    finally:
        if extraction.cache is not None:
            extraction.cache.close()
    declared = declared_entry_points(discovery.root, [f.path for f in discovery.files])
    notes: dict[str, str] = {}
    for path, symbols in loaded.items():
        note = file_note(discovery.root, symbols, declared=path in declared)
        if note:
            notes[path] = note
    return notes


def file_note(root: Path, entry: FileSymbols, *, declared: bool = False) -> str | None:
    """:func:`~agentprompt.repo.map.file_annotation` of ``entry``, reading the file's
    text (under ``root``) only when the entry-point rule needs it (a Python file that uses
    ``__name__``, say); an unreadable file is judged without its text. ``declared``: a
    project manifest names the file as a program (:func:`declared_entry_points`)."""
    text = None
    if not declared and needs_text_for_entry(entry):
        with contextlib.suppress(UnreadableFile):
            text = read_text(root, entry.path)
    return file_annotation(entry, text, declared=declared)


def declared_entry_points(root: Path, paths: Sequence[str]) -> frozenset[str]:
    """Those of ``paths`` that a project manifest among them names as a program: a
    ``pyproject.toml``'s ``[project.scripts]``/``[project.gui-scripts]`` (and Poetry's
    ``[tool.poetry.scripts]``) modules, a ``package.json``'s ``main`` and ``bin``. A manifest
    that cannot be read or parsed names nothing."""
    known = set(paths)
    found: set[str] = set()
    for path in paths:
        folder, _, name = path.rpartition("/")
        base = folder + "/" if folder else ""
        if name == "pyproject.toml":
            found.update(_python_scripts(root, path, base, known))
        elif name == "package.json":
            found.update(_package_programs(root, path, base, known))
    return frozenset(found)


def _python_scripts(root: Path, path: str, base: str, known: set[str]) -> list[str]:
    try:
        data = tomllib.loads(read_text(root, path))
    except (UnreadableFile, tomllib.TOMLDecodeError):
        return []
    project = data.get("project")
    poetry = data.get("tool", {}).get("poetry") if isinstance(data.get("tool"), dict) else None
    tables = [
        project.get("scripts") if isinstance(project, dict) else None,
        project.get("gui-scripts") if isinstance(project, dict) else None,
        poetry.get("scripts") if isinstance(poetry, dict) else None,
    ]
    found = []
    for table in tables:
        if not isinstance(table, dict):
            continue
        for target in table.values():
            if not isinstance(target, str):
                continue
            module = target.partition(":")[0].strip().replace(".", "/")
            for prefix in ("", "src/"):
                for candidate in (f"{module}.py", f"{module}/__init__.py"):
                    if base + prefix + candidate in known:
                        found.append(base + prefix + candidate)
    return found


def _package_programs(root: Path, path: str, base: str, known: set[str]) -> list[str]:
    try:
        data = json.loads(read_text(root, path))
    except (UnreadableFile, ValueError):
        return []
    if not isinstance(data, dict):
        return []
    named: list[object] = [data.get("main")]
    programs = data.get("bin")
    named.extend(programs.values() if isinstance(programs, dict) else [programs])
    found = []
    for target in named:
        if not isinstance(target, str):
            continue
        clean = posixpath.normpath(target.strip()).removeprefix("./")
        for candidate in (clean, f"{clean}.js", f"{clean}/index.js"):
            if base + candidate in known:
                found.append(base + candidate)
                break
    return found
