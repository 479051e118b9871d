"""The clipboard edge: copied when there is a clipboard, a file when there is none."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt import shares
from agentprompt.bridge._screening import screen_prompt_texts
from agentprompt.bridge.clipboard import copy_prompt


def test_copies_with_the_given_clipboard(tmp_path: Path) -> None:
    copied: list[str] = []
    result = copy_prompt("hello", tmp_path, copy=copied.append)
    assert result.copied
    assert copied == ["hello"]
    assert not (tmp_path / ".agentprompt").exists()


def test_real_pyperclip_without_a_clipboard_falls_back_to_a_git_ignored_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PATH", "")
    result = copy_prompt("プロンプト\n", tmp_path)
    assert not result.copied
    assert "copy/paste mechanism" in result.reason
    assert result.fallback == tmp_path / ".agentprompt" / "bridge" / "prompt.md"
    assert result.fallback.read_text(encoding="utf-8") == "プロンプト\n"
    assert (tmp_path / ".agentprompt" / "bridge" / ".gitignore").read_text() == "*\n"


def test_screening_in_workers_finds_what_one_process_finds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("agentprompt.bridge._screening.PARALLEL_SCREEN_THRESHOLD", 2)
    items = [(f"m{i}.py", f"x = {i}\n") for i in range(4)]
    items.append(("keys.py", 'AWS = "AKIAIOSFODNN7EXAMPLE"\n'))
    parallel = screen_prompt_texts(items, workers=2)
    single = screen_prompt_texts(items, workers=1)
    assert parallel == single
    assert parallel.withheld == ("keys.py",)
    assert shares._inherited == ()  # the workers' texts are not kept once they are done
