"""The streaming parser: same result as the whole-text parse for any chunking, blocks out
as soon as they are complete, linear work, and only the engine's own errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.edits import EditError, StreamParser, parse_reply
from agentprompt.edits.dialects import _udiff as udiff
from agentprompt.edits.dialects import _whole as whole

FRAGMENTS = [
    "Here is the change:",
    "",
    "   ",
    "```",
    "```python",
    "````",
    "```diff",
    "~~~",
    "src/a.py",
    "**src/b.py**",
    "File: c.txt",
    "<<<FILE: a.ts>>>",
    "<<<FILE: [NEW] n.ts>>>",
    "<<<DIFF: a.ts>>>",
    "<<<DELETE: d.ts>>>",
    "<<<REQUEST_FILE: r.ts>>>",
    "<<<REQUEST_FILES>>>",
    "<<<SWITCH_MODE: edit>>>",
    "対象ファイル:",
    "理由: 必要です",
    "<<<CONTINUE>>>",
    "残り: 2個のファイル変更があります",
    "- x.ts",
    "<<<END>>>",
    "<<<<<<< SEARCH",
    "=======",
    ">>>>>>> REPLACE",
    "««« EDIT",
    "═══════ REPL",
    "»»» EDIT END",
    "*** Begin Patch",
    "*** Add File: p.py",
    "*** Update File: u.py",
    "*** Move to: v.py",
    "*** Delete File: q.py",
    "*** End of File",
    "*** End Patch",
    "diff --git a/g.py b/g.py",
    "new file mode 100644",
    "rename from g.py",
    "rename to h.py",
    "Binary files a/i.png and b/i.png differ",
    "--- a/g.py",
    "--- /dev/null",
    "+++ b/g.py",
    "+++ /dev/null",
    "@@ -1,2 +1,3 @@",
    "@@ ... @@",
    "@@ def f():",
    "@@ -x @@",
    " context",
    "-removed",
    "+added",
    "\\ No newline at end of file",
    "x = 1",
    "1. src/a.py",
    "   ```python",
    "   ```diff",
    "   ```",
    "  - `docs/my notes.md`",
    "   <<<<<<< SEARCH",
    "   --- a/g.py",
    "  *** Begin Patch",
    "```bash",
    "--- old comment",
]

replies = st.builds(
    lambda parts, sep, tail: sep.join(parts) + tail,
    st.lists(st.sampled_from(FRAGMENTS), max_size=40),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["", "\n", "\r\n", "partial", "\r"]),
)


def stream(text: str, cuts: list[int]) -> tuple[list[Any], Any]:
    parser = StreamParser()
    yielded: list[Any] = []
    last = 0
    for cut in sorted({min(c, len(text)) for c in cuts}):
        yielded.extend(parser.feed(text[last:cut]))
        last = cut
    yielded.extend(parser.feed(text[last:]))
    return yielded, parser.close()


@settings(max_examples=300, deadline=None)
@given(replies, st.lists(st.integers(min_value=0, max_value=2000), max_size=30))
def test_streaming_equals_the_whole_text_parse_for_any_chunking(text: str, cuts: list[int]) -> None:
    yielded, result = stream(text, cuts)
    assert result == parse_reply(text)
    # feed yields each block once complete; blocks that only the end settles come at close
    assert tuple(yielded) == result.actions[: len(yielded)]


@settings(max_examples=300, deadline=None)
@given(st.one_of(replies, st.text(max_size=400)))
def test_parser_only_raises_the_engines_own_errors(text: str) -> None:
    for dialect in ("auto", "bridge", "searchreplace", "editrepl", "applypatch", "udiff", "whole"):
        try:
            result = parse_reply(text, dialect)
        except EditError:
            continue
        assert all(a.block >= 0 and a.line >= 1 for a in result.actions)


def test_a_block_is_yielded_as_soon_as_it_is_complete() -> None:
    parser = StreamParser()
    assert parser.feed("a.py\n<<<<<<< SEARCH\nx\n=======\n") == []
    (action,) = parser.feed("y\n>>>>>>> REPLACE\n")
    assert getattr(action, "path", None) == "a.py"


def test_a_bridge_file_is_yielded_when_the_next_marker_shows_its_last_end() -> None:
    parser = StreamParser()
    assert parser.feed("<<<FILE: a.ts>>>\nx\n<<<END>>>\n") == []
    (action,) = parser.feed("<<<FILE: b.ts>>>\n")
    assert getattr(action, "path", None) == "a.ts"


def test_a_bare_diff_is_yielded_when_the_next_line_shows_it_ended() -> None:
    parser = StreamParser()
    assert parser.feed("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n") == []
    assert [a.kind for a in parser.feed("Done.\n")] == ["patch"]


def test_feeding_after_close_is_an_error() -> None:
    parser = StreamParser()
    parser.close()
    with pytest.raises(EditError):
        parser.feed("x")


def test_close_twice_gives_the_same_result() -> None:
    parser = StreamParser()
    parser.feed("<<<DELETE: a>>>")
    assert parser.close() == parser.close()


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> list[int]:
    calls = [0]
    original: Callable[..., Any] = getattr(module, name)

    def counted(*args: Any) -> Any:
        calls[0] += 1
        return original(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_long_diff_streamed_line_by_line_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _counting(monkeypatch, udiff, "is_body_line")
    lines = ["--- a/x", "+++ b/x", "@@ -1 +1 @@"] + [f"+line {i}" for i in range(3000)]
    parser = StreamParser()
    for line in lines:
        parser.feed(line + "\n")
    parser.feed("The end.\n")
    assert len(parser.close().actions) == 1
    assert calls[0] <= len(lines) + 2


def test_a_long_whole_file_streamed_in_tiny_chunks_is_read_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _counting(monkeypatch, whole, "closes_fence")
    text = "big.py\n```\n" + "".join(f"x = {i}\n" for i in range(3000)) + "```\n"
    parser = StreamParser()
    for i in range(0, len(text), 3):
        parser.feed(text[i : i + 3])
    assert len(parser.close().actions) == 1
    assert calls[0] <= 3002


def test_each_file_of_a_fenced_multi_file_diff_is_yielded_when_the_next_file_starts() -> None:
    parser = StreamParser()
    assert parser.feed("```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n") == []
    (first,) = parser.feed("--- a/y\n+++ b/y\n@@ -1 +1 @@\n")
    assert getattr(first, "path", None) == "x"
    (second,) = parser.feed("-c\n+d\n```\n")
    assert getattr(second, "path", None) == "y"


def test_each_apply_patch_operation_is_yielded_when_the_next_one_starts() -> None:
    parser = StreamParser()
    assert parser.feed("*** Begin Patch\n*** Delete File: a.py\n") == []
    (first,) = parser.feed("*** Add File: b.py\n+x\n")
    assert getattr(first, "path", None) == "a.py"
    (second,) = parser.feed("*** End Patch\n")
    assert getattr(second, "path", None) == "b.py"


def test_reply_with_a_byte_order_mark_parses_like_one_without() -> None:
    assert parse_reply("\ufeff<<<DELETE: a.py>>>\n") == parse_reply("<<<DELETE: a.py>>>\n")


def test_fences_that_turn_out_not_to_be_files_are_not_rescanned_quadratically(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = _counting(monkeypatch, whole, "closes_fence")
    n = 400
    parse_reply("a.py\n```x\n" * n + "<<<<<<< SEARCH\n")
    assert calls[0] <= 4 * n
