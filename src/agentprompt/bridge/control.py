"""Changing a session's context by hand: ``bridge drop`` and ``bridge add``.

A dropped file leaves the context (its changes are no longer sent, a reply's edits do not
bring it back); an added file joins it in full (edit mode) and is sent in the next prompt.
A path that names nothing the session can drop or add is a usage error, and the state is
not changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path, PurePosixPath

from agentprompt.bridge.state import BridgeState
from agentprompt.bridge.view import RepoView, resolve_paths
from agentprompt.errors import UsageError

__all__ = ["add_files", "drop_files"]


def _not_in_context(path: str, files: Sequence[str]) -> UsageError:
    """A path given to drop that is not among the session's files in context."""
    listed = ", ".join(files[:8]) + (", ..." if len(files) > 8 else "")
    where = f"the files in context are: {listed}" if files else "no file is in context"
    return UsageError(f"{path} is not in the session's context; {where}")


def _normal(root: Path, given: str) -> str:
    path = Path(given)
    if path.is_absolute():
        try:
            given = str(path.resolve().relative_to(root.resolve()))
        except ValueError:
            return given
    text = given.strip()
    while text.startswith("./"):
        text = text[2:]
    return str(PurePosixPath(text)).rstrip("/")


def drop_files(root: Path, state: BridgeState, paths: Sequence[str]) -> BridgeState:
    """``state`` without ``paths`` in context (a folder drops every file under it)."""
    chosen: list[str] = []
    for given in paths:
        wanted = _normal(root, given)
        under = [p for p in state.files if p == wanted or p.startswith(wanted + "/")]
        if not under:
            raise _not_in_context(given, state.files)
        chosen.extend(under)
    gone = set(chosen)
    return replace(
        state,
        files=tuple(p for p in state.files if p not in gone),
        dropped=tuple(dict.fromkeys((*state.dropped, *chosen))),
        sent=tuple((p, d) for p, d in state.sent if p not in gone),
        pending=tuple((p, d) for p, d in state.pending if p not in gone),
    )


def add_files(
    view: RepoView, state: BridgeState, paths: Sequence[str]
) -> tuple[BridgeState, tuple[str, ...]]:
    """``state`` with ``paths`` (files, or folders for every file under them) in context in
    full, edit mode; and which of them were not in context before."""
    found = resolve_paths(view, paths)
    # A file in context whose text the chat never got (cut by the budget, held back) is
    # sent now too.
    unsent = {p for p, digest in state.sent if not digest}
    added = tuple(p for p in found if p not in state.files or p in unsent)
    new = replace(
        state,
        mode="edit",
        files=tuple(dict.fromkeys((*state.files, *found))),
        dropped=tuple(p for p in state.dropped if p not in found),
        sent=tuple((p, d) for p, d in state.sent if p not in added),
    )
    return new, added
