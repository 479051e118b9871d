"""Reading many files at once gives what the repository engine's own reader gives."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentprompt.repo.discovery import UnreadableFile, read_text, read_texts


def _verdict(root: Path, path: str) -> tuple[str, str]:
    try:
        return ("text", read_text(root, path))
    except UnreadableFile as exc:
        return ("problem", exc.why)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_read_texts_matches_read_text_file_by_file(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src" / "deep").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core]\n")
    (root / "src" / "a.py").write_text("x = 1\n")
    (root / "src" / "deep" / "b.md").write_bytes("\ufeff# Héllo\r\n".encode())
    (root / "bin.dat").write_bytes(b"a\0b")
    (root / "latin.txt").write_bytes(b"caf\xe9\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    (root / "out.txt").symlink_to(tmp_path / "outside.txt")
    (root / "in.txt").symlink_to(root / "src" / "a.py")
    (root / "gitlink").symlink_to(root / ".git" / "config")
    (root / "linked").symlink_to(root / "src", target_is_directory=True)
    paths = [
        "src/a.py",
        "src/deep/b.md",
        "bin.dat",
        "latin.txt",
        "out.txt",
        "in.txt",
        "gitlink",
        "linked/a.py",
        "missing.txt",
    ]
    texts, problems = read_texts(root, paths)
    for path in paths:
        kind, value = _verdict(root, path)
        assert (texts if kind == "text" else problems)[path] == value, path
    assert set(texts) | set(problems) == set(paths)
    assert texts["src/deep/b.md"] == "# Héllo\r\n"
    assert "out.txt" in problems and "gitlink" in problems
