"""Project detection: what kind of project a directory holds.

:func:`detect_project` looks only at the files present: manifests and lock files at the
root, their dependency lists, container and CI configuration, and a bounded count of source
file extensions. It never runs a tool, never reaches the network and never raises for a
malformed manifest (that manifest's dependencies are simply not read).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.context._manifests import (
    cargo_dependencies,
    npm_dependencies,
    python_dependencies,
    read_json,
    read_text,
    read_toml,
)
from agentprompt.context._project_rules import (
    CI_FILES,
    DOCKER_FILES,
    EXTENSION_LANGUAGES,
    FRAMEWORK_DEPENDENCIES,
    LOCK_FILES,
    MANIFEST_PACKAGE_MANAGERS,
    PROJECT_MARKERS,
    SKIPPED_DIRS,
)

__all__ = ["ProjectFacts", "detect_project", "project_summary"]

MAX_SCANNED_FILES = 20_000
"""The language count stops after this many files, so a huge tree stays fast."""
MAX_SCAN_DEPTH = 6
"""How many directory levels below the root the language count descends."""
MIN_LANGUAGE_SHARE = 0.1
"""A language is listed when at least this share of the counted source files is in it."""
MAX_LANGUAGES = 4
"""At most this many languages are listed."""

SEPARATOR = " • "
"""How the summary joins its items (``Node.js • TypeScript • npm``)."""


@dataclass(frozen=True, kw_only=True)
class ProjectFacts:
    """What kind of project a directory holds, from the files present."""

    project_types: tuple[str, ...] = ()
    """Ecosystems the root's manifests mark (``Node.js``, ``Python``), in display order."""
    languages: tuple[str, ...] = ()
    """Languages of the source files, most files first."""
    frameworks: tuple[str, ...] = ()
    """Frameworks and major libraries named in the manifests' dependencies."""
    package_managers: tuple[str, ...] = ()
    """Package managers, from lock files or else from manifests."""
    docker: bool = False
    """A Dockerfile or compose file is present."""
    ci: tuple[str, ...] = ()
    """CI systems configured at the root."""

    @property
    def empty(self) -> bool:
        """Nothing was detected."""
        return not self.summary_items()

    def summary_items(self) -> tuple[str, ...]:
        """Every fact as one display item, duplicates (``Python`` as type and language)
        removed."""
        items = [
            *self.project_types,
            *self.languages,
            *self.frameworks,
            *self.package_managers,
            *(("Docker",) if self.docker else ()),
            *self.ci,
        ]
        seen: set[str] = set()
        unique = []
        for item in items:
            if item.casefold() not in seen:
                seen.add(item.casefold())
                unique.append(item)
        return tuple(unique)


def project_summary(facts: ProjectFacts) -> str:
    """The facts on one line, as the context shows them (``Node.js • TypeScript • npm``)."""
    return SEPARATOR.join(facts.summary_items())


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def _project_types(root: Path) -> tuple[str, ...]:
    found = []
    for marker, kind in PROJECT_MARKERS:
        hit = any(root.glob(marker)) if "*" in marker else (root / marker).is_file()
        if hit:
            found.append(kind)
    return _unique(found)


def _count_languages(root: Path) -> Counter[str]:
    counts: Counter[str] = Counter()
    seen = 0
    base_depth = len(root.parts)
    for directory, dirs, files in os.walk(root):
        depth = len(Path(directory).parts) - base_depth
        dirs[:] = sorted(
            d
            for d in dirs
            if d not in SKIPPED_DIRS and not d.startswith(".") and depth < MAX_SCAN_DEPTH
        )
        for name in files:
            seen += 1
            language = EXTENSION_LANGUAGES.get(os.path.splitext(name)[1])
            if language:
                counts[language] += 1
        if seen >= MAX_SCANNED_FILES:
            break
    return counts


def _languages(root: Path, counts: Counter[str], package: dict[str, Any]) -> tuple[str, ...]:
    total = sum(counts.values())
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    picked = [lang for lang, n in ranked if n >= MIN_LANGUAGE_SHARE * total][:MAX_LANGUAGES]
    deps = npm_dependencies(package)
    if ((root / "tsconfig.json").is_file() or "typescript" in deps) and "TypeScript" not in picked:
        picked.append("TypeScript")
    return tuple(picked)


