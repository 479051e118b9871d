"""The public API: one table (``agentprompt._PUBLIC``), from which the package root's typing
imports and its sorted ``__all__`` are generated."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import agentprompt

INIT = Path(agentprompt.__file__)
BEGIN = "# Generated from _PUBLIC: do not edit by hand.\n"
END = "# (end of the generated part)\n"
UPDATE_ENV = "AGENTPROMPT_UPDATE_SNAPSHOTS"
LINE = 100


def _import_order(name: str) -> tuple[int, str]:
    """isort's order inside one import: constants, then classes, then the rest."""
    if name.isupper():
        return (0, name)
    return (1 if name[0].isupper() else 2, name)


def _import_line(module: str, names: tuple[str, ...]) -> str:
    ordered = sorted(names, key=_import_order)
    line = f"    from {module} import {', '.join(ordered)}\n"
    if len(line) - 1 <= LINE:
        return line
    inner = "".join(f"        {name},\n" for name in ordered)
    return f"    from {module} import (\n{inner}    )\n"


def generated_part(public: dict[str, tuple[str, ...]]) -> str:
    """The typing imports and ``__all__`` that ``public`` stands for, as ruff formats them."""
    imports = "".join(_import_line(module, public[module]) for module in sorted(public))
    names = sorted(
        ["AgentPromptError", "UsageError", "__version__", *(n for v in public.values() for n in v)]
    )
    listed = "".join(f'    "{name}",\n' for name in names)
    return f"if _typing.TYPE_CHECKING:\n{imports}\n__all__ = [\n{listed}]\n"


def test_the_typing_imports_and_all_are_generated_from_the_table() -> None:
    text = INIT.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    current, _, tail = rest.partition(END)
    expected = generated_part(agentprompt._PUBLIC)
    if os.environ.get(UPDATE_ENV) == "1":
        INIT.write_text(head + BEGIN + expected + END + tail, encoding="utf-8")
        return
    assert current == expected, (
        "agentprompt/__init__.py's generated part differs from _PUBLIC: run the tests with "
        f"{UPDATE_ENV}=1 to write it"
    )


def test_every_name_in_all_exists_where_the_table_says() -> None:
    for module, names in agentprompt._PUBLIC.items():
        for name in names:
            assert getattr(agentprompt, name) is getattr(importlib.import_module(module), name)
    missing = [n for n in agentprompt.__all__ if not hasattr(agentprompt, n)]
    assert missing == []


def test_the_public_api_is_small() -> None:
    # The root offers what most users need; the engines' full APIs are their packages.
    assert 50 <= len(agentprompt.__all__) <= 70


def test_every_public_name_imported_into_the_root_is_in_all() -> None:
    public = {n for n in vars(agentprompt) if not n.startswith("_")}
    modules = {n for n in public if type(getattr(agentprompt, n)).__name__ == "module"}
    assert public - modules - set(agentprompt.__all__) == set()


def test_every_public_function_and_class_has_a_docstring() -> None:
    undocumented = [
        n
        for n in agentprompt.__all__
        if callable(getattr(agentprompt, n)) and not (getattr(agentprompt, n).__doc__ or "").strip()
    ]
    assert undocumented == []


def test_importing_the_package_loads_no_engine() -> None:
    # The engines load on first use: `import agentprompt` (and the CLI's start) stays cheap.
    code = (
        "import sys, agentprompt; "
        "print(sorted(m for m in sys.modules if m.startswith('agentprompt.')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "['agentprompt._lazy', 'agentprompt.errors']"
