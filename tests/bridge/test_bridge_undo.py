"""What a bridge round keeps to be undone, and which round undo may take back."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.bridge import BridgeState, start_session
from agentprompt.bridge.undo import (
    RoundUndo,
    forget_round,
    keep_round,
    last_round,
    rounds_kept,
    undoable,
)
from agentprompt.edits import FileBefore
from agentprompt.errors import UsageError

STATE = BridgeState(task="t", rounds=2, files=("a.py",), sent=(("a.py", "d1"),))


def _record(session_id: str, rounds: int = 3) -> RoundUndo:
    files = (FileBefore(path="a.py", before=b"\xff\x00old", mode=0o644, after="x"),)
    return RoundUndo(session_id=session_id, rounds=rounds, state=STATE, files=files)


def test_a_kept_round_reads_back_as_it_was(tmp_path: Path) -> None:
    session_id = start_session(tmp_path, STATE)
    keep_round(tmp_path, _record(session_id))
    found = last_round(tmp_path)
    assert found is not None and found[1] == _record(session_id)
    assert rounds_kept(tmp_path, session_id) == 1
    forget_round(tmp_path, found[0])
    assert last_round(tmp_path) is None


def test_only_the_newest_rounds_of_the_session_are_kept(tmp_path: Path) -> None:
    first = start_session(tmp_path, STATE)
    keep_round(tmp_path, _record(first))
    second = start_session(tmp_path, STATE)
    for n in range(1, 5):
        keep_round(tmp_path, _record(second, n), keep=3)
    assert rounds_kept(tmp_path, first) == 0 and rounds_kept(tmp_path, second) == 3
    found = last_round(tmp_path)
    assert found is not None and found[1].rounds == 4


def test_the_round_of_the_session_in_progress_is_undoable() -> None:
    record = _record("s1", rounds=2)
    assert undoable(("s1", STATE), (7, record)) == (7, record)


@pytest.mark.parametrize(
    ("session", "kept", "said"),
    [
        (None, None, "nothing to undo: no reply has been applied"),
        (("s1", BridgeState(task="t")), None, "nothing to undo: no reply has been applied"),
        (("s1", STATE), None, "no earlier round of this session is kept"),
        (None, (1, _record("s1", 2)), "was cleared since"),
        (("s2", BridgeState(task="t")), (1, _record("s1", 2)), "replaced by a new task"),
        (("s1", STATE), (1, _record("s1", 1)), "the session is at round 2"),
    ],
)
def test_undo_is_refused_with_the_reason(
    session: tuple[str, BridgeState] | None, kept: tuple[int, RoundUndo] | None, said: str
) -> None:
    with pytest.raises(UsageError, match=said):
        undoable(session, kept)
