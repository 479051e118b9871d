"""The stored sessions service: the sessions every runtime (agent, bridge, workflow) keeps
in a project's state database, listed, shown and removed.

Looking never creates a database; a database that cannot be read is the store's
:class:`~agentprompt.store.StoreError`, saying what to do.
"""

from __future__ import annotations

from pathlib import Path

from agentprompt.services._workspace import Workspace
from agentprompt.store import SessionRecord, Store, StoreError

__all__ = ["StoredSessions"]


class StoredSessions:
    """The sessions stored for one workspace (or in a database kept elsewhere)."""

    def __init__(self, workspace: Workspace, *, database: Path | None = None) -> None:
        self.path = database or workspace.state_path
        """The state database the sessions are kept in."""

    def records(self, kind: str | None = None) -> list[SessionRecord]:
        """The stored sessions (of one runtime's ``kind``, or all), newest first."""
        if not self.path.exists():
            return []
        with Store(self.path) as store:
            return store.list_sessions(kind)

    def get(self, session_id: str) -> SessionRecord:
        """One stored session with its state; a :class:`StoreError` when there is none."""
        if not self.path.exists():
            raise StoreError(
                f"no session {session_id!r}: there is no state database at {self.path}"
            )
        with Store(self.path) as store:
            return store.get_session(session_id)

    def delete(self, session_id: str) -> bool:
        """Remove a stored session; whether there was one."""
        if not self.path.exists():
            return False
        with Store(self.path) as store:
            return store.delete_session(session_id)
