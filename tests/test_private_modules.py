"""A module's name says who may import it: ``_name.py`` only its own package (sub-packages
included), ``name.py`` other packages too. Imports inside functions and the module paths
of lazy-loading tables count as imports."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from functools import cache
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src"
PYPROJECT = SOURCE.parent / "pyproject.toml"


def _modules() -> dict[str, Path]:
    """Every module below the top level of the package (the core modules are all public)."""
    found = {}
    for path in (SOURCE / "agentprompt").rglob("*.py"):
        parts = path.relative_to(SOURCE).with_suffix("").parts
        if parts[-1] != "__init__" and len(parts) > 2:
            found[".".join(parts)] = path
    return found


def _package_of(path: Path) -> str:
    return ".".join(path.relative_to(SOURCE).with_suffix("").parts[:-1])


def _named(node: ast.AST, modules: dict[str, Path]) -> list[str]:
    """The modules ``node`` imports, or names as a string (a lazy-loading table's value)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module:
        return [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        dotted = re.match(r"agentprompt(?:\.\w+)+", node.value)
        if dotted is None:
            return []
        parts = dotted.group().split(".")
        return [".".join(parts[:n]) for n in range(2, len(parts) + 1)]
    return []


@cache
def _outside_users() -> tuple[dict[str, Path], dict[str, set[str]]]:
    """Each module, and the packages outside its own that import it."""
    modules = _modules()
    users: dict[str, set[str]] = defaultdict(set)
    entry_points = PYPROJECT.read_text(encoding="utf-8")
    for module in modules:
        if f"{module}:" in entry_points:
            users[module].add("pyproject.toml")
    for path in (SOURCE / "agentprompt").rglob("*.py"):
        importer = _package_of(path)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for name in _named(node, modules):
                own = name.rpartition(".")[0]
                inside = importer == own or importer.startswith(own + ".")
                if name in modules and not inside:
                    users[name].add(importer)
    return modules, users


def _private(module: str) -> bool:
    return module.rpartition(".")[2].startswith("_")


def test_no_package_imports_another_packages_private_module() -> None:
    modules, users = _outside_users()
    leaks = [f"{m} imported by {sorted(users[m])}" for m in modules if _private(m) and users[m]]
    assert leaks == []


def test_a_module_no_other_package_imports_is_private() -> None:
    modules, users = _outside_users()
    public = [m for m in modules if not _private(m) and not users[m]]
    assert public == [], "rename these _name.py, or import them from another package"
