"""A full disk never leaves a mixed tree: whichever write the disk refuses, the apply rolls
back to the very bytes it started from, leaves no temporary file or journal, reports the
error (as JSON with ``--json``), and ``--recover`` works with no free space at all."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agentprompt.cli.main import main
from agentprompt.edits import journal
from agentprompt.edits.paths import TEMP_NAME

BIG = "".join(f"line {n:05d} of a new file that does not fit on the disk\n" for n in range(1400))
"""A new file of about 79 KB."""

FILES = {
    "a.txt": "alpha\n",
    "sub/b.txt": "beta\nbeta two\n",
    "c.txt": "gamma\n",
    "keep.txt": "untouched\n",
}

REPLY = f"""Here are the changes.

<<<DIFF: a.txt>>>
@@ -1 +1 @@
-alpha
+ALPHA
<<<END>>>

<<<FILE: [NEW] big/data.txt>>>
{BIG}<<<END>>>

<<<FILE: sub/b.txt>>>
B
B two
<<<END>>>

<<<DELETE: c.txt>>>

<<<FILE: [NEW] new/dir/d.txt>>>
delta
<<<END>>>
"""
"""A multi-file bridge reply: a small edit first, then a big new file, a whole-file write,
a delete and a new file in new directories."""

Tree = dict[str, tuple[str, bytes | None, int]]


def _tree(root: Path) -> Tree:
    """Every entry under ``root``: kind, bytes (files) and permission bits."""
    out: Tree = {}
    for base, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            path = Path(base) / name
            info = os.lstat(path)
            rel = path.relative_to(root).as_posix()
            if stat.S_ISDIR(info.st_mode):
                out[rel] = ("dir", None, stat.S_IMODE(info.st_mode))
            else:
                out[rel] = ("file", path.read_bytes(), stat.S_IMODE(info.st_mode))
    return out


def _make(root: Path) -> Tree:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    os.chmod(root / "a.txt", 0o750)
    return _tree(root)


def _temps(root: Path) -> list[str]:
    return [
        os.path.join(base, name)
        for base, _, names in os.walk(root)
        for name in names
        if TEMP_NAME.match(name) or name.endswith(".tmp")
    ]


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> Run:
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as done:
        code = int(done.code or 0)
    out, err = capsys.readouterr()
    return Run(code, out, err)


def _apply(capsys: pytest.CaptureFixture[str], root: Path, reply: Path) -> Run:
    return _cli(capsys, "apply", str(reply), "--root", str(root), "--dialect", "bridge", "--json")


def _enospc(name: str) -> OSError:
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), name)


class Disk:
    """Fault injection on the os calls that write: the ``k``-th call of ``ops`` raises
    ``ENOSPC``; with ``stays_full``, so does every later ``write`` and ``fsync`` (a disk
    that filled up stays full; renames, links and unlinks need no blocks and still work)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, ops: tuple[str, ...], k: int) -> None:
        self.k = k
        self.calls = 0
        self.fired = False
        self.stays_full = False
        for op in {*ops, "write", "fsync"}:
            real = getattr(os, op)
            monkeypatch.setattr(os, op, self._wrap(op, real, counted=op in ops))

    def _wrap(self, op: str, real: Callable[..., Any], *, counted: bool) -> Callable[..., Any]:
        def faulty(*args: Any, **kwargs: Any) -> Any:
            if self.fired and self.stays_full and op in ("write", "fsync"):
                raise _enospc(op)
            if counted and not self.fired:
                self.calls += 1
                if self.calls == self.k:
                    self.fired = True
                    raise _enospc(op)
            return real(*args, **kwargs)

        return faulty


@pytest.fixture
def reply(tmp_path: Path) -> Path:
    path = tmp_path / "reply.md"
    path.write_text(REPLY)
    return path


def test_the_reply_applies_without_a_fault(
    tmp_path: Path, reply: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    _make(root)
    done = _apply(capsys, root, reply)
    assert done.code == 0, done.err
    assert json.loads(done.out)["written"] is True
    assert (root / "big" / "data.txt").read_text() == BIG
    assert not (root / "c.txt").exists()
    assert not _temps(root) and not (root / ".agentprompt").exists()


def _positions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ops: tuple[str, ...], stays_full: bool
) -> Iterator[tuple[Path, Tree, Disk]]:
    """A fresh tree and a disk that fails at the 1st, 2nd, ... call of ``ops``, until a run
    goes by without the fault firing."""
    k = 0
    while True:
        k += 1
        assert k < 500, "the apply never stopped making calls"
        root = tmp_path / f"root-{k}"
        before = _make(root)
        with monkeypatch.context() as patch:
            disk = Disk(patch, ops, k)
            disk.stays_full = stays_full
            yield root, before, disk
        if not disk.fired:
            return


@pytest.mark.parametrize("stays_full", [True, False], ids=["stays-full", "one-failure"])
@pytest.mark.parametrize(
    "ops", [("write",), ("fsync",), ("replace",), ("mkdir",), ("write", "fsync", "replace")]
)
def test_enospc_at_every_write_position_leaves_the_tree_as_it_was(
    tmp_path: Path,
    reply: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    ops: tuple[str, ...],
    stays_full: bool,
) -> None:
    after = None
    failures = 0
    for root, before, disk in _positions(tmp_path, monkeypatch, ops, stays_full):
        done = _apply(capsys, root, reply)
        where = f"{ops} call {disk.k}: {done.err}"
        assert not _temps(root), where
        assert not (root / ".agentprompt").exists(), where
        data = json.loads(done.out)
        if disk.fired and done.code != 0:
            failures += 1
            assert done.code == 1, where
            assert _tree(root) == before, where
            assert data["written"] is False
            assert data["error_code"] == "ENOSPC"
            assert data["rolled_back"] is True
            assert "No space left on device" in data["error"]
            assert "nothing changed" in data["error"]
        else:
            # Only a directory fsync (best effort) failed, or the fault never fired.
            assert done.code == 0, where
            assert data["written"] is True
            after = after or _tree(root)
            assert _tree(root) == after, where
        shutil.rmtree(root)
    assert failures > 0


