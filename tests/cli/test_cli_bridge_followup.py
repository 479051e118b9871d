"""Follow-up rounds: after the first prompt, each prompt sends only what the chat does not
hold yet (feedback first, files asked for, files changed on disk, then the task: restated
once the chat may have lost it, else a line referring to it); ``pack --full`` sends
everything again for a new chat."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.tokens import shared_counter

from .conftest import Result

Run = Callable[..., Result]

FAILED = """<<<DIFF: src/utils.ts>>>
@@ -9,3 +9,4 @@
 export function parseJSONX(str: string): unknown {
-  return JSON.parse(str);
+  try { return JSON.parse(str); } catch { return null; }
 }
<<<END>>>
"""

ASK = "<<<REQUEST_FILE: scripts/report.py>>>\n"


def _reply(tmp_path: Path, text: str, name: str = "reply.md") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _start(run: Run, root: Path, *files: str, lang: str = "en") -> str:
    first = run(
        "pack", *files, "--root", str(root), "--task", "Make parseJSON safe", "--lang", lang
    )
    assert first.code == 0, first.err
    return first.out


def _followup(run: Run, root: Path, reply: str) -> str:
    applied = run("apply", reply, "--root", str(root))
    assert applied.code in (0, 1), applied.out + applied.err
    again = run("pack", "--root", str(root))
    assert again.code == 0, again.err
    return again.out


REFERENCE = "## Task\nUnchanged: the task stated earlier in this chat.\n"
"""How an English follow-up ends when the chat surely still holds the task."""


def test_after_a_failed_edit_the_follow_up_holds_the_feedback_and_a_line_for_the_task(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    first = _start(run, example, ".")
    text = _followup(run, example, _reply(tmp_path, FAILED))
    assert text.startswith("✏️ Current mode: edit\n\n## Result of your last changes\n")
    assert text.endswith(REFERENCE)
    assert "Make parseJSON safe" not in text
    # The chat holds the file: the feedback quotes only the file's line the block got wrong.
    assert "Line 9 of the file reads `export function parseJSON(str: string): unknown {`" in text
    # No file is sent again: the chat holds them all.
    assert "```typescript" not in text and "# You are a coding assistant" not in text
    count = shared_counter().count
    assert count(text) < count(first) / 3


def test_the_follow_up_orders_feedback_requested_files_changed_files_then_the_task(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts", "src/index.ts")
    index = example / "src" / "index.ts"
    index.write_text(index.read_text() + "// touched by hand\n")
    text = _followup(run, example, _reply(tmp_path, FAILED + "\n" + ASK))
    feedback = text.index("## Result of your last changes")
    asked = text.index("## Files added to the context\n\n### scripts/report.py\n```python\n")
    changed = text.index("## Files changed since you last saw them")
    task = text.index(REFERENCE)
    assert feedback < asked < changed < task
    assert "### src/index.ts (diff)\n```diff\n" in text
    assert "+// touched by hand\n" in text
    assert "### src/utils.ts" not in text


def test_a_changed_file_is_sent_whole_when_that_is_shorter_than_its_diff(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/index.ts")
    (example / "src" / "index.ts").write_text("export const x = 1;\n")
    text = _followup(run, example, _reply(tmp_path, ASK))
    assert "### src/index.ts\n```typescript\nexport const x = 1;\n```" in text
    assert "(diff)" not in text


def test_a_file_in_context_deleted_from_disk_is_reported(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/index.ts", "src/utils.ts")
    (example / "src" / "index.ts").unlink()
    text = _followup(run, example, _reply(tmp_path, FAILED))
    assert "### src/index.ts (deleted)" in text


def test_files_the_reply_wrote_are_not_sent_back(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts")
    good = "<<<FILE: src/utils.ts>>>\nexport const fixed = true;\n<<<END>>>\n"
    text = _followup(run, example, _reply(tmp_path, good))
    assert "fixed" not in text
    # A change by hand after the reply is sent, as a diff against what the reply wrote.
    (example / "src" / "utils.ts").write_text("export const fixed = false;\n")
    again = run("pack", "--root", str(example)).out
    assert "export const fixed = false;" in again


def test_pack_full_sends_everything_again_and_sticks_until_a_reply(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts")
    _followup(run, example, _reply(tmp_path, FAILED))
    whole = run("pack", "--root", str(example), "--full")
    assert whole.code == 0, whole.err
    assert whole.out.startswith("# You are a coding assistant")
    assert "## src/utils.ts\n```typescript\n" in whole.out
    assert "whole prompt" in whole.err
    # pack prints the same prompt until a reply to it is applied.
    assert run("pack", "--root", str(example)).out == whole.out
    status = json.loads(run("bridge", "status", "--root", str(example), "--json").out)
    assert status["resend"] is True
    after = _followup(run, example, _reply(tmp_path, ASK, "ask.md"))
    assert after.startswith("✏️ Current mode: edit\n") and "scripts/report.py" in after
    assert "# You are a coding assistant" not in after


def test_a_follow_up_in_japanese_keeps_the_mode_line(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts", lang="ja")
    text = _followup(run, example, _reply(tmp_path, ASK))
    assert text.startswith("✏️ 現在のモード: 編集モード\n")
    assert "## 追加されたファイル\n\n### scripts/report.py\n" in text
    assert text.endswith("## タスク\n変更なし: このチャットで先に示したタスクのままです。\n")


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_follow_up_snapshot(
    run: Run,
    example: Path,
    tmp_path: Path,
    clipboard: list[str],
    lang: str,
    snapshot: Callable[[str, str], None],
) -> None:
    _start(run, example, "src/utils.ts", "src/index.ts", lang=lang)
    index = example / "src" / "index.ts"
    index.write_text(index.read_text().replace("return 0;", "return 2;"))
    text = _followup(run, example, _reply(tmp_path, ASK))
    snapshot(f"bridge/followup_{lang}.md", text)


def test_restate_tokens_0_states_the_task_in_every_follow_up(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts")
    assert run("pack", "--root", str(example), "--restate-tokens", "0").code == 0
    text = _followup(run, example, _reply(tmp_path, FAILED))
    assert text.endswith("## Task (reminder)\nMake parseJSON safe\n")
    again = _followup(run, example, _reply(tmp_path, FAILED, "again.md"))
    assert again.endswith("## Task (reminder)\nMake parseJSON safe\n")


def test_the_task_is_restated_once_the_chat_has_read_the_threshold_then_referred_to(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    first = _start(run, example, "src/utils.ts")
    tokens = shared_counter().count(first)
    # The first prompt states the task at its head: all its tokens were read after it.
    limit = tokens + 10
    assert run("pack", "--root", str(example), "--restate-tokens", str(limit)).code == 0
    padding = "Some words about the change. " * 20
    restated = _followup(run, example, _reply(tmp_path, padding + "\n" + FAILED))
    assert restated.endswith("## Task (reminder)\nMake parseJSON safe\n")
    # Stated last in that follow-up: the count starts again from there.
    status = json.loads(run("bridge", "status", "--root", str(example), "--json").out)
    assert status["restate_tokens"] == limit and status["pending_task"] == [True, 0]
    referred = _followup(run, example, _reply(tmp_path, FAILED, "again.md"))
    assert referred.endswith(REFERENCE)


def test_a_negative_restate_threshold_is_refused(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    _start(run, example, "src/utils.ts")
    result = run("pack", "--root", str(example), "--restate-tokens", "-1")
    assert result.code == 2 and "--restate-tokens" in result.err
