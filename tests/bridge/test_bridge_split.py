"""Split sending: seed 003's headers, cuts between lines, and the join property."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.bridge.split import (
    LimitTooSmall,
    SplitLimit,
    join_parts,
    part_header,
    prompt_sections,
    split_prompt,
)
from agentprompt.cli._output import flag_name
from agentprompt.tokens import shared_counter


def test_part_headers_are_the_fixed_text_byte_for_byte() -> None:
    assert part_header(1, 3, "ja") == (
        "---\n**📦 分割送信: パート 1/3**\n"
        "（続きがあります。すべて受け取ってから処理してください）\n---\n"
    )
    assert part_header(3, 3, "ja") == (
        "---\n**📦 分割送信: パート 3/3**\n（これで最後です。処理を開始してください）\n---\n"
    )


def test_headers_snapshot_in_both_languages(snapshot: Callable[[str, str], None]) -> None:
    text = "".join(part_header(n, 2, lang) for lang in ("ja", "en") for n in (1, 2))
    snapshot("bridge/part_headers.txt", text)


def test_a_prompt_that_fits_is_one_part_without_header() -> None:
    assert split_prompt("short\n", SplitLimit(size=100), "en") == ("short\n",)


def test_every_part_is_within_the_limit_with_its_header() -> None:
    text = "".join(f"line {i} " + "x" * (i % 37) + "\n" for i in range(400))
    parts = split_prompt(text, SplitLimit(size=500), "ja")
    assert len(parts) > 1
    assert all(len(p) <= 500 for p in parts)
    assert parts[0].startswith(part_header(1, len(parts), "ja"))
    assert parts[-1].startswith(part_header(len(parts), len(parts), "ja"))


def test_cuts_prefer_the_start_of_a_section() -> None:
    section = "## file\n" + "".join(f"code line {i}\n" for i in range(20))
    text = section * 6
    parts = split_prompt(text, SplitLimit(size=len(section) * 2 + 150), "en")
    for n, part in enumerate(parts, 1):
        body = part[len(part_header(n, len(parts), "en")) :]
        assert body.startswith("## file\n")


def test_a_line_longer_than_the_limit_is_refused() -> None:
    with pytest.raises(LimitTooSmall, match="raise split_chars") as caught:
        split_prompt("a\n" + "b" * 300 + "\n" + "c" * 100, SplitLimit(size=250), "en")
    # The command line names its option.
    assert caught.value.worded(flag_name).endswith("; raise --split-chars to at least that")


def test_token_limits_are_exact() -> None:
    counter = shared_counter()
    text = "".join(f"def function_{i}(value): return value * {i}\n" for i in range(300))
    limit = SplitLimit(size=400, unit="tokens", measure=counter.count)
    parts = split_prompt(text, limit, "en")
    assert len(parts) > 1
    assert all(counter.count(p) <= 400 for p in parts)
    assert join_parts(parts, "en") == text


_lines = st.lists(
    st.text(alphabet=st.sampled_from("ab #`\n日本"), min_size=0, max_size=40), max_size=60
)


@settings(max_examples=60, deadline=None)
@given(
    pieces=_lines,
    size=st.integers(min_value=160, max_value=900),
    lang=st.sampled_from(["en", "ja"]),
)
def test_removing_headers_and_joining_gives_the_prompt_back(
    pieces: list[str], size: int, lang: str
) -> None:
    text = "\n".join(pieces)
    try:
        parts = split_prompt(text, SplitLimit(size=size), lang)
    except LimitTooSmall:
        assert max(len(line) for line in text.splitlines(keepends=True)) + 80 > size
        return
    assert all(len(p) <= size for p in parts)
    assert join_parts(parts, lang) == text
    if len(parts) > 1:
        for n, part in enumerate(parts, 1):
            body = part[len(part_header(n, len(parts), lang)) :]
            assert body == "" or n == len(parts) or body.endswith("\n")


def test_a_comment_inside_a_fence_is_not_a_section_to_cut_at() -> None:
    code = "".join(f"# step {i}\nvalue = {i}\n" for i in range(12))
    section = f"## lib/mod.py\n```python\n{code}```\n\n"
    text = section * 6
    parts = split_prompt(text, SplitLimit(size=len(section) * 2 + 200), "en")
    assert len(parts) > 1
    for n, part in enumerate(parts, 1):
        assert part[len(part_header(n, len(parts), "en")) :].startswith("## lib/mod.py\n")


def test_a_heading_is_not_left_alone_at_the_end_of_a_part() -> None:
    block = "### a.py\n```\n" + "".join(f"def f{i}() -> int\n" for i in range(20)) + "```\n\n"
    text = "intro\n" * 100 + "\n## File summaries\n\n" + block * 8
    parts = split_prompt(text, SplitLimit(size=900), "en")
    assert len(parts) > 1
    for n, part in enumerate(parts, 1):
        body = part[len(part_header(n, len(parts), "en")) :]
        assert not body.rstrip("\n").endswith("## File summaries")


def test_the_limit_too_small_error_names_a_limit_that_works() -> None:
    text = "a\n" + "b" * 300 + "\n" + "c\n" * 200
    with pytest.raises(LimitTooSmall) as raised:
        split_prompt(text, SplitLimit(size=10), "en")
    needed = raised.value.needed
    assert f"need {needed} chars" in str(raised.value)
    assert needed == len(part_header(1, 2, "en")) + 301
    parts = split_prompt(text, SplitLimit(size=needed), "en")
    assert join_parts(parts, "en") == text


def test_a_part_does_not_end_with_an_opening_fence() -> None:
    # 20 short lines, a heading and its fence, then a long fence with no blank line: the
    # first part's best cut in its second half must not be right after the opening fence.
    text = "x\n" * 20 + "## a\n```\n" + "y\n" * 100 + "```\n"
    widest = max(len(part_header(n, 3, "en")) for n in (1, 3))
    parts = split_prompt(text, SplitLimit(size=widest + 89), "en")
    assert len(parts) > 1
    assert not any(p.endswith("```\n") for p in parts[:-1])
    assert join_parts(parts, "en") == text


def test_prompt_sections_are_the_headings_outside_fences() -> None:
    text = "📖 mode\n\n## Task\nFix it.\n\n## src/a.py\n```python\n# a comment\nx = 1\n```\n"
    assert prompt_sections(text) == (
        ("", "📖 mode\n\n"),
        ("Task", "## Task\nFix it.\n\n"),
        ("src/a.py", "## src/a.py\n```python\n# a comment\nx = 1\n```\n"),
    )


@given(st.lists(st.sampled_from(["# H\n", "## F\n", "```\n", "x\n", "\n", "y"]), max_size=30))
def test_prompt_sections_join_back_to_the_prompt(pieces: list[str]) -> None:
    text = "".join(pieces)
    sections = prompt_sections(text)
    assert "".join(part for _, part in sections) == text
    assert all(part for _, part in sections)
