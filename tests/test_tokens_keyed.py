"""Token counts summed over parts cut at pre-tokenizer piece boundaries are exact."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt import shares, tokens
from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.state import BridgeState
from agentprompt.tokens import (
    CountCache,
    get_tokenizer,
    is_piece_boundary,
    shared_counter,
    split_for_count,
)

# Characters that stress the pre-tokenizer: spaces and line breaks of every kind, "/",
# digits, contractions, punctuation runs, letters of several scripts, marks and emoji.
_SINGLE = " \t\n\r\x0b\x0c\u00a0\u2028\u3000/\\'sStTdDmM0123456789#`~!?.,;:-_=+*()[]{}<>\"|"
_TRICKY = st.sampled_from([*_SINGLE, "é", "ß", "日本", "Ω", "\u0301", "🙂", "'re", "'LL"])
_PART = st.lists(st.one_of(_TRICKY, st.text(max_size=4)), max_size=30).map("".join)
_SAFE_FIRST = st.sampled_from([chr(c) for c in range(0x21, 0x7F) if chr(c) != "/"])


@pytest.mark.parametrize("encoding", ["o200k_base", "cl100k_base"])
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_counts_add_up_across_piece_boundaries(encoding: str, data: st.DataObject) -> None:
    counter = get_tokenizer(encoding)
    parts = data.draw(st.lists(st.tuples(_SAFE_FIRST, _PART), min_size=1, max_size=6))
    texts = [first + body + "\n" for first, body in parts]
    joined = "".join(texts)
    at = 0
    for text in texts[:-1]:
        at += len(text)
        assert is_piece_boundary(joined, at)
    assert sum(counter.count(t) for t in texts) == counter.count(joined)


@settings(max_examples=200, deadline=None)
@given(text=st.lists(st.one_of(_TRICKY, st.just("\n## "), st.just("\n# x")), max_size=60))
def test_split_for_count_gives_the_text_back_and_the_same_count(text: list[str]) -> None:
    joined = "".join(text)
    parts = split_for_count(joined)
    assert "".join(parts) == joined
    counter = get_tokenizer("o200k_base")
    assert sum(counter.count(p) for p in parts) == counter.count(joined)


def test_cuts_elsewhere_would_miscount() -> None:
    counter = get_tokenizer("o200k_base")
    # The boundary rule is needed: after "\n", another "\n", a space or "/" joins the piece.
    for left, right in (("a\n", "\nb"), ("a\n", " b"), ("x.\n", "/y")):
        assert not is_piece_boundary(left + right, len(left))
    assert counter.count("x\n\n") != counter.count("x\n") + counter.count("\n")


def test_keyed_counts_are_exact_and_remembered(example: Path, tmp_path: Path) -> None:
    where = tmp_path / "cache.db"
    state = BridgeState(task="Review.", lang="en", mode="edit", files=("scripts/report.py",))
    prompt = build_prompt(example, state, split=False, secret_cache=where)
    base = get_tokenizer("o200k_base")
    assert prompt.tokens == base.count(prompt.text)
    assert len(split_for_count(prompt.text)) > 1
    with sqlite3.connect(where) as db:
        remembered = db.execute("SELECT COUNT(*) FROM counts").fetchone()[0]
    assert remembered == len(set(split_for_count(prompt.text)))

    class Refusing:
        name = base.name
        exact = True

        def count(self, text: str) -> int:
            raise AssertionError("counted again")

    assert CountCache(Refusing(), store=where).count_keyed(prompt.text) == prompt.tokens


def test_many_new_parts_are_counted_in_workers(tmp_path: Path) -> None:
    text = "".join(f"## f{i}\n" + "word, 12 / x\n" * 40_000 for i in range(8))
    counted = CountCache(get_tokenizer("o200k_base"), store=tmp_path / "c.db")
    exact = get_tokenizer("o200k_base").count(text)
    assert counted.count_keyed(text, workers=2) == exact


def test_counts_by_key_are_remembered_in_memory_and_still_given_to_a_new_store(
    tmp_path: Path,
) -> None:
    first = tmp_path / "a.db"
    cache = CountCache(get_tokenizer("o200k_base"), store=first)
    items = [(f"k{i}", f"text number {i}\n") for i in range(5)]
    assert cache.count_each_keyed(items) == [
        get_tokenizer("o200k_base").count(t) for _k, t in items
    ]
    misses = cache.misses
    cache.count_each_keyed(items)
    assert cache.misses == misses  # from memory
    second = tmp_path / "b.db"
    CountCache(get_tokenizer("o200k_base"), store=second).count_each_keyed(items)
    with sqlite3.connect(second) as db:
        assert db.execute("SELECT COUNT(*) FROM counts").fetchone()[0] == 5


def test_counts_in_workers_add_up_across_their_shares(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokens, "_CHUNK_CHARS", 300_000)  # several shares of the parts
    text = "".join(f"## f{i}\n" + "word, 12 / x\n" * 40_000 for i in range(8))
    exact = get_tokenizer("o200k_base").count(text)
    counted = CountCache(get_tokenizer("o200k_base"), store=tmp_path / "c.db")
    assert counted.count_keyed(text, workers=2) == exact
    assert shares._inherited == ()  # not kept once the workers are done


def test_a_shared_counter_is_one_per_store_and_keeps_its_counts_there(tmp_path: Path) -> None:
    first, second = tmp_path / "a.db", tmp_path / "b.db"
    counter = shared_counter(store=first)
    assert counter is shared_counter(store=first)
    assert counter.store == first
    assert shared_counter(store=second) is not counter
    assert shared_counter().store is None
    counter.count_each_keyed([("k", "some text\n")])
    with sqlite3.connect(first) as db:
        assert db.execute("SELECT COUNT(*) FROM counts").fetchone()[0] == 1
    assert not second.exists()
