"""Reading the manifests project detection looks at: JSON, TOML and text files, and the
dependency names each ecosystem declares.

Every reader returns an empty value for a missing, unreadable or malformed file, so a
broken manifest only means its dependencies are not seen.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = [
    "cargo_dependencies",
    "npm_dependencies",
    "python_dependencies",
    "read_json",
    "read_text",
    "read_toml",
    "requirement_names",
]


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``, or ``{}``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def read_toml(path: Path) -> dict[str, Any]:
    """The TOML table in ``path``, or ``{}``."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def read_text(path: Path) -> str:
    """The text of ``path`` (undecodable bytes replaced), or ``""``."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def npm_dependencies(package: dict[str, Any]) -> set[str]:
    """The package names a ``package.json`` depends on (all dependency kinds)."""
    names: set[str] = set()
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        section = package.get(key)
        if isinstance(section, dict):
            names.update(str(k) for k in section)
    return names


_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def requirement_names(lines: Iterable[str]) -> set[str]:
    """The normalised package names of requirement lines (``fastapi>=0.1`` -> ``fastapi``)."""
    names = set()
    for line in lines:
        match = _REQUIREMENT_NAME.match(str(line))
        if match:
            names.add(match.group(1).lower().replace("_", "-"))
    return names


def python_dependencies(root: Path, pyproject: dict[str, Any]) -> set[str]:
    """The Python packages ``root`` depends on: pyproject (PEP 621 and Poetry),
    ``requirements*.txt`` and ``Pipfile``."""
    names: set[str] = set()
    project = pyproject.get("project")
    if isinstance(project, dict):
        deps = project.get("dependencies")
        if isinstance(deps, list):
            names |= requirement_names(deps)
        extras = project.get("optional-dependencies")
        if isinstance(extras, dict):
            for group in extras.values():
                if isinstance(group, list):
                    names |= requirement_names(group)
    poetry = pyproject.get("tool", {}).get("poetry", {}) if isinstance(pyproject, dict) else {}
    if isinstance(poetry, dict):
        for key in ("dependencies", "dev-dependencies"):
            section = poetry.get(key)
            if isinstance(section, dict):
                names |= requirement_names(section)
    for req in sorted(root.glob("requirements*.txt")):
        names |= requirement_names(read_text(req).splitlines())
    pipfile = read_toml(root / "Pipfile")
    for key in ("packages", "dev-packages"):
        section = pipfile.get(key)
        if isinstance(section, dict):
            names |= requirement_names(section)
    return names


def cargo_dependencies(root: Path) -> set[str]:
    """The crates ``Cargo.toml`` depends on."""
    cargo = read_toml(root / "Cargo.toml")
    names: set[str] = set()
    for key in ("dependencies", "dev-dependencies"):
        section = cargo.get(key)
        if isinstance(section, dict):
            names.update(str(k) for k in section)
    return names
