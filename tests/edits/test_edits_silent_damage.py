"""Replies that once wrote the wrong thing with exit 0: a block swallowing the next block's
markers, and text standing for left-out code in any dialect and prompt language."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.edits import parse_reply
from agentprompt.edits._elision import is_elision
from agentprompt.edits.apply import ApplyOptions, apply_reply

UTILS = """// Small helpers.

export function formatDate(date: Date): string {
  return date.toISOString();
}

export function parseJSON(str: string): unknown {
  return JSON.parse(str);
}

export function slugify(title: string): string {
  return title.toLowerCase();
}
"""
INDEX = 'import { parseJSON } from "./utils";\n\nexport const x = parseJSON("{}");\n'
NEW_UTILS = UTILS.replace(
    "return JSON.parse(str);",
    "try {\n    return JSON.parse(str);\n  } catch {\n    return null;\n  }",
)


def _repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "utils.ts").write_text(UTILS)
    (tmp_path / "src" / "index.ts").write_text(INDEX)
    return tmp_path


def _unchanged(root: Path) -> bool:
    return (root / "src" / "utils.ts").read_text() == UTILS and (
        root / "src" / "index.ts"
    ).read_text() == INDEX


def test_a_file_marker_without_its_colon_starts_a_block_of_its_own(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    new_index = INDEX.replace('"{}"', '"[]"')
    reply = (
        f"Fixed.\n\n<<<FILE: src/utils.ts>>>\n{NEW_UTILS}<<<END>>>\n\n"
        f"<<<FILE src/index.ts>>>\n{new_index}<<<END>>>\n"
    )
    result = parse_reply(reply)
    assert [getattr(a, "path", "") for a in result.actions] == ["src/utils.ts", "src/index.ts"]
    assert [d.code for d in result.diagnostics] == ["marker-form"]
    report = apply_reply(root, reply)
    assert report.ok
    assert (root / "src" / "utils.ts").read_text() == NEW_UTILS
    assert (root / "src" / "index.ts").read_text() == new_index


@pytest.mark.parametrize(
    "opener",
    ["<<FILE: src/index.ts>>", "<<<FILE：src/index.ts>>>", "<<<file src/index.ts>>>"],
)
def test_slightly_malformed_markers_are_read_as_markers_with_a_warning(opener: str) -> None:
    reply = f"<<<FILE: src/utils.ts>>>\na\n<<<END>>>\n{opener}\nb\n<<<END>>>\n"
    result = parse_reply(reply)
    assert [(getattr(a, "path", ""), getattr(a, "content", "")) for a in result.actions] == [
        ("src/utils.ts", "a\n"),
        ("src/index.ts", "b\n"),
    ]
    assert [d.code for d in result.diagnostics] == ["marker-form"]


@pytest.mark.parametrize(
    "opener", ["<<<FIEL: src/index.ts>>>", "FILE: src/index.ts", "<<<FILE-src/index.ts>>>"]
)
def test_a_block_swallowing_an_unreadable_marker_writes_nothing(
    tmp_path: Path, opener: str
) -> None:
    root = _repo(tmp_path)
    reply = f"<<<FILE: src/utils.ts>>>\n{NEW_UTILS}<<<END>>>\n\n{opener}\n{INDEX}<<<END>>>\n"
    report = apply_reply(root, reply)
    assert not report.ok
    assert "'<<<END>>>'" in report.failed[0].reason
    assert _unchanged(root)


def test_a_search_replace_holding_a_bridge_marker_writes_nothing(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    reply = (
        "src/utils.ts\n<<<<<<< SEARCH\n  return JSON.parse(str);\n=======\n"
        "  return null;\n<<<END>>>\n<<<FILE: src/index.ts>>>\n>>>>>>> REPLACE\n"
    )
    report = apply_reply(root, reply)
    assert not report.ok and "marker line" in report.failed[0].reason
    assert _unchanged(root)


def test_a_diff_may_add_a_marker_line_on_purpose(tmp_path: Path) -> None:
    (tmp_path / "doc.txt").write_text("Blocks end with:\n")
    reply = "<<<DIFF: doc.txt>>>\n@@ -1 +1,2 @@\n Blocks end with:\n+<<<END>>>\n<<<END>>>\n"
    assert apply_reply(tmp_path, reply).ok
    assert (tmp_path / "doc.txt").read_text() == "Blocks end with:\n<<<END>>>\n"


ELIDED_UTILS = NEW_UTILS.replace(
    "export function slugify(title: string): string {\n  return title.toLowerCase();\n}\n",
    "// ... rest of the file unchanged ...\n",
) + "".join(f"// a longer note {i}\n" for i in range(12))


@pytest.mark.parametrize(
    "reply",
    [
        # bridge FILE, longer than the file it replaces
        f"<<<FILE: src/utils.ts>>>\n{ELIDED_UTILS}<<<END>>>\n",
        # the whole-file dialect
        f"src/utils.ts\n```ts\n{ELIDED_UTILS}```\n",
        # SEARCH/REPLACE
        "src/utils.ts\n<<<<<<< SEARCH\nexport function parseJSON(str: string): unknown {\n"
        "  return JSON.parse(str);\n}\n=======\nexport function parseJSON(str: string): unknown {\n"
        "  // ... existing code ...\n  return null;\n}\n>>>>>>> REPLACE\n",
        # unified diff
        "```diff\n--- a/src/utils.ts\n+++ b/src/utils.ts\n@@ -7,3 +7,3 @@\n"
        " export function parseJSON(str: string): unknown {\n-  return JSON.parse(str);\n"
        "+  // existing code\n }\n```\n",
        # apply_patch
        "*** Begin Patch\n*** Update File: src/utils.ts\n@@\n export function parseJSON(str: "
        "string): unknown {\n-  return JSON.parse(str);\n+  # unchanged\n }\n*** End Patch\n",
        # EDIT/REPL
        "src/utils.ts\n««« EDIT\nexport function parseJSON(str: string): unknown {\n"
        "  return JSON.parse(str);\n═══════ REPL\nexport function parseJSON(str: string): "
        "unknown {\n  // 既存のコードはそのまま\n»»» EDIT END\n",
        # bridge DIFF, Japanese
        "<<<DIFF: src/utils.ts>>>\n@@ -11,3 +11,3 @@\n export function slugify(title: string): "
        "string {\n-  return title.toLowerCase();\n+  // ...（以下省略）\n }\n<<<END>>>\n",
    ],
    ids=["bridge-file", "whole", "searchreplace", "udiff", "applypatch", "editrepl", "bridge-ja"],
)
def test_a_line_standing_for_left_out_code_is_refused_in_every_dialect(
    tmp_path: Path, reply: str
) -> None:
    root = _repo(tmp_path)
    report = apply_reply(root, reply)
    assert not report.ok, report.diff
    assert "left-out code" in report.failed[0].reason
    assert _unchanged(root)
    japanese = apply_reply(root, reply, options=ApplyOptions(lang="ja"))
    assert "省略" in japanese.failed[0].reason


def test_an_elision_line_the_file_already_holds_is_not_refused(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def f():\n    # ...\n    return 1\n")
    reply = "a.py\n```python\ndef f():\n    # ...\n    return 2\n```\n"
    assert apply_reply(tmp_path, reply).ok


@pytest.mark.parametrize(
    "line",
    [
        "# ... rest of the file unchanged ...",
        "    // ... existing code ...",
        "# unchanged",
        "... rest of the file ...",
        "/* ... */",
        "<!-- ... -->",
        "{/* ... existing JSX ... */}",
        "[... unchanged ...]",
        "(rest of file unchanged)",
        "# other methods unchanged",
        "  # code omitted for brevity",
        "-- rest of the query unchanged",
        "# 以下省略",
        "// ...既存のコード...",
        "# （省略）",
        "# 変更なし",
        "// 既存のコードはそのまま",
        "# 残りは同じ",
    ],
)
def test_lines_standing_for_left_out_code(line: str) -> None:
    assert is_elision(line)


@pytest.mark.parametrize(
    "line",
    [
        "# keep the order unchanged when the key is missing",
        "...",
        "    ...",
        "def f(): ...",
        "# REST API client",
        "# Helpers below",
        "x = 1  # unchanged",
        "# Existing users are migrated below",
        "# その他",
        "# 値をそのまま返す",
        "# 以下の関数は入力を検証する",
        "# Omitted fields default to None",
    ],
)
def test_real_code_and_comments_are_not_elisions(line: str) -> None:
    assert not is_elision(line)


def test_an_empty_whole_file_block_never_empties_a_file(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("line 1\nline 2\n")
    report = apply_reply(tmp_path, "<<<FILE: f.txt>>>\n<<<END>>>\n")
    assert not report.written and report.failed
    assert "would empty f.txt" in report.failed[0].reason
    assert (tmp_path / "f.txt").read_text() == "line 1\nline 2\n"
    assert not (tmp_path / ".agentprompt").exists()
