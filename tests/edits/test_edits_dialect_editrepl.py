"""Seed 004's EDIT/REPL blocks (SPEC.md): markers, anchor, creation, malformed blocks."""

from __future__ import annotations

from agentprompt.edits import AnchoredEdit, parse_reply

BLOCK = """path/to/file.py
««« EDIT
def f():
    a = 1
    return a
═══════ REPL
def f():
    a = 1
    return a + 1
»»» EDIT END
"""


def test_block_gives_an_anchored_edit_with_the_shared_leading_lines_as_anchor() -> None:
    (action,) = parse_reply(BLOCK).actions
    assert action == AnchoredEdit(
        path="path/to/file.py",
        search="def f():\n    a = 1\n    return a\n",
        replace="def f():\n    a = 1\n    return a + 1\n",
        anchor="def f():\n    a = 1\n",
        dialect="editrepl",
        line=2,
    )


def test_empty_edit_section_creates_a_file() -> None:
    (action,) = parse_reply("new.py\n««« EDIT\n═══════ REPL\nx = 1\n»»» EDIT END\n").actions
    assert isinstance(action, AnchoredEdit)
    assert (action.search, action.anchor, action.replace) == ("", "", "x = 1\n")


def test_omitted_lines_in_repl_delete_them() -> None:
    (action,) = parse_reply("a.py\n««« EDIT\nkeep\ngone\n═══════ REPL\nkeep\n»»» EDIT END").actions
    assert isinstance(action, AnchoredEdit)
    assert (action.anchor, action.replace) == ("keep\n", "keep\n")


def test_backticks_inside_a_block_are_content() -> None:
    reply = "README.md\n««« EDIT\n```\nold\n```\n═══════ REPL\n```\nnew\n```\n»»» EDIT END\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, AnchoredEdit)
    assert action.search == "```\nold\n```\n"


def test_blocks_apply_in_reply_order() -> None:
    reply = BLOCK + "\nother.py\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n"
    actions = parse_reply(reply).actions
    assert [(a.block, getattr(a, "path", None)) for a in actions] == [
        (0, "path/to/file.py"),
        (1, "other.py"),
    ]


def test_missing_repl_divider_is_an_error() -> None:
    result = parse_reply("a.py\n««« EDIT\nx\n»»» EDIT END\n")
    assert result.actions == ()
    assert [d.code for d in result.diagnostics] == ["missing-divider"]


def test_missing_path_is_an_error() -> None:
    result = parse_reply("««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n")
    assert [d.code for d in result.diagnostics] == ["missing-path"]


def test_a_new_edit_before_the_end_marker_skips_the_open_block() -> None:
    reply = "a.py\n««« EDIT\nx\n" + BLOCK
    result = parse_reply(reply)
    assert [getattr(a, "path", None) for a in result.actions] == ["path/to/file.py"]
    assert [d.code for d in result.diagnostics] == ["missing-edit-end"]


def test_cut_off_block_is_truncated() -> None:
    result = parse_reply(BLOCK + "b.py\n««« EDIT\nx\n═══════ REPL\n")
    assert len(result.actions) == 1
    assert result.truncated


def test_prose_word_with_a_colon_is_not_a_path() -> None:
    result = parse_reply("Changes:\n««« EDIT\n═══════ REPL\nnew\n»»» EDIT END\n")
    assert result.actions == ()
    assert [d.code for d in result.diagnostics] == ["missing-path"]


def test_extensionless_file_name_is_a_path() -> None:
    (action,) = parse_reply("LICENSE\n««« EDIT\n═══════ REPL\nMIT\n»»» EDIT END\n").actions
    assert isinstance(action, AnchoredEdit)
    assert action.path == "LICENSE"


def test_path_with_a_space_in_its_file_name_is_a_path() -> None:
    reply = "docs/my notes.md\n««« EDIT\nx\n═══════ REPL\ny\n»»» EDIT END\n"
    (action,) = parse_reply(reply).actions
    assert isinstance(action, AnchoredEdit)
    assert action.path == "docs/my notes.md"
