"""Files parsed once per change, by their stamp."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentprompt.prompts.stamps import StampedCache


def test_an_unchanged_file_is_parsed_once(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("one")
    parsed: list[bytes] = []
    cache: StampedCache[str, str] = StampedCache()

    def parse(raw: bytes) -> str:
        parsed.append(raw)
        return raw.decode()

    assert cache.load("a", path, parse) == cache.load("a", path, parse) == "one"
    assert parsed == [b"one"]


def test_a_changed_file_is_parsed_again(tmp_path: Path) -> None:
    path = tmp_path / "a.md"
    path.write_text("one")
    cache: StampedCache[str, str] = StampedCache()
    cache.load("a", path, bytes.decode)
    path.write_text("two!")
    os.utime(path, ns=(1, 1))
    assert cache.load("a", path, bytes.decode) == "two!"


def test_a_missing_file_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        StampedCache[str, str]().load("a", tmp_path / "gone.md", bytes.decode)
