"""The public API: one sorted, complete ``__all__`` at the package root."""

from __future__ import annotations

import agentprompt


def test_all_is_sorted() -> None:
    names = [n for n in agentprompt.__all__ if n != "__version__"]
    assert names == sorted(names, key=lambda n: (n[0].islower(), n))


def test_every_name_in_all_exists() -> None:
    missing = [n for n in agentprompt.__all__ if not hasattr(agentprompt, n)]
    assert missing == []


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
