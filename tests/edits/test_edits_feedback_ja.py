"""Feedback in the session's language: Japanese text for a Japanese apply, English unchanged."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.edits._reasons import reason
from agentprompt.edits.apply import ApplyOptions, apply_reply
from agentprompt.edits.wording import EDIT_MESSAGES, UnknownLanguage
from agentprompt.prompts.loader import PACKAGED_DIR, parse_prompt_file

APP = "import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n"

UNMATCHED = """app.py
```
<<<<<<< SEARCH
def load(path):
    with open(pth) as f:
=======
def load(path):
    with open(path, "rb") as f:
>>>>>>> REPLACE
```

b.py
```
<<<<<<< SEARCH
B = 1
=======
B = 2
>>>>>>> REPLACE
```

d.py
```
<<<<<<< SEARCH
x = 1
y = 2
=======
z = 3
>>>>>>> REPLACE
```
"""
"""Three SEARCH/REPLACE blocks: one quotes a line the file holds differently, one matches,
one matches two places."""

CUT_OFF = "<<<FILE: b.py>>>\nB = 2\n<<<END>>>\n\n<<<DIFF: app.py>>>\n@@ -1 +1 @@\n-import os\n"
"""A bridge reply that ends inside its DIFF block."""


def _root(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    (tmp_path / "b.py").write_text("B = 1\n")
    (tmp_path / "d.py").write_text("x = 1\ny = 2\n\nx = 1\ny = 2\n")
    return tmp_path


def _english_phrases() -> set[str]:
    """Every run of three or more English words in the packaged English feedback files and
    catalogue entries (the text between their placeholders)."""
    phrases = set()
    bodies = [entry.body for entry in EDIT_MESSAGES.packaged("en").entries.values()]
    for path in (PACKAGED_DIR / "edits").glob("feedback*.md"):
        if not path.stem.endswith("_ja"):
            bodies.append(parse_prompt_file(path.stem, path, path.read_text("utf-8")).body)
    for body in bodies:
        for piece in re.split(r"\{\{\s*\w+\s*\}\}", body):
            phrases.update(m.group(0) for m in re.finditer(r"[A-Za-z]+(?: [A-Za-z]+){2,}", piece))
    return phrases


def test_a_search_block_that_does_not_match_gets_japanese_feedback(tmp_path: Path) -> None:
    report = apply_reply(_root(tmp_path), UNMATCHED, options=ApplyOptions(lang="ja"))
    first = report.failed[0]
    assert first.reason == "引用された行がファイル内に見つかりませんでした"
    assert first.feedback.startswith(
        "ブロック 1（SEARCH/REPLACE 編集: `app.py`、返答の 3 行目から）は適用されませんでした。"
        "理由: 引用された行がファイル内に見つかりませんでした。\n\n"
        "`app.py` の中で、引用された行に最も近い行です:\n```\n"
    )
    differs = "引用された行 `with open(pth) as f:` は、ファイルでは `with open(path) as f:` です"
    assert f"{differs}（5 行目）。" in first.feedback
    assert "ブロック 2 は一致しましたが、" in first.feedback
    assert "ブロック 3 も適用できませんでした。" in first.feedback
    assert report.feedback.startswith(
        "返答の 3 個のファイルブロックのうち、2 個を適用できませんでした。"
    )
    assert "（1、4 行目）" in report.failed[1].reason
    assert "`d.py` の中で、引用された行に最も近い行です (候補 2/2):" in report.feedback


def test_japanese_feedback_holds_no_sentence_of_the_english_files(tmp_path: Path) -> None:
    report = apply_reply(_root(tmp_path), UNMATCHED, options=ApplyOptions(lang="ja"))
    cut = apply_reply(_root(tmp_path), CUT_OFF, "bridge", ApplyOptions(lang="ja"))
    phrases = _english_phrases()
    assert len(phrases) > 100
    for text in (report.feedback, cut.feedback):
        assert [p for p in phrases if p in text] == []


def test_english_feedback_is_the_default_and_unchanged(
    tmp_path: Path, snapshot: Callable[[str, str], None]
) -> None:
    english = apply_reply(_root(tmp_path), UNMATCHED, options=ApplyOptions(lang="en"))
    assert apply_reply(_root(tmp_path), UNMATCHED).feedback == english.feedback
    snapshot("edits/feedback_en.txt", english.feedback)


def test_japanese_feedback_snapshot(tmp_path: Path, snapshot: Callable[[str, str], None]) -> None:
    report = apply_reply(_root(tmp_path), UNMATCHED, options=ApplyOptions(lang="ja"))
    snapshot("edits/feedback_ja.txt", report.feedback)


def test_a_reply_cut_off_in_a_block_is_explained_in_japanese(tmp_path: Path) -> None:
    report = apply_reply(_root(tmp_path), CUT_OFF, "bridge", ApplyOptions(lang="ja"))
    assert report.feedback == (
        "返答の 5 行目から始まるブロックは読み取れませんでした: 返答が <<<DIFF: app.py>>> "
        "ブロックの途中で途切れていました（'<<<END>>>' がありません）。このブロックは破棄しました。"
        "そのファイルをもう一度送ってください。このブロックのため、返答の内容は何も書き込まれていません。"
        "すべてのファイルブロックを、このブロックは完全な形にして、もう一度送ってください。"
    )


def test_reasons_are_english_again_after_a_japanese_apply(tmp_path: Path) -> None:
    apply_reply(_root(tmp_path), UNMATCHED, options=ApplyOptions(lang="ja"))
    assert reason("not_found") == "its lines were not found in the file"


def test_a_patch_with_failed_hunks_joins_their_japanese_reasons(tmp_path: Path) -> None:
    patch = (
        "--- a/app.py\n+++ b/app.py\n@@ -1,1 +1,1 @@\n-import sys\n+import re\n"
        "@@ -5,1 +5,1 @@\n-    with open(x) as g:\n+    pass\n"
    )
    report = apply_reply(_root(tmp_path), patch, options=ApplyOptions(lang="ja"))
    assert report.failed[0].reason == (
        "ハンク 1: 引用された行がファイル内に見つかりませんでした。"
        "ハンク 2: 引用された行がファイル内に見つかりませんでした"
    )
    assert "（パッチ: `app.py`、" in report.feedback
    assert "引用された行に最も近い行です (ハンク 2):" in report.feedback


def test_a_project_japanese_override_is_used(tmp_path: Path) -> None:
    root = _root(tmp_path)
    override = root / "config" / "prompts" / "edits" / "catalogue_ja.yaml"
    override.parent.mkdir(parents=True)
    override.write_text(
        "feedback_others_none:\n  variables: {}\n"
        "  text: ほかのブロックはありません（プロジェクトの文面）。\n",
        encoding="utf-8",
    )
    reply = "app.py\n```\n<<<<<<< SEARCH\nnothing like it\n=======\nx\n>>>>>>> REPLACE\n```\n"
    report = apply_reply(root, reply, options=ApplyOptions(lang="ja"))
    assert "ほかのブロックはありません（プロジェクトの文面）。" in report.feedback
    assert "返答のファイルブロックはこのブロックだけでした。" not in report.feedback


def test_a_project_english_override_leaves_japanese_feedback_packaged(tmp_path: Path) -> None:
    root = _root(tmp_path)
    override = root / ".agentprompt" / "prompts" / "edits" / "catalogue.yaml"
    override.parent.mkdir(parents=True)
    override.write_text(
        "feedback_others_none:\n  variables: {}\n"
        "  text: There were no other blocks (project wording).\n"
    )
    reply = "app.py\n```\n<<<<<<< SEARCH\nnothing like it\n=======\nx\n>>>>>>> REPLACE\n```\n"
    japanese = apply_reply(root, reply, options=ApplyOptions(lang="ja"))
    assert "返答のファイルブロックはこのブロックだけでした。" in japanese.feedback
    assert "project wording" not in japanese.feedback
    assert "There were no other blocks (project wording)." in apply_reply(root, reply).feedback


def test_an_unknown_language_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    root = _root(tmp_path)
    reply = "b.py\n```\n<<<<<<< SEARCH\nB = 1\n=======\nB = 2\n>>>>>>> REPLACE\n```\n"
    with pytest.raises(UnknownLanguage, match=r"'fr'.*en, ja"):
        apply_reply(root, reply, options=ApplyOptions(lang="fr"))
    assert (root / "b.py").read_text() == "B = 1\n"


def test_a_refused_path_and_a_binary_file_are_explained_in_japanese(tmp_path: Path) -> None:
    root = _root(tmp_path)
    (root / "logo.bin").write_bytes(b"\x89PNG\0\0")
    reply = "<<<DELETE: ../secret.txt>>>\n\n<<<FILE: logo.bin>>>\nx\n<<<END>>>\n"
    report = apply_reply(root, reply, "bridge", ApplyOptions(lang="ja"))
    assert [f.reason for f in report.failed] == [
        "パス '../secret.txt' は受け付けられません: '..' は使えません。"
        "ルートの内側のパスを指定してください",
        "logo.bin: バイナリファイルです（NUL バイトを含みます）。テキストとして編集できません",
    ]
    assert [p for p in _english_phrases() if p in report.feedback] == []
    english = apply_reply(root, reply, "bridge")
    assert english.failed[0].reason == (
        "refused path '../secret.txt': '..' is not allowed; give a path inside the root"
    )


def test_short_feedback_is_japanese_and_holds_no_english_sentence(tmp_path: Path) -> None:
    held = frozenset({"app.py", "b.py", "d.py"})
    options = ApplyOptions(lang="ja", seen_in_full=held, short_feedback=True)
    report = apply_reply(_root(tmp_path), UNMATCHED, options=options)
    assert report.feedback.startswith("3 個のファイルブロックのうち 2 個が失敗しました。")
    assert "5 行目は実際には `    with open(path) as f:` です。" in report.feedback
    assert (
        "ファイルで最も近い行 (候補 1/2): 1-2 行目。ファイルで最も近い行 (候補 2/2): 4-5 行目。"
        in (report.feedback)
    )
    assert not {p for p in _english_phrases() if p in report.feedback}


def test_a_reply_readers_note_is_worded_in_japanese_in_a_japanese_apply(tmp_path: Path) -> None:
    cut = "b.py\n```python\nB = 2\n"
    report = apply_reply(_root(tmp_path), cut, options=ApplyOptions(lang="ja"))
    note = "返答が b.py の内容の途中で途切れていました。ファイルは書き込んでいません。"
    assert report.diagnostics[0].message.startswith(note)
    assert f"読み取れませんでした: {note}" in report.feedback
    assert [p for p in _english_phrases() if p in report.feedback] == []
    english = apply_reply(_root(tmp_path), cut)
    assert english.diagnostics[0].message == (
        "The reply was cut off inside the content of b.py; the file was not written. "
        "Send the whole file again."
    )


def test_a_warning_of_the_reply_readers_is_japanese_too(tmp_path: Path) -> None:
    report = apply_reply(_root(tmp_path), "Nothing to change.\n", options=ApplyOptions(lang="ja"))
    assert [d.message for d in report.diagnostics] == [
        "返答には、どの形式の編集ブロックも要求ブロックもありません。適用するものはありません。"
    ]
