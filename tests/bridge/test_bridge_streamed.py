"""A whole repository's prompt made piece by piece: written or split into parts, it is the
joined text byte for byte, counted exactly, never holding every file's text at once, and a
file changed between being screened and being written is an error, not an unscreened text
in the prompt."""

from __future__ import annotations

import contextlib
import io
import re
import tracemalloc
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.bridge import _streamed as streamed
from agentprompt.bridge import _survey as survey
from agentprompt.bridge import pack_repository
from agentprompt.bridge._streamed import FileBody, PromptText
from agentprompt.bridge.pack import BridgePrompt, build_prompt
from agentprompt.bridge.split import (
    LimitTooSmall,
    SplitLimit,
    part_header,
    plan_chunks_split,
    plan_split,
    split_prompt,
    text_lines,
)
from agentprompt.bridge.state import BridgeState
from agentprompt.errors import UsageError
from agentprompt.tokens import get_tokenizer, shared_counter

_TEXTS = (
    "def f():\n    return 'héllo'\n",
    "# Title 日本語\n\n```python\nx = 1\n```\n",
    "no final line break 😀",
    "",
    "~~~~\nfenced ```` text\n~~~~\n",
    "plain ascii\n" * 40,
)


def _repository(root: Path, files: int, repeat: int = 1) -> Path:
    """``files`` files in a few folders, cycling through texts with non-ASCII characters
    (two- and four-byte ones), fences, an empty text and one without a final line break."""
    for number in range(files):
        folder = root / f"pkg{number % 7}"
        folder.mkdir(parents=True, exist_ok=True)
        text = _TEXTS[number % len(_TEXTS)] * repeat
        (folder / f"m{number:04d}.{('py', 'md', 'txt')[number % 3]}").write_text(
            text, encoding="utf-8"
        )
    return root


def _written(prompt: BridgePrompt) -> str:
    out = io.StringIO()
    prompt.write(out)
    return out.getvalue()


