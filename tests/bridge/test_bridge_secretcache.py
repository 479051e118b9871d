"""Remembered secret scans: unchanged texts are not scanned again."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentprompt.bridge._secretcache import cached_scan
from agentprompt.repo.secrets import SecretFinding


class _Counting:
    """A scanner that reports one finding in every text holding ``KEY`` and counts calls."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, items: Sequence[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
        self.seen.extend(p for p, _ in items)
        return {
            p: (SecretFinding(path=p, line=1, kind="Fake"),) if "KEY" in t else () for p, t in items
        }


def test_a_text_scanned_once_is_remembered(tmp_path: Path) -> None:
    scanner = _Counting()
    where = tmp_path / "cache" / "cache.db"
    items = [("a.py", "KEY = 1\n"), ("b.py", "x = 1\n")]
    first = cached_scan(items, scanner, where)
    second = cached_scan(items, scanner, where)
    assert first == second
    assert first["a.py"] == (SecretFinding(path="a.py", line=1, kind="Fake"),)
    assert scanner.seen == ["a.py", "b.py"]
    assert (where.parent / ".gitignore").read_text() == "*\n"


def test_a_changed_text_is_scanned_again(tmp_path: Path) -> None:
    scanner = _Counting()
    where = tmp_path / "cache.db"
    cached_scan([("a.py", "x = 1\n")], scanner, where)
    assert cached_scan([("a.py", "KEY = 2\n")], scanner, where)["a.py"]
    assert scanner.seen == ["a.py", "a.py"]


def test_an_unusable_cache_scans_everything(tmp_path: Path) -> None:
    scanner = _Counting()
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    found = cached_scan([("a.py", "KEY\n")], scanner, blocker / "cache.db")
    assert found["a.py"]
    assert scanner.seen == ["a.py"]
