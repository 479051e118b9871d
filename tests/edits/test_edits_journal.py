"""The journal: a failure or a kill at any write leaves (or gets) every file as it was."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from edits_snapshot import files

from agentprompt.edits import journal
from agentprompt.edits.actions import DeleteFile, SearchReplace, WriteFile
from agentprompt.edits.apply import apply_actions
from agentprompt.edits.journal import JournalPending, WriteFailed, recover

FILES = {"a.txt": "alpha\n", "sub/b.txt": "beta\n", "c.txt": "gamma\n"}


def _tree(root: Path) -> dict[str, bytes]:
    return files(root)


def _make(root: Path) -> dict[str, bytes]:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    os.chmod(root / "a.txt", 0o750)
    return _tree(root)


def _actions() -> list[SearchReplace | WriteFile | DeleteFile]:
    return [
        SearchReplace(dialect="searchreplace", path="a.txt", search="alpha\n", replace="ALPHA\n"),
        SearchReplace(dialect="searchreplace", path="sub/b.txt", search="beta\n", replace="B\n"),
        DeleteFile(dialect="bridge", path="c.txt"),
        WriteFile(dialect="whole", path="new/dir/d.txt", content="delta\n"),
        WriteFile(dialect="whole", path="e.txt", content="epsilon\n"),
    ]


WRITES = 4
"""How many os.replace calls the actions above make (every write but the delete)."""


@pytest.mark.parametrize("k", range(1, WRITES + 1))
def test_failing_the_kth_rename_leaves_every_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, k: int
) -> None:
    before = _make(tmp_path)
    real_replace = os.replace
    calls = {"n": 0}

    def flaky(src: str | Path, dst: str | Path) -> None:
        if not str(src).endswith(".tmp") or "manifest" in Path(src).name:
            return real_replace(src, dst)
        calls["n"] += 1
        if calls["n"] == k:
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(journal.os, "replace", flaky)
    with pytest.raises(WriteFailed, match="every file was restored"):
        apply_actions(tmp_path, _actions())
    assert _tree(tmp_path) == before
    assert os.stat(tmp_path / "a.txt").st_mode & 0o777 == 0o750
    assert not (tmp_path / "new").exists()
    assert not (tmp_path / ".agentprompt").exists()


def test_all_writes_succeed_without_fault(tmp_path: Path) -> None:
    _make(tmp_path)
    assert apply_actions(tmp_path, _actions()).ok
    assert _tree(tmp_path) == AFTER


CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    sys.path[:0] = {paths!r}
    from agentprompt.edits import journal
    from test_edits_journal import _actions
    from agentprompt.edits.apply import apply_actions

    real = getattr(os, {op!r})
    count = [0]
    def dying(*args, **kwargs):
        count[0] += 1
        if count[0] == {k}:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)
    setattr(journal.os, {op!r}, dying)
    apply_actions(Path({root!r}), _actions())
    """
)

AFTER = {
    "a.txt": b"ALPHA\n",
    "e.txt": b"epsilon\n",
    "new/dir/d.txt": b"delta\n",
    "sub/b.txt": b"B\n",
}
"""The files once the actions above have all landed."""


@pytest.mark.parametrize("op", ["replace", "write", "fsync", "unlink", "mkdir"])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 8])
def test_killed_mid_apply_then_recover_restores_everything(tmp_path: Path, op: str, k: int) -> None:
    root = tmp_path / "root"
    root.mkdir()
    before = _make(root)
    paths = [str(Path(__file__).parent), *sys.path]
    script = CHILD.format(paths=paths, k=k, root=str(root), op=op)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode in (0, -signal.SIGKILL), done.stderr.decode()
    if (root / ".agentprompt" / "journal" / "manifest.json").exists():
        with pytest.raises(JournalPending, match="then 'recover'"):
            apply_actions(root, _actions())
        assert recover(root).found
        assert _tree(root) == before
        assert os.stat(root / "a.txt").st_mode & 0o777 == 0o750
        assert not (root / "new").exists()
    else:
        # Killed before the manifest existed (nothing touched) or after the commit (all done).
        recover(root)
        assert _tree(root) in (before, AFTER)
    assert not (root / ".agentprompt").exists()


def test_recover_without_a_journal_does_nothing(tmp_path: Path) -> None:
    before = _make(tmp_path)
    assert recover(tmp_path).found is False
    assert _tree(tmp_path) == before


def test_recover_removes_a_journal_left_before_its_manifest(tmp_path: Path) -> None:
    before = _make(tmp_path)
    (tmp_path / ".agentprompt" / "journal").mkdir(parents=True)
    (tmp_path / ".agentprompt" / "journal" / "orig-0").write_bytes(b"x")
    assert recover(tmp_path).found is False
    assert _tree(tmp_path) == before


def test_unreadable_journal_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / ".agentprompt" / "journal").mkdir(parents=True)
    (tmp_path / ".agentprompt" / "journal" / "manifest.json").write_text("{broken")
    with pytest.raises(journal.EditError, match="cannot be read"):
        recover(tmp_path)


def test_manifest_lists_originals_before_the_first_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _make(tmp_path)
    seen: list[dict[str, object]] = []
    real_replace = os.replace

    def spy(src: str | Path, dst: str | Path) -> None:
        if str(src).endswith(".tmp") and "manifest" not in Path(src).name and not seen:
            manifest = tmp_path / ".agentprompt" / "journal" / "manifest.json"
            seen.append(json.loads(manifest.read_text()))
        return real_replace(src, dst)

    monkeypatch.setattr(journal.os, "replace", spy)
    apply_actions(tmp_path, _actions())
    files = {f["path"]: f for f in seen[0]["files"]}  # type: ignore[union-attr]
    assert set(files) == {"a.txt", "sub/b.txt", "c.txt", "new/dir/d.txt", "e.txt"}
    assert files["new/dir/d.txt"]["backup"] is None
    assert seen[0]["dirs"] == ["new", "new/dir"]


def test_a_journal_that_cannot_be_written_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _make(tmp_path)

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(journal, "_begin", full)
    with pytest.raises(WriteFailed, match="No space left"):
        apply_actions(tmp_path, _actions())
    assert _tree(tmp_path) == before
    assert not (tmp_path / ".agentprompt").exists()
