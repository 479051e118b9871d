"""Writes a reply may not make: agentprompt's own instructions and state, a read-only file,
a name that is another existing name on macOS or Windows, and ``.git`` look-alikes."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from agentprompt.edits.actions import DeleteFile, MoveFile, WriteFile
from agentprompt.edits.apply import apply_actions, apply_reply
from agentprompt.edits.paths import UnsafePath, portable_key, resolve_inside


@pytest.fixture
def root(tmp_path: Path) -> Path:
    base = tmp_path / "root"
    (base / "sub").mkdir(parents=True)
    (base / "sub" / "x.txt").write_text("x\n")
    (base / "a.txt").write_text("a\n")
    (base / ".agentprompt" / "prompts").mkdir(parents=True)
    (base / ".agentprompt" / "prompts" / "system.md").write_text("be good\n")
    (base / ".agentprompt" / ".gitignore").write_text("/state.db*\n")
    (base / "config" / "prompts").mkdir(parents=True)
    return base


def _write(root: Path, path: str, content: str = "evil\n") -> str:
    report = apply_actions(root, [WriteFile(dialect="whole", path=path, content=content)])
    assert not report.ok, f"{path} was written"
    return report.failed[0].reason


@pytest.mark.parametrize(
    "path",
    [
        ".agentprompt/prompts/system.md",
        ".agentprompt/prompts/new.md",
        ".agentprompt/.gitignore",
        ".agentprompt/agents/helper.md",
        ".AgentPrompt/prompts/system.md",
        "config/prompts/system_extra.md",
        "Config/Prompts/edits/feedback.md",
        "./config//prompts/x.md",
    ],
)
def test_agentprompts_own_files_are_never_written(root: Path, path: str) -> None:
    before = (root / ".agentprompt" / "prompts" / "system.md").read_bytes()
    assert "agentprompt's own instructions" in _write(root, path)
    assert (root / ".agentprompt" / "prompts" / "system.md").read_bytes() == before
    assert not (root / ".agentprompt" / "agents").exists()
    assert not list((root / "config" / "prompts").iterdir())


def test_a_symlink_into_the_own_folder_is_refused_too(root: Path) -> None:
    (root / "docs").symlink_to(".agentprompt/prompts")
    assert "agentprompt's own instructions" in _write(root, "docs/system.md")


def test_deleting_or_moving_own_files_is_refused(root: Path) -> None:
    report = apply_actions(root, [DeleteFile(dialect="bridge", path=".agentprompt/.gitignore")])
    assert not report.ok
    move = MoveFile(dialect="applypatch", path="a.txt", to=".agentprompt/prompts/a.md")
    assert not apply_actions(root, [move]).ok
    assert (root / ".agentprompt" / ".gitignore").exists()
    assert (root / "a.txt").exists()


def test_own_files_are_still_readable(root: Path) -> None:
    found = resolve_inside(root, ".agentprompt/prompts/system.md")
    assert found.read_text() == "be good\n"


def test_the_refusal_is_worded_in_japanese_too(root: Path) -> None:
    reply = "<<<FILE: .agentprompt/prompts/system.md>>>\nevil\n<<<END>>>\n"
    from agentprompt.edits.apply import ApplyOptions

    report = apply_reply(root, reply, "bridge", ApplyOptions(lang="ja"))
    assert "agentprompt 自身の指示" in report.failed[0].reason


def test_a_read_only_file_is_not_replaced(root: Path) -> None:
    (root / "a.txt").chmod(0o444)
    reason = _write(root, "a.txt", "changed\n")
    assert "read-only (mode 0444)" in reason
    assert (root / "a.txt").read_text() == "a\n"
    assert not apply_actions(root, [DeleteFile(dialect="bridge", path="a.txt")]).ok
    assert (root / "a.txt").exists()


@pytest.mark.parametrize(
    ("path", "existing"),
    [
        ("SUB/y.txt", "sub"),
        ("Sub/deeper/y.txt", "sub"),
        ("A.TXT", "a.txt"),
        ("a.txt.", "a.txt"),
        ("a.txt ", "a.txt"),
        ("s\u200bub/y.txt", "sub"),
    ],
)
def test_a_new_name_that_is_an_existing_one_elsewhere_is_refused(
    root: Path, path: str, existing: str
) -> None:
    reason = _write(root, path)
    assert existing in reason
    assert sorted(p.name for p in root.iterdir()) == [".agentprompt", "a.txt", "config", "sub"]


def test_nfc_and_nfd_spellings_of_one_name_are_refused(root: Path) -> None:
    nfc = unicodedata.normalize("NFC", "café.txt")
    nfd = unicodedata.normalize("NFD", "café.txt")
    (root / nfc).write_text("c\n")
    assert "macOS or Windows" in _write(root, nfd)
    assert not (root / nfd).exists()
    both = [
        WriteFile(dialect="whole", path=f"new/{nfc}", content="1\n"),
        WriteFile(dialect="whole", path=f"new/{nfd}", content="2\n"),
    ]
    report = apply_actions(root, both)
    assert not report.ok
    assert "names the same file or folder" in report.failed[0].reason
    assert not (root / "new").exists()


@pytest.mark.parametrize(
    "path",
    [
        ".g\u200eit/config",
        ".g\u202eit/hooks/pre-commit",
        ".git::$INDEX_ALLOCATION/config",
        ".git:stream",
        ".GIT. /config",
        "git~1/config",
        "src/.gi\ufefft/x",
    ],
)
def test_git_look_alikes_are_refused(root: Path, path: str) -> None:
    with pytest.raises(UnsafePath, match=r"\.git/"):
        resolve_inside(root, path)


def test_portable_key_folds_what_file_systems_fold() -> None:
    assert portable_key("README.MD") == portable_key("readme.md")
    assert portable_key("a.txt. ") == portable_key("a.txt")
    assert portable_key(unicodedata.normalize("NFD", "Ünïcode")) == portable_key("ünïcode")
    assert portable_key("a\u200db") == portable_key("ab")
    assert portable_key("a.txt") != portable_key("b.txt")


def test_ordinary_new_files_still_apply(root: Path) -> None:
    report = apply_actions(
        root,
        [
            WriteFile(dialect="whole", path="sub/new.txt", content="n\n"),
            WriteFile(dialect="whole", path="other/dir/file.txt", content="f\n"),
            WriteFile(dialect="whole", path="a.txt", content="changed\n"),
        ],
    )
    assert report.ok, report.failed
    assert (root / "other" / "dir" / "file.txt").read_text() == "f\n"


def test_two_new_folders_of_one_reply_spelled_two_ways_are_refused(root: Path) -> None:
    report = apply_actions(
        root,
        [
            WriteFile(dialect="whole", path="Docs/a.txt", content="1\n"),
            WriteFile(dialect="whole", path="docs/b.txt", content="2\n"),
        ],
    )
    assert not report.ok
    assert "Docs/a.txt" in report.failed[0].reason
    assert not (root / "Docs").exists() and not (root / "docs").exists()
