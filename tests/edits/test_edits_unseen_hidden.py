"""An edit to a file the model has not been shown in full is flagged (and refused by a
strict apply); a file the session cannot show is never written unless the user says so."""

from __future__ import annotations

from pathlib import Path

from agentprompt.edits.apply import ApplyOptions, apply_reply

EDIT = "{path}\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("x = 1\n")
    (tmp_path / ".env").write_text("x = 1\n")
    return tmp_path


def test_an_edit_to_a_file_not_shown_is_flagged_and_applied(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    reply = EDIT.format(path="a.py") + EDIT.format(path="b.py")
    report = apply_reply(root, reply, options=ApplyOptions(seen_in_full=frozenset({"a.py"})))
    assert report.ok, report.feedback
    assert [(a.path, a.unseen) for a in report.applied] == [("a.py", False), ("b.py", True)]
    assert report.to_json()["applied"][1]["unseen"] is True
    assert "unseen" not in report.to_json()["applied"][0]
    assert (root / "b.py").read_text() == "x = 2\n"


def test_a_new_file_or_an_unknown_session_is_not_flagged(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    new = "c.py\n<<<<<<< SEARCH\n=======\ny = 1\n>>>>>>> REPLACE\n"
    report = apply_reply(root, new, options=ApplyOptions(seen_in_full=frozenset()))
    assert report.ok and not report.applied[0].unseen
    report = apply_reply(root, EDIT.format(path="b.py"))
    assert report.ok and not report.applied[0].unseen


def test_strict_refuses_an_edit_to_a_file_not_shown(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    options = ApplyOptions(seen_in_full=frozenset({"a.py"}), strict=True)
    report = apply_reply(root, EDIT.format(path="b.py"), options=options)
    assert not report.ok
    assert "REQUEST_FILE: b.py" in report.failed[0].reason
    assert (root / "b.py").read_text() == "x = 1\n"


def test_a_hidden_file_is_never_written_unless_the_user_says_so(tmp_path: Path) -> None:
    root = _repo(tmp_path)

    def hidden(path: str) -> bool:
        return path == ".env" or path.startswith("secrets/")

    reply = EDIT.format(path=".env")
    report = apply_reply(root, reply, options=ApplyOptions(hidden=hidden))
    assert not report.ok
    assert "cannot show you" in report.failed[0].reason
    assert (root / ".env").read_text() == "x = 1\n"
    created = "secrets/key.txt\n<<<<<<< SEARCH\n=======\nk\n>>>>>>> REPLACE\n"
    assert not apply_reply(root, created, options=ApplyOptions(hidden=hidden)).ok
    assert not (root / "secrets").exists()
    moved = (
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: secrets/a.py\n@@\n-x = 1\n"
        "+x = 3\n*** End Patch\n"
    )
    assert not apply_reply(root, moved, options=ApplyOptions(hidden=hidden)).ok
    assert (root / "a.py").read_text() == "x = 1\n"
    allowed = apply_reply(root, reply, options=ApplyOptions(hidden=hidden, allow_hidden=True))
    assert allowed.ok, allowed.feedback
    assert (root / ".env").read_text() == "x = 2\n"
