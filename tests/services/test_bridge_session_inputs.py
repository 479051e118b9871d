"""The bridge session service takes the user's own input between rounds: a note, a
command's output, and a reply with nothing to apply as the model's answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentprompt.bridge import NoBridgeSession, find_session
from agentprompt.bridge.inputs import BadNote, CommandNotStarted
from agentprompt.errors import UsageError
from agentprompt.services import (
    BridgeSessions,
    EmptyReply,
    PromptChoices,
    ReplyChoices,
    StartRequest,
    Workspace,
)

EXAMPLE = Path(__file__).parents[2] / "examples" / "bridge"
ANSWER = "All done: parseJSON now returns null on bad input. Shall I add a test?"


@pytest.fixture
def sessions(example: Path) -> BridgeSessions:
    return BridgeSessions(Workspace(example))


@pytest.fixture
def reply() -> str:
    """examples/bridge/reply.md: two patches and a request for scripts/report.py."""
    return (EXAMPLE / "reply.md").read_text(encoding="utf-8")


def snapshot_tree(root: Path) -> dict[str, bytes]:
    """The repository's files (the session's own folder aside) and their bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".agentprompt" not in p.parts
    }


def _start(sessions: BridgeSessions) -> None:
    sessions.start(StartRequest(task="Make parseJSON safe", paths=("src/utils.ts",)))


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_note_goes_into_the_next_prompt_and_stays_until_a_reply_to_it(
    sessions: BridgeSessions, reply: str
) -> None:
    _start(sessions)
    added = sessions.note("Keep the public API unchanged.")
    assert added.state.waiting_input
    outcome = sessions.apply(reply)
    assert outcome.round is not None
    text = outcome.round.prompt.text
    assert "## Note from the user\nKeep the public API unchanged.\n" in text
    # Printing the current prompt again gives the same text, note included.
    assert sessions.current().prompt.text == text
    after = sessions.apply("<<<REQUEST_FILE: README.md>>>\n")
    assert after.round is not None and "Note from the user" not in after.round.prompt.text
    assert sessions.status()[1].notes == ()


def test_a_note_given_with_a_reply_goes_into_the_prompt_it_makes(
    sessions: BridgeSessions, reply: str
) -> None:
    _start(sessions)
    outcome = sessions.apply(reply, note="Use tabs.")
    assert outcome.round is not None
    assert "## Note from the user\nUse tabs.\n" in outcome.round.prompt.text


@pytest.mark.parametrize("note", ["", " \n ", "x\0y"], ids=["empty", "whitespace", "binary"])
def test_a_bad_note_changes_nothing(
    sessions: BridgeSessions, example: Path, reply: str, note: str
) -> None:
    _start(sessions)
    before = find_session(example)
    files = snapshot_tree(example)
    with pytest.raises(BadNote):
        sessions.note(note)
    with pytest.raises(BadNote):
        sessions.apply(reply, note=note)
    assert find_session(example) == before
    assert snapshot_tree(example) == files


def test_a_note_without_a_session_is_refused(sessions: BridgeSessions, reply: str) -> None:
    with pytest.raises(NoBridgeSession):
        sessions.note("hello")
    with pytest.raises(NoBridgeSession):
        sessions.apply(reply, note="hello")


def test_a_failing_command_goes_into_the_next_prompt(
    sessions: BridgeSessions, example: Path
) -> None:
    _start(sessions)
    code = "import sys; print('FAILED test_parse'); sys.exit(1)"
    added = sessions.run(_python(code))
    assert added.run is not None and added.run.status == 1
    text = sessions.current().prompt.text
    assert "Exit status 1.\n```\nFAILED test_parse\n```\n" in text
    assert "## Output of `" in text


def test_a_command_that_cannot_be_started_changes_nothing(
    sessions: BridgeSessions, example: Path
) -> None:
    _start(sessions)
    before = find_session(example)
    with pytest.raises(CommandNotStarted):
        sessions.run(["no-such-program-here"])
    assert find_session(example) == before


def test_a_command_is_not_run_without_a_session(sessions: BridgeSessions, example: Path) -> None:
    with pytest.raises(NoBridgeSession):
        sessions.run(_python("open('ran.txt', 'w').write('x')"))
    assert not (example / "ran.txt").exists()


@pytest.mark.parametrize(
    ("fields", "said"), [({"timeout": 0}, "timeout"), ({"max_tokens": 0}, "max_tokens")]
)
def test_a_bad_time_limit_or_budget_is_refused(
    sessions: BridgeSessions, example: Path, fields: dict[str, float], said: str
) -> None:
    _start(sessions)
    before = find_session(example)
    with pytest.raises(UsageError) as caught:
        sessions.run(_python("pass"), **fields)  # type: ignore[arg-type]
    assert caught.value.input == said
    assert find_session(example) == before


def test_a_prose_reply_is_the_models_answer(sessions: BridgeSessions, example: Path) -> None:
    _start(sessions)
    files = snapshot_tree(example)
    outcome = sessions.apply(ANSWER + "\n")
    assert outcome.answer is not None and outcome.round is None and outcome.saved
    state = sessions.status()[1]
    assert state.answer == ANSWER and state.rounds == 1
    assert snapshot_tree(example) == files
    # The next prompt holds what the user adds.
    sessions.note("Yes, add one.")
    text = sessions.current().prompt.text
    assert text.startswith("✏️ Current mode: edit\n")
    assert "## Note from the user\nYes, add one.\n" in text


def test_a_prose_reply_with_a_note_makes_the_next_prompt(sessions: BridgeSessions) -> None:
    _start(sessions)
    outcome = sessions.apply(ANSWER, note="Yes, add one.")
    assert outcome.answer is not None and outcome.round is not None
    assert "Yes, add one." in outcome.round.prompt.text
    assert sessions.current().prompt.text == outcome.round.prompt.text


def test_a_prose_reply_in_a_dry_run_changes_nothing(
    sessions: BridgeSessions, example: Path
) -> None:
    _start(sessions)
    before = find_session(example)
    outcome = sessions.apply(ANSWER, ReplyChoices(dry_run=True))
    assert outcome.answer is not None and outcome.answer.state.answer == ANSWER
    assert find_session(example) == before


@pytest.mark.parametrize("text", ["", "  \n\n\t"], ids=["empty", "whitespace"])
def test_an_empty_reply_is_refused_in_a_session(
    sessions: BridgeSessions, example: Path, text: str
) -> None:
    _start(sessions)
    before = find_session(example)
    with pytest.raises(EmptyReply):
        sessions.apply(text)
    assert find_session(example) == before


def test_the_restating_threshold_is_kept_for_the_session(sessions: BridgeSessions) -> None:
    sessions.start(StartRequest(task="t", choices=PromptChoices(restate_tokens=500)))
    assert sessions.status()[1].restate_tokens == 500
    sessions.current(PromptChoices(restate_tokens=0))
    assert sessions.status()[1].restate_tokens == 0
    with pytest.raises(UsageError) as caught:
        sessions.current(PromptChoices(restate_tokens=-1))
    assert caught.value.input == "restate_tokens"


def test_an_answers_round_can_be_undone(sessions: BridgeSessions) -> None:
    _start(sessions)
    before = sessions.status()[1]
    sessions.apply(ANSWER)
    undone = sessions.undo()
    assert undone.undone == 1
    assert sessions.status()[1] == before
