"""What a reply's blocks do to a bridge session (seed 003's 拡張機能側の対応)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agentprompt.bridge.context import view_repository
from agentprompt.bridge.rounds import advance
from agentprompt.bridge.state import BridgeState, InvalidBridgeState
from agentprompt.edits.actions import Continue, Diagnostic, SwitchMode
from agentprompt.edits.apply import AppliedAction, ApplyReport


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
    with pytest.raises(InvalidBridgeState, match="agentprompt bridge reset"):
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
