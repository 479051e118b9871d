"""SEARCH/REPLACE blocks: path line, fences, several blocks, carried-over path, errors."""

from __future__ import annotations

from agentprompt.edits import SearchReplace, parse_reply

FENCED = """Change the rate:

src/shop/cart.py
```python
<<<<<<< SEARCH
TAX = 0.2
=======
TAX = 0.25
>>>>>>> REPLACE
<<<<<<< SEARCH
def total():
=======
def total(items):
>>>>>>> REPLACE
```
"""


def test_fenced_block_keeps_search_and_replace_exactly() -> None:
    first = parse_reply(FENCED).actions[0]
    assert first == SearchReplace(
        path="src/shop/cart.py",
        search="TAX = 0.2\n",
        replace="TAX = 0.25\n",
        dialect="searchreplace",
        line=5,
    )


def test_following_blocks_carry_the_path_over() -> None:
    actions = parse_reply(FENCED).actions
    assert [(a.block, getattr(a, "path", None)) for a in actions] == [
        (0, "src/shop/cart.py"),
        (1, "src/shop/cart.py"),
    ]


def test_bare_block_without_fence() -> None:
    (action,) = parse_reply("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n").actions
    assert isinstance(action, SearchReplace)
    assert (action.path, action.search, action.replace) == ("a.py", "x\n", "y\n")


def test_decorated_path_lines_are_read() -> None:
    for line in ("**a.py**", "`a.py`", "# a.py", "File: a.py", "a.py:"):
        reply = f"{line}\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
        (action,) = parse_reply(reply).actions
        assert getattr(action, "path", None) == "a.py", line


def test_empty_search_creates_or_appends() -> None:
    (action,) = parse_reply("n.py\n<<<<<<< SEARCH\n=======\nz\n>>>>>>> REPLACE").actions
    assert isinstance(action, SearchReplace)
    assert (action.search, action.replace) == ("", "z\n")


def test_block_without_any_path_is_an_error() -> None:
    result = parse_reply("Do this:\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n")
    assert result.actions == ()
    assert [(d.code, d.severity) for d in result.diagnostics] == [("missing-path", "error")]


def test_block_without_divider_is_an_error() -> None:
    result = parse_reply("a.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n")
    assert [d.code for d in result.diagnostics] == ["missing-divider"]


def test_new_search_before_replace_end_skips_the_open_block() -> None:
    reply = "a.py\n<<<<<<< SEARCH\nx\n=======\n<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE\n"
    result = parse_reply(reply)
    assert [getattr(a, "search", None) for a in result.actions] == ["p\n"]
    assert [d.code for d in result.diagnostics] == ["missing-replace-end"]


def test_cut_off_block_is_truncated_and_earlier_blocks_kept() -> None:
    result = parse_reply(FENCED.split("<<<<<<< SEARCH\ndef")[0] + "<<<<<<< SEARCH\ndef total")
    assert len(result.actions) == 1
    assert result.truncated


def test_trailing_spaces_on_markers_are_tolerated() -> None:
    reply = "a.py  \n<<<<<<< SEARCH  \nx\n=======   \ny\n>>>>>>> REPLACE \n"
    (action,) = parse_reply(reply).actions
    assert getattr(action, "replace", None) == "y\n"


def test_exact_divider_wins_over_an_rst_underline() -> None:
    reply = "doc.rst\n<<<<<<< SEARCH\nTitle\n=====\nold\n=======\nnew\n>>>>>>> REPLACE\n"
    result = parse_reply(reply)
    (action,) = result.actions
    assert isinstance(action, SearchReplace)
    assert (action.search, action.replace) == ("Title\n=====\nold\n", "new\n")
    assert [d.code for d in result.diagnostics] == ["ambiguous-divider"]


def test_block_after_prose_does_not_reuse_the_previous_path() -> None:
    reply = (
        "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\nAnd in the notes:\n"
        "<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE\n"
    )
    result = parse_reply(reply)
    assert [getattr(a, "path", None) for a in result.actions] == ["a.py"]
    assert [d.code for d in result.diagnostics] == ["missing-path"]


def test_backticked_path_with_spaces_is_read() -> None:
    reply = (
        "a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n`docs/my notes.md`\n"
        "<<<<<<< SEARCH\np\n=======\nq\n>>>>>>> REPLACE\n"
    )
    paths = [getattr(a, "path", None) for a in parse_reply(reply).actions]
    assert paths == ["a.py", "docs/my notes.md"]


def test_block_indented_under_a_list_item_loses_the_indent() -> None:
    reply = (
        "1. a.py\n   ```python\n   <<<<<<< SEARCH\n   x = 1\n   =======\n   x = 2\n"
        "   >>>>>>> REPLACE\n   ```\n"
    )
    (action,) = parse_reply(reply).actions
    assert isinstance(action, SearchReplace)
    assert (action.path, action.search, action.replace) == ("a.py", "x = 1\n", "x = 2\n")


def test_path_after_the_fence_language_is_read() -> None:
    reply = "```python src/a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, SearchReplace)
    assert action.path == "src/a.py"