def test_the_written_prompt_is_the_joined_text_the_composer_path_renders(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo", 120)
    cache = tmp_path / "cache" / "symbols.db"
    prompt = pack_repository(root, "Review it", cache_path=cache)
    assert any(isinstance(p, FileBody) for p in prompt.body.pieces)
    written = _written(prompt)
    assert written == prompt.text
    assert prompt.tokens == get_tokenizer("o200k_base").count(written)
    # The path through the core composer (a report asked for) renders the same text.
    state = BridgeState(task="Review it", mode="edit", files=tuple(p for p, _ in prompt.sends))
    reported = build_prompt(
        root, state, split=False, report=True, secret_cache=tmp_path / "other.db"
    )
    assert reported.text == written and reported.tokens == prompt.tokens
    # Again, with every fact, verdict and count remembered: no file is read before writing.
    again = pack_repository(root, "Review it", cache_path=cache)
    assert _written(again) == written and again.tokens == prompt.tokens


def test_a_file_changed_after_it_was_screened_is_an_error(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo", 12)
    prompt = pack_repository(root, "Review it", cache_path=tmp_path / "cache" / "symbols.db")
    (root / "pkg0" / "m0000.py").write_text("password = 'hunter2hunter2hunter2'\n")
    with pytest.raises(UsageError, match=r"pkg0/m0000\.py changed"):
        _written(prompt)


def test_making_and_writing_a_prompt_holds_a_batch_of_texts_not_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = 64_000
    monkeypatch.setattr(streamed, "BATCH_BYTES", batch)
    monkeypatch.setattr(survey, "BATCH_BYTES", batch)
    root = _repository(tmp_path / "repo", 140, repeat=160)
    cache = tmp_path / "cache" / "symbols.db"
    pack_repository(root, "Review it", cache_path=cache)  # imports and caches, untraced
    for fresh in (True, False):
        if fresh:
            for db in (tmp_path / "cache").glob("*.db"):
                db.unlink()
        tracemalloc.start()
        try:
            prompt = pack_repository(root, "Review it", cache_path=cache)
            size = prompt.body.chars
            with (tmp_path / "out.md").open("w", encoding="utf-8", newline="") as out:
                prompt.write(out)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        written = (tmp_path / "out.md").stat().st_size
        assert written >= size > 2_000_000
        # Every text held at once (or the prompt joined) would take the prompt's size.
        assert peak < written / 2, (fresh, peak, written)


# Split sending of a prompt made piece by piece: the parts, printed one at a time or one
# asked for, are byte for byte the parts of the joined text split as before the split was
# planned from the lines' facts (the reference below is that code, kept as it was).


def _kinds_before(lines: Sequence[str]) -> list[str]:
    kinds: list[str] = []
    fence = ""
    for line in lines:
        found = re.match(r"^[ \t]*(`{3,}|~{3,})", line)
        if fence:
            closing = found and found.group(1).startswith(fence) and not line[found.end() :].strip()
            fence = "" if closing else fence
            kinds.append("close" if closing else "")
        elif found:
            fence = found.group(1)
            kinds.append("open")
        else:
            kinds.append("head" if line.startswith("#") else "")
    return kinds


def _rank_before(lines: Sequence[str], kinds: Sequence[str], i: int) -> int:
    if kinds[i] == "head":
        j = i - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        return 0 if j >= 0 and kinds[j] == "head" else 2
    return 1 if not lines[i - 1].strip() or kinds[i - 1] == "close" else 0


def _pieces_before(lines: Sequence[str], sizes: Sequence[int], room: int) -> list[str]:
    pieces: list[str] = []
    kinds = _kinds_before(lines)
    start = 0
    while start < len(lines):
        end = start
        size = 0
        while end < len(lines) and size + sizes[end] <= room:
            size += sizes[end]
            end += 1
        if end == start:
            raise LimitTooSmall(room, "", sizes[start])
        if end < len(lines):
            half = start + max(1, (end - start) // 2)
            end = max(range(half, end + 1), key=lambda i: (_rank_before(lines, kinds, i), i))
        pieces.append("".join(lines[start:end]))
        start = end
    return pieces


def _split_before(text: str, limit: SplitLimit, lang: str) -> tuple[str, ...]:
    """The joined text split as split sending did before it planned from line facts."""
    if limit.measure(text) <= limit.size:
        return (text,)
    lines = text.splitlines(keepends=True)
    sizes = [limit.measure(line) for line in lines]
    count = 2
    slack = 0
    for _attempt in range(64):
        widest = max(limit.measure(part_header(n, count, lang)) for n in (1, count))
        room = limit.size - widest - slack
        if room < max(sizes):
            raise LimitTooSmall(limit.size, limit.unit, widest + slack + max(sizes))
        pieces = _pieces_before(lines, sizes, room)
        total = len(pieces)
        parts = tuple(part_header(n, total, lang) + p for n, p in enumerate(pieces, 1))
        over = max(limit.measure(p) for p in parts) - limit.size
        if over <= 0:
            return parts
        if total > count:
            count = total
        else:
            slack += over
    raise LimitTooSmall(limit.size, limit.unit, limit.size + 1)


def _expected(text: str, limit: SplitLimit, lang: str) -> tuple[str, ...] | int:
    """The parts as before, or the least limit the refusal named."""
    try:
        return _split_before(text, limit, lang)
    except LimitTooSmall as refused:
        return refused.needed


def _streamed(body: PromptText, limit: SplitLimit, lang: str) -> tuple[str, ...] | int:
    """The parts of ``body`` planned without joining it and made one at a time; each part
    made alone (as ``--part K`` makes it) checked to be the same."""
    try:
        plan = plan_chunks_split(body.chunks(), body.chars, limit, lang)
    except LimitTooSmall as refused:
        return refused.needed
    parts = tuple(plan.assemble(body.chunks()))
    for number, part in enumerate(parts):
        start, end = plan.bounds[number : number + 2]
        assert plan.headers[number] + "".join(body.span(start, end)) == part
    return parts


_LARGE = "".join(f"line {i} 😀 é 日本\n" for i in range(90)) + "# not a heading\n```\nx\n```\n"
"""A file larger than every split limit below, with a fence and a ``#`` line inside."""


def _split_repository(root: Path) -> Path:
    _repository(root, 14)
    (root / "big.md").write_text(_LARGE, encoding="utf-8")
    (root / "tail.txt").write_text("ends without a line break ~~~", encoding="utf-8")
    (root / "spaced.txt").write_text("a blank line ends it\n\n", encoding="utf-8")
    return root


def _spans(body: PromptText) -> list[tuple[int, int, bool]]:
    """Where each piece of ``body`` starts and ends in it, and whether it is a file's text."""
    spans = []
    position = 0
    for piece in body.pieces:
        size = piece.chars if isinstance(piece, FileBody) else len(piece)
        spans.append((position, position + size, isinstance(piece, FileBody)))
        position += size
    return spans


def test_a_split_of_the_pieces_is_the_split_of_the_joined_text_at_every_limit(
    tmp_path: Path,
) -> None:
    root = _split_repository(tmp_path / "repo")
    prompt = pack_repository(root, "Review it", cache_path=tmp_path / "cache" / "symbols.db")
    body = prompt.body
    text = _written(prompt)
    assert any(isinstance(p, FileBody) and p.chars == 0 for p in body.pieces)
    spans = _spans(body)
    cuts: set[int] = set()
    smallest = len(part_header(1, 99, "en")) + max(len(x) for x in text.splitlines(True))
    limits = [*range(smallest - 3, smallest + 700), *range(smallest + 700, len(text) + 2, 97)]
    for size in limits:
        for lang in ("en", "ja") if size % 5 == 0 else ("en",):
            limit = SplitLimit(size=size)
            expected = _expected(text, limit, lang)
            assert _streamed(body, limit, lang) == expected, (size, lang)
            if isinstance(expected, tuple) and len(expected) > 1:
                cuts.update(plan_split(text, limit, lang).bounds[1:-1])
    # The limits cut at every kind of place: inside the frame's text, inside a file's text
    # (the large file's too), and where a file's text ends and the frame's goes on.
    assert any(a <= cut < b for a, b, file in spans if not file for cut in cuts)
    assert any(a < cut < b for a, b, file in spans if file for cut in cuts)
    assert {b for a, b, file in spans if file and a < b} & cuts
    large = text.index(_LARGE)
    assert any(large < cut < large + len(_LARGE) for cut in cuts)


def test_pack_prints_and_copies_the_parts_of_the_joined_text(tmp_path: Path) -> None:
    root = _split_repository(tmp_path / "repo")
    files = tuple(sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()))
    for size, lang in ((700, "en"), (1_234, "ja"), (10**9, "en")):
        state = BridgeState(task="Review it", mode="edit", lang=lang, files=files, split_chars=size)
        prompt = build_prompt(root, state, secret_cache=tmp_path / "cache.db")
        assert any(isinstance(p, FileBody) for p in prompt.body.pieces)
        expected = _split_before(_written(prompt), SplitLimit(size=size), lang)
        assert prompt.part_count == len(expected)
        assert tuple(prompt.each_part()) == expected
        assert tuple(prompt.part(n) for n in range(1, len(expected) + 1)) == expected
        assert prompt.parts == expected
    assert len(expected) == 1 and prompt.split is not None


_CHUNK = st.text(
    alphabet=st.sampled_from(
        ["a", " ", "#", "`", "~", "\n", "\r", "é", "日", "😀", "\x85", "\u2028", "\f", "\v", "\x1e"]
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(
    chunks=st.lists(
        st.one_of(_CHUNK, st.sampled_from(["```py\n", "```\n", "## a\n", "\r\n", "\n\n"])),
        max_size=40,
    ),
    size=st.integers(min_value=60, max_value=400),
    lang=st.sampled_from(["en", "ja"]),
)
def test_lines_and_parts_over_chunks_are_those_of_the_joined_text(
    chunks: list[str], size: int, lang: str
) -> None:
    text = "".join(chunks)
    assert list(text_lines(chunks)) == text.splitlines(keepends=True)
    body = PromptText(tuple(chunks))
    limit = SplitLimit(size=size)
    assert _streamed(body, limit, lang) == _expected(text, limit, lang)
    # The joined text's own plan (which a token limit uses) cuts the same way.
    with contextlib.suppress(LimitTooSmall):
        assert split_prompt(text, limit, lang) == _split_before(text, limit, lang)


def test_a_token_limit_splits_as_before() -> None:
    counter = shared_counter()
    text = "".join(f"def f_{i}(v):\n    return v * {i}  # é 😀\n\n" for i in range(120))
    for size in (150, 237, 400, 999):
        limit = SplitLimit(size=size, unit="tokens", measure=counter.count)
        assert split_prompt(text, limit, "en") == _split_before(text, limit, "en")


def test_printing_the_parts_holds_one_part_and_a_batch_of_texts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    batch = 64_000
    monkeypatch.setattr(streamed, "BATCH_BYTES", batch)
    monkeypatch.setattr(survey, "BATCH_BYTES", batch)
    root = _repository(tmp_path / "repo", 140, repeat=160)
    files = tuple(sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()))
    state = BridgeState(task="Review it", mode="edit", files=files, split_chars=30_000)
    cache = tmp_path / "cache.db"
    build_prompt(root, state, secret_cache=cache)  # imports and caches, untraced
    tracemalloc.start()
    try:
        prompt = build_prompt(root, state, secret_cache=cache)
        size = prompt.body.chars
        with (tmp_path / "out.md").open("w", encoding="utf-8", newline="") as out:
            for part in prompt.each_part():
                out.write(part)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    written = (tmp_path / "out.md").stat().st_size
    lines = len((tmp_path / "out.md").read_text(encoding="utf-8").splitlines())
    assert prompt.part_count > 50 and written >= size > 2_000_000
    # The split's plan keeps 9 bytes a line (where it starts, how good a cut there is; these
    # lines are short); the prompt joined, or every part held, would take four bytes a
    # character (an emoji in most parts), every text held at once the prompt's size.
    assert peak < written / 2 + 9 * lines < 2 * written, (peak, written, lines)
