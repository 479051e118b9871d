"""Which folder is the user's project: the nearest one holding ``.git``.

It sits in the core because the prompt library looks for a project's prompt overrides
there, and the project facts, the agent and the commands all start from it.
"""

from __future__ import annotations

from pathlib import Path

from agentprompt.errors import UsageError, literal

__all__ = ["check_root", "find_project_root"]


def find_project_root(start: Path | None = None) -> Path:
    """The nearest directory at or above ``start`` holding ``.git``, else ``start`` itself."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here


def check_root(root: Path) -> Path:
    """``root`` when it is a folder; else a :class:`UsageError` of the input ``root``
    naming it (and saying when it does not exist at all)."""
    if not root.is_dir():
        why = " (it does not exist)" if not root.exists() else ""
        raise UsageError(
            f"{{root}} {literal(str(root))} is not a directory{why}",
            input="root",
            fix="give the repository root",
        )
    return root