def _frameworks(root: Path, package: dict[str, Any], pyproject: dict[str, Any]) -> tuple[str, ...]:
    exact = {
        "npm": npm_dependencies(package),
        "python": python_dependencies(root, pyproject),
        "cargo": cargo_dependencies(root),
        "ruby": {
            m.group(1) for m in re.finditer(r"gem\s+['\"]([^'\"]+)", read_text(root / "Gemfile"))
        },
        "php": set(read_json(root / "composer.json").get("require", {}) or {}),
    }
    prefixed = {
        "go": read_text(root / "go.mod"),
        "jvm": read_text(root / "pom.xml")
        + read_text(root / "build.gradle")
        + read_text(root / "build.gradle.kts"),
    }
    found: list[str] = []
    for ecosystem, table in FRAMEWORK_DEPENDENCIES.items():
        if ecosystem in exact:
            found.extend(label for dep, label in table.items() if dep in exact[ecosystem])
        else:
            text = prefixed[ecosystem]
            found.extend(label for dep, label in table.items() if dep in text)
    return _unique(found)


def _package_managers(
    root: Path, package: dict[str, Any], pyproject: dict[str, Any]
) -> tuple[str, ...]:
    found = []
    declared = package.get("packageManager")
    if isinstance(declared, str) and declared:
        found.append(declared.split("@", 1)[0])
    found.extend(manager for lock, manager in LOCK_FILES if (root / lock).is_file())
    tool = pyproject.get("tool", {})
    if isinstance(tool, dict):
        for name in ("poetry", "pdm", "hatch", "uv"):
            if name in tool and name not in found:
                found.append(name)
    covered = {_ECOSYSTEM_OF.get(m) for m in found}
    for manifest, manager in MANIFEST_PACKAGE_MANAGERS:
        if (root / manifest).is_file() and _ECOSYSTEM_OF.get(manager) not in covered:
            found.append(manager)
            covered.add(_ECOSYSTEM_OF.get(manager))
    return _unique(found)


_ECOSYSTEM_OF = {
    "npm": "node",
    "yarn": "node",
    "pnpm": "node",
    "bun": "node",
    "pip": "python",
    "pipenv": "python",
    "poetry": "python",
    "pdm": "python",
    "hatch": "python",
    "uv": "python",
    "cargo": "rust",
    "go modules": "go",
    "bundler": "ruby",
    "composer": "php",
    "maven": "jvm",
    "gradle": "jvm",
    "mix": "elixir",
    "pub": "dart",
}


def _docker(root: Path) -> bool:
    return any((root / name).is_file() for name in DOCKER_FILES) or any(root.glob("Dockerfile.*"))


def _ci(root: Path) -> tuple[str, ...]:
    found = []
    for path, system in CI_FILES:
        target = root / path
        if path == ".github/workflows":
            hit = target.is_dir() and any(
                p.suffix in (".yml", ".yaml") for p in target.iterdir() if p.is_file()
            )
        else:
            hit = target.exists()
        if hit:
            found.append(system)
    return _unique(found)


def _signature(root: Path) -> tuple[int, ...]:
    """What the cached facts of ``root`` depend on: the root directory's entries (its
    mtime) and the content of every root-level file a rule reads (their mtimes and sizes)."""
    stamps = [root.stat().st_mtime_ns]
    for name in _WATCHED:
        try:
            info = (root / name).stat()
        except OSError:
            stamps.extend((0, -1))
        else:
            stamps.extend((info.st_mtime_ns, info.st_size))
    return tuple(stamps)


_WATCHED = tuple(
    dict.fromkeys(
        [
            *(m for m, _ in PROJECT_MARKERS if "*" not in m),
            *(m for m, _ in LOCK_FILES),
            *(m for m, _ in MANIFEST_PACKAGE_MANAGERS),
            "tsconfig.json",
            "requirements-dev.txt",
            ".github/workflows",
        ]
    )
)
_CACHE: dict[Path, tuple[tuple[int, ...], ProjectFacts]] = {}
_CACHE_SIZE = 32


def detect_project(root: Path, *, cache: bool = True) -> ProjectFacts:
    """The project facts of directory ``root``; empty facts when it is not a directory.

    With ``cache`` (the default) the facts are reused while the root's entries and its
    manifests are unchanged, so a session can ask before every model call; the language
    count of nested files is refreshed when one of those changes.
    """
    root = Path(root).resolve()
    if not root.is_dir():
        return ProjectFacts()
    if not cache:
        return _detect(root)
    try:
        signature = _signature(root)
    except OSError:
        return _detect(root)
    hit = _CACHE.get(root)
    if hit is not None and hit[0] == signature:
        return hit[1]
    facts = _detect(root)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[root] = (signature, facts)
    return facts


def _detect(root: Path) -> ProjectFacts:
    package = read_json(root / "package.json")
    pyproject = read_toml(root / "pyproject.toml")
    return ProjectFacts(
        project_types=_project_types(root),
        languages=_languages(root, _count_languages(root), package),
        frameworks=_frameworks(root, package, pyproject),
        package_managers=_package_managers(root, package, pyproject),
        docker=_docker(root),
        ci=_ci(root),
    )
