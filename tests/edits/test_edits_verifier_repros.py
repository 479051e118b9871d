"""Replies a verifier found to damage files with success; each must now be safe."""

from __future__ import annotations

import json
import os
from pathlib import Path

from agentprompt.edits.apply import apply_reply
from agentprompt.edits.journal import recover
from agentprompt.edits.parse import parse_reply


def test_search_quoting_a_whole_merge_conflict_uses_the_divider_outside_it(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.py").write_text(
        "def f():\n<<<<<<< HEAD\n    return 1\n=======\n    return 2\n>>>>>>> feature\n"
    )
    reply = (
        "a.py\n```python\n<<<<<<< SEARCH\n<<<<<<< HEAD\n    return 1\n=======\n    return 2\n"
        ">>>>>>> feature\n=======\n    return 2\n>>>>>>> REPLACE\n```\n"
    )
    report = apply_reply(tmp_path, reply)
    assert report.ok
    assert (tmp_path / "a.py").read_text() == "def f():\n    return 2\n"


def test_several_exact_dividers_skip_the_block_and_write_nothing(tmp_path: Path) -> None:
    original = "Project\n=======\n\nIntro.\n"
    (tmp_path / "doc.md").write_text(original)
    reply = (
        "doc.md\n```markdown\n<<<<<<< SEARCH\nProject\n=======\n\nIntro.\n=======\nProject\n"
        "=======\n\nBetter intro.\n>>>>>>> REPLACE\n```\n"
    )
    report = apply_reply(tmp_path, reply)
    assert not report.ok and not report.written
    assert [d.code for d in parse_reply(reply).diagnostics] == ["ambiguous-divider"]
    assert (tmp_path / "doc.md").read_text() == original


