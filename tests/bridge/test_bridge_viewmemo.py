"""The remembered view: an unchanged repository's notes and summaries come back without
decoding any symbols, and any change to a file's content computes them again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentprompt.bridge.view import view_repository
from agentprompt.repo.extraction import Extraction, SymbolCache, default_cache_path


def _refuse_symbols(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Extraction, paths: object) -> object:
        raise AssertionError("symbols decoded again")

    monkeypatch.setattr(Extraction, "symbols", refuse)


def _record_symbols(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths whose symbols are decoded from the cache from now on, in order."""
    asked: list[str] = []
    decode = Extraction.symbols

    def recording(self: Extraction, paths: object) -> object:
        wanted = list(paths)  # type: ignore[call-overload]
        asked.extend(wanted)
        return decode(self, wanted)

    monkeypatch.setattr(Extraction, "symbols", recording)
    return asked


def test_an_unchanged_repository_reuses_its_notes_and_summaries(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = view_repository(example)
    assert first.notes and first.summaries
    _refuse_symbols(monkeypatch)
    again = view_repository(example)
    assert again.notes == first.notes
    assert again.summaries == first.summaries


def test_a_changed_file_is_summarised_again(example: Path) -> None:
    first = view_repository(example)
    utils = example / "src" / "utils.ts"
    before = utils.stat()
    utils.write_text(
        utils.read_text(encoding="utf-8") + "\nexport function brandNew(x: number): number {\n"
        "  return x;\n}\n",
        encoding="utf-8",
    )
    os.utime(utils, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    again = view_repository(example)
    assert "brandNew" in again.summaries["src/utils.ts"]
    assert "brandNew" not in first.summaries["src/utils.ts"]


def test_a_damaged_remembered_view_is_computed_again(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = view_repository(example)
    cache = SymbolCache(default_cache_path(example))
    try:
        keys = [k for (k,) in cache._db.execute("SELECT key FROM blobs") if "bridge-view" in k]
        assert len(keys) == 1
        cache.remember_blob(keys[0], b"{not json")
    finally:
        cache.close()
    again = view_repository(example)
    assert again.summaries == first.summaries
    assert again.notes == first.notes


def test_only_the_changed_file_is_summarised_again(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = view_repository(example)
    asked = _record_symbols(monkeypatch)
    index = example / "src" / "index.ts"
    before = index.stat()
    index.write_text(index.read_text(encoding="utf-8") + "\n// touched\n", encoding="utf-8")
    os.utime(index, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    again = view_repository(example)
    # The changed file, parsed again, has its note and summary from the parse; the
    # unchanged ones come from the remembered view: no symbols are decoded.
    assert asked == []
    assert again.summaries == first.summaries
    assert again.notes == first.notes
    gone = example / "scripts" / "report.py"
    gone.unlink()
    asked.clear()
    after = view_repository(example)
    assert asked == []
    assert "scripts/report.py" not in after.summaries
    assert after.summaries["src/utils.ts"] == first.summaries["src/utils.ts"]


def test_a_file_a_manifest_declares_is_a_main_entry_in_every_view(tmp_path: Path) -> None:
    root = tmp_path / "declared"
    (root / "lib").mkdir(parents=True)
    (root / "lib" / "app.js").write_text("export function start() {}\n")
    (root / "package.json").write_text('{"name": "x"}\n')
    assert view_repository(root).notes["lib/app.js"] == "exports: start"
    # The manifest changes, the file does not: its remembered note must not be reused as is.
    (root / "package.json").write_text('{"name": "x", "main": "lib/app.js"}\n')
    assert view_repository(root).notes["lib/app.js"] == "main entry"
    assert view_repository(root).notes["lib/app.js"] == "main entry"


def test_a_first_view_takes_its_notes_and_summaries_from_the_parse(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = _record_symbols(monkeypatch)
    first = view_repository(example)
    code = set(first.summaries)
    assert code and not code & set(asked)  # no code file's symbols were decoded
    cache = SymbolCache(default_cache_path(example))
    try:
        cache._db.execute("DELETE FROM blobs")
        cache._db.commit()
    finally:
        cache.close()
    asked.clear()
    again = view_repository(example)  # nothing parsed: every file decoded from the cache
    assert code <= set(asked)
    assert again.notes == first.notes
    assert again.summaries == first.summaries
