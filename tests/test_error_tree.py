"""The error classes stay few: one tree per package, each class earning its place (code
catches it, reads a field it carries, or a user would catch it), the rest raised as the
package's base error or a ``UsageError`` naming the input at fault."""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import agentprompt

SOURCE = Path(agentprompt.__file__).parent

MOST_ERROR_CLASSES = 60
"""How many exception classes the source may define at most."""

_BUILTIN_ERRORS = frozenset(
    name
    for name in dir(builtins)
    if isinstance(getattr(builtins, name), type)
    and issubclass(getattr(builtins, name), BaseException)
)


def _base_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def error_classes(root: Path) -> list[str]:
    """``module:Class`` for every class under ``root`` deriving, at any depth, from a
    built-in exception (classes are matched by name across modules)."""
    classes: list[tuple[str, str, list[str]]] = []
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b for b in map(_base_name, node.bases) if b is not None]
                classes.append((module, node.name, bases))
    errors = set(_BUILTIN_ERRORS)
    grew = True
    while grew:
        grew = False
        for _, name, bases in classes:
            if name not in errors and any(b in errors for b in bases):
                errors.add(name)
                grew = True
    return [f"{m}:{n}" for m, n, bases in classes if any(b in errors for b in bases)]


def test_the_counter_finds_errors_through_their_bases(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Base(ValueError): ...\nclass Plain: ...\n")
    (tmp_path / "b.py").write_text("import a\nclass Child(a.Base): ...\n")
    assert error_classes(tmp_path) == ["a.py:Base", "b.py:Child"]


def test_the_source_defines_at_most_sixty_error_classes() -> None:
    found = error_classes(SOURCE)
    assert len(found) <= MOST_ERROR_CLASSES, "\n".join(found)
