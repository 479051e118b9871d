"""``docs/architecture.md`` draws the house as it is: every source file and dotted name it
mentions exists, and every package has its paragraph."""

from __future__ import annotations

import importlib
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
SRC = ROOT / "src" / "agentprompt"

_FILE = re.compile(r"`([\w./-]+\.(?:py|md|yaml|json))`")
_DOTTED = re.compile(r"`(agentprompt(?:\.\w+)+)`")


@cache
def _tracked() -> tuple[str, ...]:
    """Every file of the repository (tracked or new), as paths from its root."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return tuple(listed.stdout.splitlines())


def _exists(named: str) -> bool:
    """Whether a file the document names is in the repository: a path is matched at the
    end of a file's path (``map/_build.py``), a bare name anywhere."""
    return any(path == named or path.endswith("/" + named) for path in _tracked())


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_file_the_architecture_names_exists() -> None:
    named = sorted(set(_FILE.findall(_doc())))
    assert named, "the document names no file"
    missing = [name for name in named if not _exists(name)]
    assert not missing, f"docs/architecture.md names files that do not exist: {missing}"


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def test_every_dotted_name_the_architecture_names_resolves() -> None:
    named = sorted(set(_DOTTED.findall(_doc())))
    missing = [name for name in named if not _resolves(name)]
    assert not missing, f"docs/architecture.md names what does not exist: {missing}"


def _packages() -> list[str]:
    return sorted(
        str(init.parent.relative_to(SRC)) for init in SRC.rglob("__init__.py") if init.parent != SRC
    )


@pytest.mark.parametrize("package", _packages())
def test_every_package_is_described(package: str) -> None:
    name = package.rsplit("/", 1)[-1]
    assert f"**{name}/**" in _doc() or f"`{package}/`" in _doc(), (
        f"docs/architecture.md has no paragraph for {package}/ (write one headed **{name}/**)"
    )


def test_every_module_of_the_repository_engine_is_named() -> None:
    """The repository context engine is described part by part, module by module."""
    doc = _doc()
    modules = sorted(
        path.name
        for path in (SRC / "repo").rglob("*.py")
        if path.name != "__init__.py" and "__pycache__" not in path.parts
    )
    missing = [name for name in modules if name not in doc]
    assert not missing, f"docs/architecture.md does not describe these modules: {missing}"
