"""The bridge session service: the one place a session is started, printed, advanced by a
reply, changed and cleared, whichever door asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.bridge import NoBridgeSession, find_session
from agentprompt.errors import UsageError
from agentprompt.services import (
    BridgeSessions,
    EmptyReply,
    PromptChoices,
    ReplyChoices,
    SessionInProgress,
    StartRequest,
    Workspace,
)

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"


@pytest.fixture
def sessions(example: Path) -> BridgeSessions:
    return BridgeSessions(Workspace(example))


@pytest.fixture
def reply() -> str:
    """examples/bridge/reply.md: two patches and a request for scripts/report.py."""
    return (EXAMPLE / "reply.md").read_text(encoding="utf-8")


def _start(sessions: BridgeSessions, **fields: object) -> None:
    sessions.start(StartRequest(task="Make parseJSON safe", **fields))  # type: ignore[arg-type]


def test_start_saves_a_session_with_the_prompt_sent(sessions: BridgeSessions) -> None:
    packed = sessions.start(StartRequest(task="Make parseJSON safe", paths=("src/utils.ts",)))
    assert packed.started and packed.state.mode == "edit"
    assert "src/utils.ts" in packed.prompt.shown_in_full
    assert packed.size.tokens == packed.prompt.tokens
    found = find_session(sessions.workspace.root)
    assert found is not None and found[1] == packed.state


def test_start_without_saving_leaves_the_session_in_progress_alone(
    sessions: BridgeSessions,
) -> None:
    _start(sessions)
    before = find_session(sessions.workspace.root)
    packed = sessions.start(StartRequest(task="Another task"), save=False)
    assert packed.state.task == "Another task"
    assert find_session(sessions.workspace.root) == before


def test_an_empty_task_names_the_task(sessions: BridgeSessions) -> None:
    with pytest.raises(UsageError) as caught:
        sessions.start(StartRequest(task="  "))
    assert caught.value.input == "task"
    assert caught.value.worded(lambda name: f"--{name}") == (
        "--task is empty; say what the model should do"
    )
    assert find_session(sessions.workspace.root) is None


def test_a_new_task_over_a_session_with_replies_needs_new(
    sessions: BridgeSessions, reply: str
) -> None:
    _start(sessions)
    sessions.apply(reply)
    with pytest.raises(SessionInProgress) as caught:
        _start(sessions)
    assert caught.value.rounds == 1
    assert "add --new to replace it" in caught.value.worded(lambda name: f"--{name}")
    _start(sessions, new=True)
    assert sessions.status()[1].rounds == 0


def test_current_keeps_the_choices_and_does_not_move_the_round(
    sessions: BridgeSessions,
) -> None:
    _start(sessions)
    first = sessions.current(PromptChoices(split_chars=2_000, lang="ja"))
    again = sessions.current()
    assert again.prompt.text == first.prompt.text
    assert again.state.split_chars == 2_000 and again.state.lang == "ja"
    assert again.state.rounds == 0 and not again.started


def test_current_without_a_session_says_how_to_start_one(sessions: BridgeSessions) -> None:
    with pytest.raises(NoBridgeSession):
        sessions.current()


def test_a_part_that_cannot_be_delivered_saves_nothing(sessions: BridgeSessions) -> None:
    def refuse(*_: object) -> None:
        raise UsageError("the part is out of range")

    with pytest.raises(UsageError):
        sessions.start(StartRequest(task="Make parseJSON safe"), before_save=refuse)
    assert find_session(sessions.workspace.root) is None


def test_apply_saves_the_next_round_before_returning(sessions: BridgeSessions, reply: str) -> None:
    _start(sessions)
    outcome = sessions.apply(reply)
    assert outcome.saved and outcome.round is not None
    assert outcome.written == ("src/index.ts", "src/utils.ts")
    saved = sessions.status()[1]
    assert saved == outcome.round.state
    assert saved.rounds == 1 and "scripts/report.py" in saved.files


def test_a_dry_run_saves_nothing_and_shows_the_next_prompt(
    sessions: BridgeSessions, reply: str
) -> None:
    _start(sessions)
    before = sessions.status()
    utils = (sessions.workspace.root / "src" / "utils.ts").read_text()
    outcome = sessions.apply(reply, ReplyChoices(dry_run=True))
    assert not outcome.saved and outcome.round is not None
    assert "scripts/report.py" in outcome.round.added
    assert sessions.status() == before
    assert (sessions.workspace.root / "src" / "utils.ts").read_text() == utils


def test_an_apply_outside_the_session_leaves_it_alone(sessions: BridgeSessions, reply: str) -> None:
    _start(sessions)
    before = sessions.status()
    outcome = sessions.apply(reply, session=False)
    assert outcome.round is None and outcome.report.written
    assert sessions.status() == before


def test_a_reply_with_nothing_to_apply_outside_a_session_writes_nothing(
    sessions: BridgeSessions,
) -> None:
    _start(sessions)
    with pytest.raises(EmptyReply) as caught:
        sessions.apply("Sure, here is what I would do.", session=False)
    assert "check the --dialect" in caught.value.worded(lambda name: f"--{name}")
    assert sessions.status()[1].rounds == 0


def test_add_and_drop_change_the_context(sessions: BridgeSessions) -> None:
    _start(sessions, mode="edit")
    added = sessions.add(["src/index.ts"])
    assert added.changed == ("src/index.ts",) and "src/index.ts" in added.state.files
    assert sessions.status()[1].files == added.state.files
    dropped = sessions.drop(["src/index.ts"])
    assert dropped.changed == ("src/index.ts",)
    assert "src/index.ts" not in sessions.status()[1].files


def test_reset_clears_the_session(sessions: BridgeSessions) -> None:
    _start(sessions)
    assert sessions.reset() == 1
    assert sessions.reset() == 0


def test_a_workspace_needs_a_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError) as caught:
        Workspace(tmp_path / "nowhere")
    assert caught.value.input == "root"
    assert caught.value.worded(lambda name: f"--{name}") == (
        f"--root {tmp_path / 'nowhere'} is not a directory (it does not exist); give the "
        "repository root"
    )


def test_a_workspace_takes_its_defaults_from_the_environment(example: Path) -> None:
    workspace = Workspace(example, environ={"LANG": "ja_JP.UTF-8", "AGENTPROMPT_WARN_TOKENS": "9"})
    assert workspace.config.lang == "ja" and workspace.config.warn_tokens == 9
    packed = BridgeSessions(workspace).start(StartRequest(task="t"))
    assert packed.state.lang == "ja" and packed.size.over
