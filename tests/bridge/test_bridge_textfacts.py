"""Facts of file texts (digest, fence) remembered by stamp, and the keyed spans that let a
warm pack count its prompt without reading the files' text again."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from agentprompt.bridge._render import UserPart, fence_for, render_user, render_user_keyed
from agentprompt.bridge._secretcache import text_digest
from agentprompt.bridge._textfacts import TextFacts, text_facts
from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.state import BridgeState
from agentprompt.tokens import CountCache, get_tokenizer, is_piece_boundary

_STAMP = (10, 1_000_000_000, 1_000_000_000, 7)
"""A stamp from long ago (so never racily clean)."""


def _rows(where: Path) -> list[tuple[str, str, str, int]]:
    with sqlite3.connect(where) as db:
        return list(db.execute("SELECT path, stamp, digest, fence FROM texts"))


def test_facts_are_the_texts_own(tmp_path: Path) -> None:
    text = "x\n````\ny\n"
    facts = text_facts({"a.md": text}, {}, {}, tmp_path / "c.db")
    assert facts == {
        "a.md": TextFacts(
            digest=text_digest(text), fence=fence_for(text), chars=len(text), ends_line=True
        )
    }
    assert facts["a.md"].fence == "`````"


def test_a_steady_file_is_remembered_and_then_trusted_by_its_stamp(tmp_path: Path) -> None:
    where = tmp_path / "c.db"
    stamps = {"a.py": _STAMP}
    first = text_facts({"a.py": "one\n"}, stamps, stamps, where)
    assert len(_rows(where)) == 1
    # The same stamp again: the remembered facts are used, the text is not looked at.
    again = text_facts({"a.py": "not what was read before\n"}, stamps, stamps, where)
    assert again == first


def test_a_file_that_changed_while_read_is_worked_out_and_not_remembered(tmp_path: Path) -> None:
    where = tmp_path / "c.db"
    stamps = {"a.py": _STAMP}
    text_facts({"a.py": "one\n"}, stamps, stamps, where)
    moved = {"a.py": (11, *_STAMP[1:])}
    facts = text_facts({"a.py": "two!\n"}, stamps, moved, where)
    assert facts["a.py"].digest == text_digest("two!\n")
    assert [r[2] for r in _rows(where)] == [text_digest("one\n")]


def test_a_new_stamp_is_worked_out_and_replaces_the_row(tmp_path: Path) -> None:
    where = tmp_path / "c.db"
    text_facts({"a.py": "one\n"}, {"a.py": _STAMP}, {"a.py": _STAMP}, where)
    newer = {"a.py": (4, 2_000_000_000, 2_000_000_000, 7)}
    facts = text_facts({"a.py": "two\n"}, newer, newer, where)
    assert facts["a.py"].digest == text_digest("two\n")
    assert [r[2] for r in _rows(where)] == [text_digest("two\n")]


def test_a_racily_clean_file_is_not_remembered(tmp_path: Path) -> None:
    where = tmp_path / "c.db"
    now = time.time_ns()
    stamps = {"a.py": (4, now - 10**10, now, 7)}  # changed (ctime) just now
    text_facts({"a.py": "one\n"}, stamps, stamps, where)
    assert _rows(where) == []


def test_an_unusable_cache_works_everything_out(tmp_path: Path) -> None:
    where = tmp_path / "folder"
    where.mkdir()  # a folder where the database should be
    stamps = {"a.py": _STAMP}
    facts = text_facts({"a.py": "one\n"}, stamps, stamps, where)
    assert facts["a.py"].digest == text_digest("one\n")


def _part(contents: dict[str, str], *, digests: bool) -> UserPart:
    return UserPart(
        paths=tuple(contents),
        notes={},
        levels=dict.fromkeys(contents, "full"),
        contents=contents,
        summaries={},
        digests={p: text_digest(t) for p, t in contents.items()} if digests else {},
    )


def test_keyed_spans_cover_whole_blocks_on_piece_boundaries() -> None:
    contents = {"a.py": "x = 1\n", "b.md": "# Title\n```\ncode\n```", "c.txt": "end\n"}
    state = BridgeState(task="t", lang="en", mode="edit", files=tuple(contents), rounds=0)
    keyed = render_user_keyed(state, _part(contents, digests=True), lead="LEAD\n")
    assert keyed.text == render_user(state, _part(contents, digests=False), lead="LEAD\n")
    assert len(keyed.spans) == 3
    for (start, _end, _key), path in zip(keyed.spans, contents, strict=True):
        assert keyed.text.startswith(f"## {path}\n", start)
    for start, end, _key in keyed.spans[:-1]:
        assert is_piece_boundary(keyed.text, start) and is_piece_boundary(keyed.text, end)


def test_equal_keys_mean_equal_span_texts() -> None:
    state = BridgeState(task="t", lang="en", mode="edit", files=("a.py", "b.py"), rounds=0)
    texts: dict[str, str] = {}
    for first in ("x = 1\n", "x = 2\n", "x = 1"):
        for second in ("y\n", "y\n```\n"):
            part = _part({"a.py": first, "b.py": second}, digests=True)
            keyed = render_user_keyed(state, part)
            for start, end, key in keyed.spans:
                assert texts.setdefault(key, keyed.text[start:end]) == keyed.text[start:end]
    assert len(texts) > 4


class _Refusing:
    name = "o200k_base"
    exact = True

    def count(self, text: str) -> int:
        raise AssertionError("counted again")


def test_a_keyed_span_is_counted_once_and_then_remembered(tmp_path: Path) -> None:
    where = tmp_path / "c.db"
    text = "intro\n## a\nsome text, 12\n\n## b\nmore\n"
    start = text.index("## a")
    end = text.index("## b")
    base = get_tokenizer("o200k_base")
    counted = CountCache(base, store=where).count_keyed(text, [(start, end, "k1")])
    assert counted == base.count(text)
    assert CountCache(_Refusing(), store=where).count_keyed(text, [(start, end, "k1")]) == counted


def test_a_span_off_the_piece_boundaries_is_ignored(tmp_path: Path) -> None:
    text = "intro\n## a\nsome text\n\n## b\nmore\n"
    base = get_tokenizer("o200k_base")
    misplaced = [(text.index("## a") - 1, text.index("## b"), "k"), (2, 4, "j")]
    counter = CountCache(base, store=tmp_path / "c.db")
    assert counter.count_keyed(text, misplaced) == base.count(text)


def _age(root: Path) -> None:
    """Pretend the example's files were written long ago (their change time is now, so
    the racy-clean rule is lifted by moving the clock instead)."""
    for path in root.rglob("*"):
        if path.is_file():
            os.utime(path, ns=(1_000_000_000, 1_000_000_000))


def test_a_warm_pack_is_exact_and_sees_a_file_changed_under_an_old_stamp(
    example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = time.time_ns() + 60 * 10**9
    monkeypatch.setattr("agentprompt.bridge._textfacts.time.time_ns", lambda: later)
    _age(example)
    where = tmp_path / "cache.db"
    files = ("src/utils.ts", "src/index.ts", "scripts/report.py")
    state = BridgeState(task="t", lang="en", mode="edit", files=files, rounds=0)
    first = build_prompt(example, state, split=False, secret_cache=where)
    assert len(_rows(where)) == 3
    base = get_tokenizer("o200k_base")
    assert first.tokens == base.count(first.text)
    # Same size, same modification time, new content with a secret: the change time moved.
    target = example / "scripts" / "report.py"
    old = target.read_bytes()
    secret = b'key = "AKIAIOSFODNN7EXAMPLE"\n'
    target.write_bytes(secret + old[len(secret) :])
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    second = build_prompt(example, state, split=False, secret_cache=where)
    assert [f.path for f in second.withheld] == ["scripts/report.py"]
    assert second.tokens == base.count(second.text)
    assert "AKIAIOSFODNN7EXAMPLE" not in second.text
