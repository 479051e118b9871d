"""``apply --note``, ``bridge note`` and ``bridge run`` add the user's input to the next
prompt; ``apply`` of a reply with nothing to apply shows and records the model's answer."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Result, snapshot_tree

Run = Callable[..., Result]

ASK = "<<<REQUEST_FILE: scripts/report.py>>>\n"
ANSWER = "Done: parseJSON is safe now. Do you want a test for it?\n"


def _reply(tmp_path: Path, text: str, name: str = "reply.md") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _start(run: Run, root: Path) -> None:
    first = run("pack", "src/utils.ts", "--root", str(root), "--task", "Make parseJSON safe")
    assert first.code == 0, first.err


def _status(run: Run, root: Path) -> str:
    return run("bridge", "status", "--root", str(root), "--json").out


def _files(root: Path) -> dict[str, bytes]:
    """The repository's files, the session's own folder aside."""
    return {k: v for k, v in snapshot_tree(root).items() if not k.startswith(".agentprompt")}


def _refused(run: Run, root: Path, *args: str) -> Result:
    """Run ``args`` and check it is bad input that changed no file and no session."""
    files = snapshot_tree(root)
    status = _status(run, root)
    result = run(*args)
    assert result.code == 2, result.out + result.err
    assert "Traceback" not in result.err
    assert snapshot_tree(root) == files
    assert _status(run, root) == status
    return result


def test_apply_note_adds_the_users_words_to_the_next_prompt(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    result = run("apply", _reply(tmp_path, ASK), "--root", str(example), "--note", "Be brief.")
    assert result.code == 0, result.err
    assert "## Note from the user\nBe brief.\n" in clipboard[-1]


@pytest.mark.parametrize("note", ["", "   "], ids=["empty", "whitespace"])
def test_apply_with_a_bad_note_changes_nothing(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str], note: str
) -> None:
    _start(run, example)
    reply = _reply(tmp_path, "<<<DELETE: scripts/report.py>>>\n")
    result = _refused(run, example, "apply", reply, "--root", str(example), "--note", note)
    assert "the note" in result.err


def test_bridge_note_is_pending_until_the_next_prompt_is_made(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    added = run("bridge", "note", "Keep the API.", "--root", str(example))
    assert added.code == 0 and "agentprompt pack" in added.out
    status = run("bridge", "status", "--root", str(example)).out
    assert "note (pending, for the next prompt): Keep the API." in status
    printed = run("pack", "--root", str(example))
    assert "## Note from the user\nKeep the API.\n" in printed.out
    status = run("bridge", "status", "--root", str(example)).out
    assert "note (in the current prompt): Keep the API." in status


@pytest.mark.parametrize(
    ("stdin", "said"),
    [(b"  \n", "holds only whitespace"), (b"a\x00b", "NUL"), (b"\xff\xfe", "not UTF-8")],
    ids=["whitespace", "nul", "undecodable"],
)
def test_bridge_note_refuses_a_note_that_is_not_words(
    run: Run,
    example: Path,
    clipboard: list[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: bytes,
    said: str,
) -> None:
    _start(run, example)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    result = _refused(run, example, "bridge", "note", "-", "--root", str(example))
    assert said in result.err and len(result.err.strip().splitlines()) == 1


def test_bridge_run_puts_a_failing_commands_output_in_the_next_prompt(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    code = "import sys; print('1 failed'); print('boom', file=sys.stderr); sys.exit(1)"
    result = run("bridge", "run", "--root", str(example), "--", sys.executable, "-c", code)
    assert result.code == 0, result.err
    assert "exit status 1" in result.out
    printed = run("pack", "--root", str(example)).out
    assert "Exit status 1.\n```\n1 failed\nboom\n```\n" in printed


def test_bridge_run_json_reports_the_run(run: Run, example: Path, clipboard: list[str]) -> None:
    _start(run, example)
    code = "print('x' * 10)"
    result = run(
        "bridge", "run", "--root", str(example), "--json", "--", sys.executable, "-c", code
    )
    data = json.loads(result.out)
    assert data["run"]["status"] == 0 and data["run"]["output"] == "x" * 10 + "\n"
    assert data["runs"][0]["in_prompt"] is False


def test_bridge_run_kills_a_command_at_its_time_limit(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    code = "import time; time.sleep(30)"
    args = ("--timeout", "0.5", "--", sys.executable, "-c", code)
    result = run("bridge", "run", "--root", str(example), *args)
    assert result.code == 0 and "stopped at the time limit (0.5 s)" in result.out
    assert "Stopped after 0.5 s (the time limit)" in run("pack", "--root", str(example)).out


def test_bridge_run_of_a_missing_program_changes_nothing(
    run: Run, example: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    result = _refused(run, example, "bridge", "run", "--root", str(example), "no-such-program")
    assert "COMMAND no-such-program cannot be started" in result.err


def test_a_prose_reply_is_shown_and_recorded_with_what_to_do_next(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    files = _files(example)
    copied = len(clipboard)
    result = run("apply", _reply(tmp_path, ANSWER), "--root", str(example))
    assert result.code == 0, result.err
    assert ANSWER.strip() in result.out
    assert "Next: answer it with agentprompt bridge note" in result.out
    assert len(clipboard) == copied  # no prompt is made until the user adds something
    assert _files(example) == files
    state = json.loads(_status(run, example))
    assert state["answer"] == ANSWER.strip() and state["rounds"] == 1


def test_a_prose_reply_in_json_has_the_answer(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    result = run("apply", _reply(tmp_path, ANSWER), "--root", str(example), "--json")
    data = json.loads(result.out)
    assert result.code == 0 and data["answer"] == ANSWER.strip()
    assert data["bridge"]["prompt"] is None and data["bridge"]["saved"] is True
    assert "bridge note" in data["next"]


def test_a_prose_reply_with_a_note_delivers_the_next_prompt(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    reply = _reply(tmp_path, ANSWER)
    result = run("apply", reply, "--root", str(example), "--note", "Yes, add one.")
    assert result.code == 0, result.err
    assert "## Note from the user\nYes, add one.\n" in clipboard[-1]


def test_a_whitespace_reply_is_still_bad_input(
    run: Run, example: Path, tmp_path: Path, clipboard: list[str]
) -> None:
    _start(run, example)
    _refused(run, example, "apply", _reply(tmp_path, "\n  \n"), "--root", str(example))
