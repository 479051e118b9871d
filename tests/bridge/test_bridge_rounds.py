"""What a reply's blocks do to a bridge session (seed 003's 拡張機能側の対応)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentprompt.bridge.rounds import advance, reply_options
from agentprompt.bridge.state import BridgeState, load_session
from agentprompt.bridge.view import view_repository
from agentprompt.cli.main import main
from agentprompt.edits.actions import Continue, Diagnostic, SwitchMode
from agentprompt.edits.apply import AppliedAction, ApplyReport
from agentprompt.store import StoreError


def _advance(root: Path, state: BridgeState, report: ApplyReport) -> BridgeState:
    return advance(state, report, view_repository(root))[0]


def test_requested_files_join_the_context_in_edit_mode(example: Path) -> None:
    state = _advance(example, BridgeState(task="t"), ApplyReport(requests=("./src/utils.ts",)))
    assert state.mode == "edit"
    assert state.files == ("src/utils.ts",)
    assert state.rounds == 1


def test_requests_for_missing_or_excluded_files_are_remembered_with_the_reason(
    example: Path,
) -> None:
    (example / ".gitignore").write_text("secret.txt\n")
    (example / "secret.txt").write_text("x\n")
    report = ApplyReport(requests=("nope.py", "secret.txt"))
    state = _advance(example, BridgeState(task="t"), report)
    assert state.mode == "browse"
    assert dict(state.missing)["nope.py"] == "does not exist"
    assert ".gitignore" in dict(state.missing)["secret.txt"]


def test_switch_to_edit_adds_the_named_files(example: Path) -> None:
    switch = SwitchMode(dialect="bridge", mode="edit", paths=("src/index.ts",))
    state = _advance(example, BridgeState(task="t"), ApplyReport(switch_mode=switch))
    assert (state.mode, state.files) == ("edit", ("src/index.ts",))


def test_switch_to_browse_drops_the_named_files(example: Path) -> None:
    start = BridgeState(task="t", mode="edit", files=("src/index.ts", "src/utils.ts"))
    switch = SwitchMode(dialect="bridge", mode="browse", paths=("src/index.ts",))
    state = _advance(example, start, ApplyReport(switch_mode=switch))
    assert (state.mode, state.files) == ("edit", ("src/utils.ts",))
    everything = SwitchMode(dialect="bridge", mode="browse")
    state = _advance(example, start, ApplyReport(switch_mode=everything))
    assert (state.mode, state.files) == ("browse", ())


def test_deleted_files_leave_and_written_files_join_the_context(example: Path) -> None:
    start = BridgeState(task="t", mode="edit", files=("src/index.ts", "scripts/report.py"))
    report = ApplyReport(
        applied=(
            AppliedAction(index=0, path="scripts/report.py", action="delete"),
            AppliedAction(index=1, path="src/new.ts", action="write"),
        )
    )
    assert _advance(example, start, report).files == ("src/index.ts", "src/new.ts")


def test_continue_records_the_changes_still_owed_and_the_next_reply_clears_it(
    example: Path,
) -> None:
    more = Continue(dialect="bridge", remaining=2, paths=("a.ts", "b.ts"))
    state = _advance(example, BridgeState(task="t"), ApplyReport(continue_=more))
    assert state.continuation == ("a.ts", "b.ts")
    assert _advance(example, state, ApplyReport(requests=("README.md",))).continuation is None


def test_state_survives_the_store_round_trip() -> None:
    state = BridgeState(
        task="t", mode="edit", files=("a",), continuation=(), missing=(("b", "gone"),)
    )
    assert BridgeState.from_json(state.to_json()) == state


def test_a_damaged_stored_state_is_refused_with_what_to_do() -> None:
    with pytest.raises(StoreError, match="clear it with reset_session"):
        BridgeState.from_json({"mode": "edit"})


def test_switch_to_browse_naming_only_unknown_files_keeps_the_context(example: Path) -> None:
    start = BridgeState(task="t", mode="edit", files=("src/index.ts", "src/utils.ts"))
    switch = SwitchMode(dialect="bridge", mode="browse", paths=("src/nope.ts",))
    state = _advance(example, start, ApplyReport(switch_mode=switch))
    assert (state.mode, state.files) == ("edit", ("src/index.ts", "src/utils.ts"))
    assert dict(state.missing)["src/nope.ts"] == "does not exist"


def test_a_reply_cut_off_mid_block_asks_to_continue_and_keeps_what_is_owed(
    example: Path,
) -> None:
    cut = Diagnostic(severity="error", code="truncated", message="cut off", line=3)
    start = BridgeState(task="t", mode="edit", files=("src/index.ts",), continuation=("a.ts",))
    report = ApplyReport(diagnostics=(cut,), lost=1, feedback="send it again")
    assert _advance(example, start, report).continuation == ("a.ts",)
    fresh = _advance(example, replace(start, continuation=None), report)
    assert fresh.continuation == ()
    assert fresh.feedback == "send it again"


FAILING_DIFF = """I made parseJSON safe.

<<<DIFF: src/utils.ts>>>
@@ -9,3 +9,7 @@
 export function parseJSON(input: string): unknown {
-  return JSON.parse(input);
+  try {
+    return JSON.parse(input);
+  } catch {
+    return null;
+  }
 }
<<<END>>>
"""
"""A reply whose hunk quotes ``parseJSON(input)``: the file says ``parseJSON(str)``."""


def _apply_in_session(
    root: Path, lang: str, capsys: pytest.CaptureFixture[str]
) -> tuple[int, dict[str, Any]]:
    """``agentprompt pack`` in ``lang`` then ``agentprompt apply --json`` of FAILING_DIFF,
    in-process: the exit status and the printed report."""
    main(["pack", "src/utils.ts", "--root", str(root), "--task", "parseJSON", "--lang", lang])
    reply = root.parent / "reply.md"
    reply.write_text(FAILING_DIFF, encoding="utf-8")
    capsys.readouterr()
    with pytest.raises(SystemExit) as done:
        main(["apply", str(reply), "--root", str(root), "--json"])
    return int(done.value.code or 0), json.loads(capsys.readouterr().out)


def test_a_reply_is_applied_with_the_session_language() -> None:
    assert reply_options(BridgeState(task="t", lang="ja"), partial=True).lang == "ja"
    assert reply_options(None, dry_run=True).lang == "en"


def test_a_japanese_session_quotes_japanese_feedback_in_the_next_prompt(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = _apply_in_session(example, "ja", capsys)
    assert code == 1
    opening = (
        "ブロック 1（パッチ: `src/utils.ts`、返答の 3 行目から）は適用されませんでした。"
        "理由: ハンク 1: 引用された行がファイル内に見つかりませんでした。"
    )
    text = data["bridge"]["prompt"]["text"]
    assert "## 前回の変更の結果\n前回の返答の変更ブロックのうち" in text
    assert opening in text
    # The chat holds the file: the short form quotes only the file's line that differs.
    assert "9 行目は実際には `export function parseJSON(str: string): unknown {` です。" in text
    assert "was not applied" not in text and "Block 1" not in text
    assert load_session(example)[1].feedback == data["feedback"]
    assert opening in data["feedback"]


def test_an_english_session_keeps_english_feedback(
    example: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, data = _apply_in_session(example, "en", capsys)
    assert code == 1
    text = data["bridge"]["prompt"]["text"]
    assert "Block 1 (a patch of `src/utils.ts`, reply line 3) was not applied" in text
    assert "ブロック" not in text
