"""Taking bridge rounds back: what an applied round keeps so that it can be undone.

Each round a reply applies (never a dry run) keeps, in the project's state database beside
the session, the session's state before the round and each file the round wrote as it was
before (:class:`~agentprompt.edits.revert.FileBefore`). The last :data:`KEEP_ROUNDS` rounds
of the session in progress are kept; a new session's first round drops the old session's.
Undo takes the newest round back: it is refused when none is kept, or when the round kept
belongs to a session that was cleared or replaced since.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.bridge.state import BridgeState, _opened
from agentprompt.edits.revert import FileBefore
from agentprompt.errors import UsageError
from agentprompt.store import StoreError

__all__ = [
    "KEEP_ROUNDS",
    "RoundUndo",
    "forget_round",
    "keep_round",
    "last_round",
    "rounds_kept",
    "undoable",
]

KEEP_ROUNDS = 10
"""How many of a session's rounds can be undone, newest first."""


@dataclass(frozen=True, kw_only=True)
class RoundUndo:
    """One applied round as it can be taken back."""

    session_id: str
    """The session the round belongs to."""
    rounds: int
    """The session's round count once the round was applied (its number)."""
    state: BridgeState
    """The session's state before the round."""
    files: tuple[FileBefore, ...] = ()
    """Each file the round wrote, created or deleted, as it was before."""
    commit: str | None = None
    """The git commit made for the round, if one was (undo leaves it in the history)."""

    def to_json(self) -> dict[str, Any]:
        """The record as JSON-ready data (what the store keeps)."""
        return {
            "rounds": self.rounds,
            "state": self.state.to_json(),
            "files": [f.to_json() for f in self.files],
            "commit": self.commit,
        }

    @classmethod
    def from_json(cls, session_id: str, data: dict[str, Any]) -> RoundUndo:
        """The record kept as ``data`` for session ``session_id``."""
        try:
            commit = data.get("commit")
            return cls(
                session_id=session_id,
                rounds=int(data["rounds"]),
                state=BridgeState.from_json(data["state"]),
                files=tuple(FileBefore.from_json(f) for f in data.get("files", ())),
                commit=None if commit is None else str(commit),
            )
        except (AttributeError, KeyError, TypeError, ValueError) as exc:
            raise StoreError(
                f"the kept round cannot be read ({exc})", fix="clear it with {reset_session}"
            ) from None


def keep_round(root: Path, record: RoundUndo, *, keep: int = KEEP_ROUNDS) -> None:
    """Keep ``record`` as its session's newest round (joining a held session's
    transaction, as :func:`~agentprompt.bridge.state.save_state` does)."""
    with _opened(root, create=True) as store:
        assert store is not None
        store.push_undo(record.session_id, record.to_json(), keep=keep)


def last_round(root: Path) -> tuple[int, RoundUndo] | None:
    """The newest round kept (its record's number and the round), of any session."""
    with _opened(root, create=False) as store:
        found = store.last_undo() if store is not None else None
    if found is None:
        return None
    return found.id, RoundUndo.from_json(found.session_id, found.data)


def rounds_kept(root: Path, session_id: str) -> int:
    """How many rounds of session ``session_id`` can be undone."""
    with _opened(root, create=False) as store:
        return store.count_undo(session_id) if store is not None else 0


def forget_round(root: Path, number: int) -> None:
    """Drop the kept round ``number`` (it was undone)."""
    with _opened(root, create=True) as store:
        assert store is not None
        store.delete_undo(number)


def undoable(
    session: tuple[str, BridgeState] | None, kept: tuple[int, RoundUndo] | None
) -> tuple[int, RoundUndo]:
    """The round to undo in ``session`` (the session in progress, if any), given the newest
    round ``kept``; a :class:`~agentprompt.errors.UsageError` saying why there is none."""
    if kept is None:
        if session is not None and session[1].rounds > 0:
            raise UsageError(
                "nothing to undo: no earlier round of this session is kept (undo keeps the "
                f"last {KEEP_ROUNDS} rounds of a session)"
            )
        raise UsageError("nothing to undo: no reply has been applied in this session")
    number, record = kept
    if session is None:
        raise UsageError(
            f"the session that applied round {record.rounds} was cleared since; its rounds "
            "cannot be undone",
            fix="undo its changes with git if you need to",
        )
    session_id, state = session
    if record.session_id != session_id:
        raise UsageError(
            f"the session that applied round {record.rounds} was replaced by a new task "
            "since; its rounds cannot be undone",
            fix="undo its changes with git if you need to",
        )
    if state.rounds != record.rounds:
        raise UsageError(
            f"nothing to undo: the session is at round {state.rounds} and the last round "
            f"kept is round {record.rounds}"
        )
    return number, record
