"""Which folder is the user's project: the nearest one holding ``.git``.

It sits in the core because the prompt library looks for a project's prompt overrides
there, and the project facts, the agent and the commands all start from it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["find_project_root"]


def find_project_root(start: Path | None = None) -> Path:
    """The nearest directory at or above ``start`` holding ``.git``, else ``start`` itself."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here
