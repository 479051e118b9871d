"""Remembered sniff verdicts: reused while a file's stamp holds, read again once it moves."""

from __future__ import annotations

import os
from pathlib import Path

from agentprompt.repo.discovery import DiscoveryOptions, discover
from agentprompt.repo.discovery import _sniff_memo as sniff_memo
from agentprompt.repo.discovery._sniff_memo import (
    load_verdicts,
    save_verdicts,
    sniff_stamped,
    verdicts_path,
)
from agentprompt.repo.extraction import default_cache_path
from agentprompt.repo.map import MapOptions, build_map

WALK = DiscoveryOptions(follow_git=False)


def _stamp(path: Path) -> tuple[int, int, int, int]:
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)


def test_a_remembered_verdict_with_the_same_stamp_is_reused_without_reading(
    tmp_path: Path,
) -> None:
    text = tmp_path / "a.py"
    text.write_text("x = 1\n", encoding="utf-8")
    claimed = "binary content (a NUL byte in the first 8 KiB)"
    found = discover(tmp_path, WALK, known={"a.py": (*_stamp(text), claimed)})
    assert found.files == ()
    assert [(e.path, e.reason) for e in found.excluded] == [("a.py", claimed)]


def test_a_file_whose_stamp_moved_is_read_again(tmp_path: Path) -> None:
    text = tmp_path / "a.py"
    text.write_text("x = 1\n", encoding="utf-8")
    size, mtime, ctime, inode = _stamp(text)
    stale = (size, mtime - 1, ctime, inode, "binary content (a NUL byte in the first 8 KiB)")
    found = discover(tmp_path, WALK, known={"a.py": stale})
    assert [f.path for f in found.files] == ["a.py"]
    assert found.sniffed["a.py"] == (size, mtime, ctime, inode, None)


def test_a_malformed_remembered_entry_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n", encoding="utf-8")
    found = discover(tmp_path, WALK, known={"a.py": ("junk",)})  # type: ignore[dict-item]
    assert [f.path for f in found.files] == ["a.py"]


def test_unreadable_files_are_not_remembered(tmp_path: Path) -> None:
    verdicts, remembered = sniff_stamped(
        str(tmp_path), [("gone.py", (1, 2, 3, 4)), ("b.py", (1, 2, 3, 5))], {}
    )
    assert verdicts[0] is not None and verdicts[0].startswith(sniff_memo.UNREADABLE)
    assert "gone.py" not in remembered


def test_verdicts_round_trip_through_their_file(tmp_path: Path) -> None:
    where = tmp_path / "sniffed.json"
    save_verdicts(where, {"a.py": (1, 2, 3, 4, None), "b.bin": (5, 6, 7, 8, "binary")})
    assert load_verdicts(where) == {"a.py": [1, 2, 3, 4, None], "b.bin": [5, 6, 7, 8, "binary"]}


def test_a_damaged_or_foreign_verdicts_file_reads_as_empty(tmp_path: Path) -> None:
    where = tmp_path / "sniffed.json"
    for content in (b"\xff{not json", b"[1, 2]", b'{"version": 0, "files": {}}'):
        where.write_bytes(content)
        assert load_verdicts(where) == {}
    assert load_verdicts(tmp_path / "missing.json") == {}


def test_verdicts_are_not_written_where_there_is_no_cache_folder(tmp_path: Path) -> None:
    where = tmp_path / "absent" / "sniffed.json"
    save_verdicts(where, {"a.py": (1, 2, 3, 4, None)})
    assert not where.parent.exists()


def test_a_map_keeps_the_verdicts_next_to_its_cache_and_reuses_them(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    (tmp_path / "data.py").write_bytes(b"x = 1\0\n")
    first = build_map(tmp_path, MapOptions(tokens=200))
    where = verdicts_path(default_cache_path(tmp_path.resolve()))
    kept = load_verdicts(where)
    assert kept["a.py"][4] is None
    assert kept["data.py"][4] is not None and kept["data.py"][4].startswith("binary")
    second = build_map(tmp_path, MapOptions(tokens=200))
    assert second.text == first.text


def test_a_map_without_cache_writes_no_verdicts(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    build_map(tmp_path, MapOptions(tokens=200, use_cache=False))
    assert not (tmp_path / ".agentprompt").exists()


def test_unchanged_verdicts_are_not_written_again(tmp_path: Path) -> None:
    where = tmp_path / "sniffed.json"
    save_verdicts(where, {"a.py": (1, 2, 3, 4, None)})
    where.write_bytes(b"kept")
    save_verdicts(where, {"a.py": (1, 2, 3, 4, None)}, loaded={"a.py": (1, 2, 3, 4, None)})
    assert where.read_bytes() == b"kept"
    save_verdicts(where, {"a.py": (1, 2, 3, 5, None)}, loaded={"a.py": (1, 2, 3, 4, None)})
    assert load_verdicts(where) == {"a.py": [1, 2, 3, 5, None]}
