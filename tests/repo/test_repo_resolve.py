"""Imports resolved to repository files: the same names from elsewhere stay external."""

from __future__ import annotations

from agentprompt.repo.map._resolve import ImportResolver
from agentprompt.repo.symbols import ImportEntry


def _resolve(paths: list[str], importer: str, module: str, *names: str) -> str | None:
    resolver = ImportResolver.for_paths(paths)
    return resolver.resolve(importer, "python", ImportEntry(module=module, names=names))


def test_a_single_name_import_does_not_resolve_to_a_file_in_an_unrelated_folder() -> None:
    paths = ["scripts/json.py", "app/main.py", "app/__init__.py"]
    assert _resolve(paths, "app/main.py", "json") is None


def test_a_single_name_import_resolves_from_a_source_root() -> None:
    paths = ["src/tool/__init__.py", "src/tool/core.py", "tests/test_core.py"]
    assert _resolve(paths, "tests/test_core.py", "tool") == "src/tool/__init__.py"


def test_a_script_imports_its_sibling() -> None:
    paths = ["scripts/run.py", "scripts/helper.py"]
    assert _resolve(paths, "scripts/run.py", "helper") == "scripts/helper.py"


def test_a_dotted_import_resolves_below_any_folder() -> None:
    paths = ["backend/app/models.py", "backend/app/__init__.py", "backend/run.py"]
    assert _resolve(paths, "backend/run.py", "app.models") == "backend/app/models.py"


def test_a_php_namespace_resolves_through_a_psr4_folder() -> None:
    resolver = ImportResolver.for_paths(["src/Models/User.php", "src/Http/Controller.php"])
    entry = ImportEntry(module="App\\Models", names=("User",))
    assert resolver.resolve("src/Http/Controller.php", "php", entry) == "src/Models/User.php"