def test_several_repl_lines_skip_the_edit_block(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x\n")
    reply = "a.py\n««« EDIT\nx\n═══════ REPL\ny\n═══════ REPL\nz\n»»» EDIT END\n"
    result = parse_reply(reply)
    assert not result.actions
    assert [(d.severity, d.code) for d in result.diagnostics] == [("error", "ambiguous-divider")]
    assert not apply_reply(tmp_path, reply).ok
    assert (tmp_path / "a.py").read_text() == "x\n"


def test_a_directory_name_over_255_bytes_is_refused_and_nothing_is_created(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    reply = f"<<<FILE: d/{'y' * 256}/z.txt>>>\nnew\n<<<END>>>\n"
    report = apply_reply(tmp_path, reply)
    assert not report.ok and not report.written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert apply_reply(tmp_path, "<<<FILE: b.txt>>>\nb\n<<<END>>>\n").ok


def test_a_journal_recording_a_path_too_long_to_exist_is_recovered(tmp_path: Path) -> None:
    folder = tmp_path / ".agentprompt" / "journal"
    folder.mkdir(parents=True)
    (tmp_path / "d").mkdir()
    entry = {
        "path": f"d/{'y' * 256}/z.txt",
        "backup": None,
        "mode": None,
        "temp": ".z.txt.agentprompt-0123456789abcdef.tmp",
        "after": None,
    }
    manifest = {"version": 2, "nonce": "0", "files": [entry], "dirs": ["d", entry["path"][:-6]]}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    report = recover(tmp_path)
    assert report.found and report.removed == () and report.kept == ()
    assert not (tmp_path / "d").exists() and not os.path.lexists(folder / "manifest.json")


def test_text_after_a_bridge_marker_is_ignored_with_a_warning(tmp_path: Path) -> None:
    for name, text in (("a.ts", "old\n"), ("b.ts", "b\n"), ("c.ts", "gone\n")):
        (tmp_path / name).write_text(text)
    reply = (
        "<<<FILE: a.ts>>> (updated)\nexport const x = 1;\n<<<END>>>\n"
        "<<<DELETE: c.ts>>> (no longer used)\n<<<FILE: b.ts>>>\nexport const y = 2;\n<<<END>>>\n"
    )
    result = parse_reply(reply)
    assert [a.kind for a in result.actions] == ["write", "delete", "write"]
    assert [d.code for d in result.diagnostics] == ["marker-tail", "marker-tail"]
    assert apply_reply(tmp_path, reply).ok
    assert (tmp_path / "a.ts").read_text() == "export const x = 1;\n"
    assert not (tmp_path / "c.ts").exists()


def test_a_bridge_file_holding_a_new_end_line_is_refused_and_nothing_written(
    tmp_path: Path,
) -> None:
    (tmp_path / "gen.py").write_text("old\n")
    content = "TEMPLATE = '''\n<<<END>>>\n'''\nprint(TEMPLATE)\n"
    reply = f"<<<FILE: gen.py>>>\n{content}<<<END>>>\n"
    assert [d.code for d in parse_reply(reply).diagnostics] == ["end-in-content"]
    report = apply_reply(tmp_path, reply)
    assert not report.ok and "'<<<END>>>'" in report.failed[0].reason
    assert (tmp_path / "gen.py").read_text() == "old\n"


def test_a_bridge_file_that_already_holds_an_end_line_is_written_whole(tmp_path: Path) -> None:
    content = "TEMPLATE = '''\n<<<END>>>\n'''\nprint(TEMPLATE)\n"
    (tmp_path / "gen.py").write_text(content.replace("print", "echo"))
    reply = f"<<<FILE: gen.py>>>\n{content}<<<END>>>\n"
    assert apply_reply(tmp_path, reply).ok
    assert (tmp_path / "gen.py").read_text() == content


def test_bridge_blocks_with_prose_between_still_split_at_their_ends() -> None:
    reply = (
        "Here:\n<<<FILE: a.ts>>>\na\n<<<END>>>\nThen this one.\n<<<FILE: b.ts>>>\nb\n<<<END>>>\n"
        "Done.\n"
    )
    result = parse_reply(reply)
    assert [(getattr(a, "path", ""), getattr(a, "content", "")) for a in result.actions] == [
        ("a.ts", "a\n"),
        ("b.ts", "b\n"),
    ]
    assert not result.diagnostics


def test_markdown_file_whose_bare_fences_may_close_early_is_not_written(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Proj\n\nold text\n")
    reply = "README.md\n```\n# Proj\n\n```\nmake\n```\n\nText after.\n```\n\nDone.\n"
    result = parse_reply(reply)
    assert not result.actions
    assert [d.code for d in result.diagnostics] == ["ambiguous-fence"]
    assert not apply_reply(tmp_path, reply).ok
    assert (tmp_path / "README.md").read_text() == "# Proj\n\nold text\n"


def test_markdown_file_followed_by_another_file_block_is_still_read() -> None:
    reply = "README.md\n```\n# Proj\n```\n\nnotes.md\n```\nn\n```\n\nDone.\n"
    result = parse_reply(reply)
    assert [getattr(a, "content", "") for a in result.actions] == ["# Proj\n", "n\n"]
    assert not result.diagnostics


def test_a_move_under_a_delete_is_an_error_and_deletes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    reply = "*** Begin Patch\n*** Delete File: a.py\n*** Move to: b.py\n*** End Patch\n"
    result = parse_reply(reply)
    assert not result.actions
    assert [d.code for d in result.diagnostics] == ["misplaced-move"]
    assert not apply_reply(tmp_path, reply).ok
    assert (tmp_path / "a.py").read_text() == "x = 1\n" and not (tmp_path / "b.py").exists()


def test_content_starting_with_a_bom_keeps_the_file_at_one_bom(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"\xef\xbb\xbfimport os\r\n")
    assert apply_reply(tmp_path, "<<<FILE: a.py>>>\n\ufeffimport re\n<<<END>>>\n").ok
    assert (tmp_path / "a.py").read_bytes() == b"\xef\xbb\xbfimport re\r\n"


def test_a_new_file_gets_a_bom_only_when_its_content_starts_with_one(tmp_path: Path) -> None:
    reply = "<<<FILE: b.py>>>\n\ufeffx = 1\n<<<END>>>\n<<<FILE: c.py>>>\ny = 2\n<<<END>>>\n"
    assert apply_reply(tmp_path, reply).ok
    assert (tmp_path / "b.py").read_bytes() == b"\xef\xbb\xbfx = 1\n"
    assert (tmp_path / "c.py").read_bytes() == b"y = 2\n"


def test_a_pure_rename_at_the_end_of_a_bare_reply_is_applied(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text("a\n")
    reply = "diff --git a/x.py b/y.py\nsimilarity index 100%\nrename from x.py\nrename to y.py\n"
    assert apply_reply(tmp_path, reply).ok
    assert (tmp_path / "y.py").read_text() == "a\n" and not (tmp_path / "x.py").exists()


def test_an_empty_new_file_at_the_end_of_a_bare_reply_is_read() -> None:
    reply = "diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..e69de29\n"
    result = parse_reply(reply)
    assert [a.kind for a in result.actions] == ["write"] and not result.truncated


def test_a_new_file_cut_off_after_its_index_line_is_still_truncated() -> None:
    reply = "diff --git a/e.txt b/e.txt\nnew file mode 100644\nindex 0000000..3b18e51\n"
    result = parse_reply(reply)
    assert not result.actions and result.truncated


MAIN = (
    "from utils import sub\n\ndef main():\n    print(sub(3, 1))\n\n"
    "if __name__ == '__main__':\n    main()\n"
)


def test_a_short_whole_file_among_edit_blocks_is_refused_as_a_snippet(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(MAIN)
    (tmp_path / "utils.py").write_text("def sub(a, b):\n    return a - b\n")
    reply = (
        "utils.py\n```python\n<<<<<<< SEARCH\ndef sub(a, b):\n    return a - b\n=======\n"
        "def add(a, b):\n    return a + b\n>>>>>>> REPLACE\n```\n\n`main.py`:\n```python\n"
        "from utils import add\nprint(add(1, 2))\n```\n"
    )
    report = apply_reply(tmp_path, reply)
    assert not report.ok and not report.written
    assert "snippet" in report.failed[0].reason
    assert (tmp_path / "main.py").read_text() == MAIN


def test_a_short_whole_file_alone_is_still_written(tmp_path: Path) -> None:
    (tmp_path / "main.py").write_text(MAIN)
    assert apply_reply(tmp_path, "main.py\n```python\nprint(1)\n```\n").ok
    assert (tmp_path / "main.py").read_text() == "print(1)\n"


def test_a_file_name_too_long_for_its_temporary_copy_is_refused(tmp_path: Path) -> None:
    longest = "n" * 218 + ".py"
    assert apply_reply(tmp_path, f"<<<FILE: {longest}>>>\nx\n<<<END>>>\n").ok
    report = apply_reply(tmp_path, f"<<<FILE: n{longest}>>>\nx\n<<<END>>>\n")
    assert not report.ok and "too long" in report.failed[0].reason
    assert sorted(p.name for p in tmp_path.iterdir()) == [longest]
