"""Path safety: every refused kind of path, with its reason, and nothing written."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from agentprompt.edits.actions import WriteFile
from agentprompt.edits.apply import apply_actions
from agentprompt.edits.paths import UnsafePath, check_target, resolve_inside


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "root"
    (base / "src").mkdir(parents=True)
    (base / "src" / "app.py").write_text("x = 1\n")
    (base / ".git").mkdir()
    (base / ".git" / "config").write_text("[core]\n")
    return base


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside.txt", "'..'"),
        ("src/../../outside.txt", "'..'"),
        ("/etc/passwd", "absolute"),
        ("C:/Windows/x", "absolute"),
        ("src/a\0b.py", "NUL"),
        (".git/config", ".git/"),
        ("src/.GIT/hooks/x", ".git/"),
        ("", "empty"),
        (".", "root itself"),
        (".agentprompt/journal/manifest.json", "journal"),
    ],
)
def test_unsafe_paths_are_refused_with_a_reason(root: Path, path: str, reason: str) -> None:
    with pytest.raises(UnsafePath) as info:
        resolve_inside(root, path)
    assert reason in str(info.value)


def test_a_safe_path_resolves_inside_the_root(root: Path) -> None:
    assert resolve_inside(root, "src/./app.py") == Path(os.path.realpath(root)) / "src" / "app.py"


def test_symlink_leading_out_of_the_root_is_refused(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    with pytest.raises(UnsafePath, match="symlink"):
        resolve_inside(root, "link/file.txt")


def test_dangling_symlink_leading_out_is_refused(root: Path, tmp_path: Path) -> None:
    (root / "dangling").symlink_to(tmp_path / "nowhere.txt")
    with pytest.raises(UnsafePath, match="symlink"):
        resolve_inside(root, "dangling")


def test_symlink_into_git_is_refused(root: Path) -> None:
    (root / "cfg").symlink_to(root / ".git" / "config")
    with pytest.raises(UnsafePath, match=r"\.git"):
        resolve_inside(root, "cfg")


def test_symlink_inside_the_root_resolves_to_its_target(root: Path) -> None:
    (root / "alias.py").symlink_to(root / "src" / "app.py")
    assert resolve_inside(root, "alias.py") == Path(os.path.realpath(root / "src" / "app.py"))


def test_fifo_is_refused(root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(UnsafePath, match="FIFO"):
        check_target(resolve_inside(root, "pipe"), "pipe")


def test_device_file_is_refused(root: Path) -> None:
    (root / "null").symlink_to("/dev/null")
    with pytest.raises(UnsafePath):
        check_target(resolve_inside(root, "null"), "null")
    with pytest.raises(UnsafePath, match="device"):
        check_target(Path("/dev/null"), "/dev/null")


def test_socket_is_refused(tmp_path: Path) -> None:
    short = Path("/tmp") / f"ap-sock-{os.getpid()}"
    short.mkdir(exist_ok=True)
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.bind(str(short / "s"))
            with pytest.raises(UnsafePath, match="socket"):
                check_target(short / "s", "s")
    finally:
        (short / "s").unlink(missing_ok=True)
        short.rmdir()


def test_directory_is_refused_as_a_file(root: Path) -> None:
    with pytest.raises(UnsafePath, match="directory"):
        check_target(resolve_inside(root, "src"), "src")


def test_refused_path_fails_the_action_and_writes_nothing(root: Path, tmp_path: Path) -> None:
    action = WriteFile(dialect="whole", path="../escape.txt", content="x\n")
    report = apply_actions(root, [action])
    assert not report.ok
    assert "'..'" in report.failed[0].reason
    assert not (tmp_path / "escape.txt").exists()


@pytest.mark.parametrize(("kind", "reason"), [("fifo", "FIFO"), ("dir", "directory")])
def test_apply_refuses_a_target_that_is_not_a_regular_file(
    root: Path, kind: str, reason: str
) -> None:
    target = root / "thing"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    report = apply_actions(root, [WriteFile(dialect="whole", path="thing", content="x\n")])
    assert reason in report.failed[0].reason


@pytest.mark.parametrize(
    ("path", "start"),
    [
        ("~/src/app.py", "~"),
        ("~alice/src/app.py", "~alice"),
        ("$HOME/src/app.py", "$HOME"),
        ("${HOME}/src/app.py", "${HOME}"),
        ("%USERPROFILE%\\src\\app.py", "%USERPROFILE%"),
    ],
)
def test_a_first_folder_a_shell_would_expand_is_refused_naming_the_path_to_use(
    root: Path, path: str, start: str
) -> None:
    report = apply_actions(root, [WriteFile(dialect="whole", path=path, content="y = 2\n")])
    assert not report.ok
    reason = report.failed[0].reason
    assert start in reason and "src/app.py" in reason and "repository root" in reason
    assert not (root / start).exists()
    assert (root / "src" / "app.py").read_text() == "x = 1\n"


def test_a_lone_home_name_is_refused(root: Path) -> None:
    with pytest.raises(UnsafePath, match="repository root"):
        resolve_inside(root, "~")


def test_a_folder_of_such_a_name_that_exists_in_the_root_is_used(root: Path) -> None:
    (root / "~backup").mkdir()
    (root / "$vendor").mkdir()
    assert resolve_inside(root, "~backup/a.txt").parent.name == "~backup"
    assert resolve_inside(root, "$vendor/a.txt").parent.name == "$vendor"
    assert resolve_inside(root, "src/~/a.txt").parent.name == "~"
