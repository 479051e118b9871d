"""Which repository file an import statement names, once the whole file list is known.

Each language has its own way from an import to a file: Python's dotted modules and
relative levels, JavaScript's relative paths with extension and ``index`` probing, quoted
``#include`` files, Java's package paths, Rust's ``crate::`` modules, Ruby's
``require_relative``, PHP's namespaces and ``require``. An import that names no file of the
repository is external.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass, field

from agentprompt.repo.symbols import ImportEntry

__all__ = ["ImportResolver"]

_JS_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts")
_SUFFIX_DEPTH = 4
_SOURCE_ROOTS = frozenset({"src", "lib", "python", "source"})
"""Folders Python projects put their top-level packages in (``src/pkg/...``)."""


@dataclass
class ImportResolver:
    """Resolves imports against one repository's file list."""

    paths: frozenset[str]
    """Every file path of the repository."""
    _suffixes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    _dirs: dict[str, str] = field(default_factory=dict)

    @classmethod
    def for_paths(cls, paths: Iterable[str]) -> ImportResolver:
        """A resolver over ``paths`` (its indexes are built on first use)."""
        return cls(paths=frozenset(paths))

    def _index(self, extension: str) -> dict[str, list[str]]:
        """Paths ending in ``extension`` by each of their last few path components."""
        index = self._suffixes.get(extension)
        if index is None:
            index = self._suffixes[extension] = {}
            for path in sorted(p for p in self.paths if p.endswith(extension)):
                parts = path.split("/")
                for k in range(1, min(_SUFFIX_DEPTH, len(parts)) + 1):
                    index.setdefault("/".join(parts[-k:]), []).append(path)
        return index

    def _index_dirs(self) -> None:
        if self._dirs or not self.paths:
            return
        for path in sorted(self.paths):
            parts = path.split("/")
            for k in range(1, min(_SUFFIX_DEPTH, len(parts) - 1) + 1):
                self._dirs.setdefault("/".join(parts[-1 - k : -1]), "/".join(parts[:-1]))

    def _first(self, candidates: Iterable[str]) -> str | None:
        for candidate in candidates:
            normal = posixpath.normpath(candidate).lstrip("/")
            if normal in self.paths:
                return normal
        return None

    def _by_suffix(self, importer: str, suffix: str) -> str | None:
        if suffix in self.paths:
            return suffix
        found = self._index(posixpath.splitext(suffix)[1]).get(suffix)
        if not found:
            return None
        here = posixpath.dirname(importer)
        return max(found, key=lambda p: (len(posixpath.commonprefix([p, here])), -len(p)))

    def resolve(self, importer: str, language: str | None, entry: ImportEntry) -> str | None:
        """The repository file (or package directory, ending in ``/``) ``entry`` names."""
        here = posixpath.dirname(importer)
        module = entry.module
        if language == "python":
            return self._python(importer, here, entry)
        if language in ("javascript", "typescript", "tsx"):
            if not module.startswith((".", "/")):
                return None
            base = posixpath.join(here, module)
            stem = base.removesuffix(".js").removesuffix(".mjs").removesuffix(".cjs")
            return self._first(
                [
                    base,
                    *(stem + e for e in _JS_EXTENSIONS),
                    *(base + "/index" + e for e in _JS_EXTENSIONS),
                ]
            )
        if language in ("c", "cpp"):
            return self._first([posixpath.join(here, module)]) or (
                self._by_suffix(importer, module) if entry.local else None
            )
        if language == "java":
            dotted = f"{module}.{entry.names[0]}" if entry.names else module
            return self._by_suffix(importer, "/".join(dotted.split(".")[-_SUFFIX_DEPTH:]) + ".java")
        if language == "go":
            parts = module.split("/")
            if len(parts) < 2:
                return None
            self._index_dirs()
            found = self._dirs.get("/".join(parts[-2:]))
            if found is None and "." in parts[0]:
                found = self._dirs.get(parts[-1])
            return found + "/" if found else None
        if language == "rust":
            segments = [s for s in module.split("::") if s not in ("crate", "self", "super")]
            if not entry.local or not segments:
                return None
            last = segments[-1]
            return self._by_suffix(importer, f"{last}.rs") or self._by_suffix(
                importer, f"{last}/mod.rs"
            )
        if language == "ruby":
            name = module if module.endswith(".rb") else module + ".rb"
            if entry.local:
                return self._first([posixpath.join(here, name)])
            return self._by_suffix(importer, name)
        if language == "php":
            if entry.local:
                return self._first([posixpath.join(here, module.lstrip("/")), module])
            # PSR-4 maps a namespace prefix (``App\\``) onto a folder (``src/``): try the
            # class's longest namespace tail first, down to its own folder and name.
            segments = (f"{module}\\{entry.names[0]}" if entry.names else module).split("\\")
            for depth in (3, 2):
                if len(segments) >= depth:
                    found = self._by_suffix(importer, "/".join(segments[-depth:]) + ".php")
                    if found is not None:
                        return found
            return None
        return None

    def _python(self, importer: str, here: str, entry: ImportEntry) -> str | None:
        module = entry.module
        if module.startswith("."):
            level = len(module) - len(module.lstrip("."))
            base = here
            for _ in range(level - 1):
                base = posixpath.dirname(base)
            rest = module.lstrip(".").replace(".", "/")
            target = posixpath.join(base, rest) if rest else base
            candidates = [f"{target}/{n}.py" for n in entry.names if n != "*"]
            candidates += [f"{target}/{n}/__init__.py" for n in entry.names if n != "*"]
            candidates += [f"{target}.py", f"{target}/__init__.py"]
            return self._first(candidates)
        parts = module.split(".")
        options = [f"{'/'.join([*parts, n])}.py" for n in entry.names if n != "*"]
        options += ["/".join(parts) + ".py", "/".join(parts) + "/__init__.py"]
        for option in options:
            found = self._by_suffix(importer, "/".join(option.split("/")[-_SUFFIX_DEPTH:]))
            if found is None or not found.endswith(option):
                continue
            package = found[: -len(option)].rstrip("/")
            if found == option or (
                f"{package}/__init__.py" not in self.paths
                and _python_root(package, here, dotted=len(parts) > 1)
            ):
                return found
        return None


def _python_root(folder: str, here: str, *, dotted: bool) -> bool:
    """Whether an absolute import may start in ``folder``: a dotted module from any folder
    outside a package; a single name (``import json``) only from a source root (``src/``,
    ``lib/``) or the importing file's own folder (a script's siblings), since anywhere else
    it is far likelier the standard library or an installed package."""
    if dotted:
        return True
    return folder == here or folder.rsplit("/", 1)[-1] in _SOURCE_ROOTS