def test_enospc_without_json_is_one_clear_line(
    tmp_path: Path,
    reply: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "root"
    before = _make(root)
    Disk(monkeypatch, ("write",), 3).stays_full = True
    done = _cli(capsys, "apply", str(reply), "--root", str(root), "--dialect", "bridge")
    assert done.code == 1
    assert done.out == ""
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 or " ".join(lines).startswith("agentprompt: writing")
    assert "No space left on device" in done.err and "nothing changed" in done.err
    assert _tree(root) == before


class Crash(BaseException):
    """The process dying at that instant (no rollback runs)."""


def _crash_mid_apply(monkeypatch: pytest.MonkeyPatch, root: Path, reply: Path, k: int) -> bool:
    """Apply ``reply`` and die at the ``k``-th rename of a written file, leaving the tree
    mixed, half-written temporary files beside it and the journal; false when the apply
    finished first."""
    from agentprompt.edits.apply import apply_reply

    real_replace = os.replace
    count = [0]

    def dying(src: str | Path, dst: str | Path) -> None:
        if TEMP_NAME.match(Path(src).name):
            count[0] += 1
            if count[0] == k:
                raise Crash
        real_replace(src, dst)

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", dying)
        patch.setattr(journal, "_undo", lambda *args: None)
        try:
            apply_reply(root, reply.read_text(), "bridge")
        except Crash:
            pass
        else:
            return False
    manifest = json.loads((root / ".agentprompt" / "journal" / "manifest.json").read_text())
    for entry in manifest["files"]:
        parent = (root / entry["path"]).parent
        if entry["after"] is not None and parent.is_dir():
            (parent / entry["temp"]).write_bytes(b"half a file")
    return True


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_recover_after_a_crash_works_on_a_full_disk(
    tmp_path: Path,
    reply: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    k: int,
) -> None:
    root = tmp_path / "root"
    before = _make(root)
    assert _crash_mid_apply(monkeypatch, root, reply, k)
    assert _tree(root) != before and _temps(root)
    # The disk is full now: no byte can be written or synced.
    Disk(monkeypatch, ("write", "fsync"), 1).stays_full = True
    blocked = _apply(capsys, root, reply)
    assert blocked.code == 2 and "--recover" in blocked.err
    done = _cli(capsys, "apply", "--recover", "--root", str(root), "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["found"] is True
    assert ("a.txt" in report["restored"]) == (k > 1)
    assert _tree(root) == before
    assert not _temps(root) and not (root / ".agentprompt").exists()


def test_a_rollback_that_fails_keeps_the_journal_and_says_recover(
    tmp_path: Path,
    reply: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = tmp_path / "root"
    before = _make(root)
    with monkeypatch.context() as patch:
        disk = Disk(patch, ("replace",), 3)

        real_link = os.link

        def broken(source: Path, target: Path, **kwargs: Any) -> None:
            # The journal's backups are made; putting them back fails.
            if Path(target).parent.name == "journal":
                real_link(source, target, **kwargs)
                return
            raise OSError(errno.EIO, "Input/output error")

        patch.setattr(os, "link", broken)
        done = _apply(capsys, root, reply)
        assert disk.fired
    data = json.loads(done.out)
    assert done.code == 1
    assert data["rolled_back"] is False and data["error_code"] == "ENOSPC"
    assert "--recover" in data["error"] and "do not delete the journal" in data["error"]
    assert (root / ".agentprompt" / "journal" / "manifest.json").exists()
    recovered = _cli(capsys, "apply", "--recover", "--root", str(root), "--json")
    assert recovered.code == 0, recovered.err
    assert _tree(root) == before


def test_an_unreadable_journal_is_never_to_be_deleted_first(tmp_path: Path) -> None:
    (tmp_path / ".agentprompt" / "journal").mkdir(parents=True)
    (tmp_path / ".agentprompt" / "journal" / "manifest.json").write_text("{broken")
    (tmp_path / ".agentprompt" / "journal" / "orig-0").write_text("the only copy")
    with pytest.raises(journal.EditError) as caught:
        journal.recover(tmp_path)
    message = str(caught.value)
    assert "left in place" in message and "only then delete" in message
    assert (tmp_path / ".agentprompt" / "journal" / "orig-0").exists()


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 64 KiB tmpfs, when this process may mount one (root, outside a locked container)."""
    mount = tmp_path / "small"
    mount.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)], check=False)


def test_a_real_full_tmpfs_leaves_the_tree_as_it_was(
    small_tmpfs: Path, reply: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = small_tmpfs / "root"
    before = _make(root)
    done = _apply(capsys, root, reply)
    data = json.loads(done.out)
    assert done.code == 1, done.err
    assert data["error_code"] == "ENOSPC" and data["rolled_back"] is True
    assert _tree(root) == before
    assert not _temps(root) and not (root / ".agentprompt").exists()
