"""The user's input to a bridge session's next prompt: notes, a command's output (trimmed,
screened, timed), and when a follow-up states the task again."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from agentprompt.bridge._render import render_inputs
from agentprompt.bridge.inputs import (
    BadNote,
    CommandNotStarted,
    CommandRun,
    UserNote,
    check_note,
    run_command,
    trim_output,
)
from agentprompt.bridge.state import DEFAULT_RESTATE_TOKENS, BridgeState
from agentprompt.tokens import shared_counter


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("", "is empty"),
        ("  \n\t ", "holds only whitespace"),
        ("a\0b", "holds NUL bytes"),
        ("caf\udce9", "is not UTF-8 text"),
    ],
    ids=["empty", "whitespace", "nul", "undecodable"],
)
def test_a_note_that_says_nothing_or_is_not_text_is_refused(text: str, said: str) -> None:
    with pytest.raises(BadNote) as caught:
        check_note(text)
    assert said in caught.value.worded(lambda name: name)


def test_a_note_keeps_its_words_without_the_blank_lines_around_them() -> None:
    assert check_note("\n  Use the logger, not print.  \n\n") == "  Use the logger, not print."


def test_short_output_is_kept_whole() -> None:
    assert trim_output("one\ntwo\n", 100) == ("one\ntwo\n", 0, 0)


def test_long_output_keeps_the_head_and_the_tail_and_says_what_was_cut() -> None:
    text = "".join(f"line {i}\n" for i in range(1000))
    kept, lines, tokens = trim_output(text, 300)
    assert kept.startswith("line 0\nline 1\n") and kept.endswith("line 998\nline 999\n")
    assert f"[... {lines} lines ({tokens} tokens) cut from the middle ...]" in kept
    assert 0 < lines < 1000
    count = shared_counter().count
    assert count(kept) <= 300 + count(kept.split("\n")[0]) + 20
    assert tokens == sum(count(f"line {i}\n") for i in range(1000) if f"line {i}\n" not in kept)


def test_a_failing_command_gives_its_output_and_status(tmp_path: Path) -> None:
    code = "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"
    ran = run_command(tmp_path, [sys.executable, "-c", code])
    assert ran.status == 3 and not ran.timed_out
    assert "out\n" in ran.output and "err\n" in ran.output


def test_a_command_runs_in_the_root(tmp_path: Path) -> None:
    ran = run_command(tmp_path, [sys.executable, "-c", "import os; print(os.getcwd())"])
    assert ran.output.strip() == str(tmp_path)


def test_a_command_past_its_time_limit_is_killed_and_that_is_said(tmp_path: Path) -> None:
    code = "import time; print('started', flush=True); time.sleep(30)"
    ran = run_command(tmp_path, [sys.executable, "-c", code], timeout=0.5)
    assert ran.timed_out and ran.status is None and ran.seconds < 10
    assert "started" in ran.output
    text = render_inputs((), (ran,), "en")
    assert "Stopped after 0.5 s (the time limit); its output up to then:" in text


def test_a_command_that_cannot_be_started_is_refused(tmp_path: Path) -> None:
    with pytest.raises(CommandNotStarted) as caught:
        run_command(tmp_path, ["no-such-program-here", "x"])
    assert "no-such-program-here" in caught.value.worded(lambda name: name)


def test_a_line_that_looks_like_a_secret_is_held_back(tmp_path: Path) -> None:
    code = "print('before'); print('aws_key = AKIAIOSFODNN7EXAMPLE'); print('after')"
    ran = run_command(tmp_path, [sys.executable, "-c", code])
    assert "AKIAIOSFODNN7EXAMPLE" not in ran.output
    assert "before\n[line held back: it looks like a secret (AWS Access Key)]\nafter" in ran.output
    assert ran.held == ("AWS Access Key",)


def test_a_private_key_holds_back_the_whole_output(tmp_path: Path) -> None:
    key = "-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA\\n-----END RSA PRIVATE KEY-----"
    ran = run_command(tmp_path, [sys.executable, "-c", f"print('{key}')"])
    assert "MIIEpAIBAAKCAQEA" not in ran.output
    assert ran.output.startswith("[the output was held back: it holds a likely secret")


def test_a_command_line_holding_a_secret_is_not_shown(tmp_path: Path) -> None:
    ran = run_command(tmp_path, [sys.executable, "-c", "pass", "AKIAIOSFODNN7EXAMPLE"])
    assert "AKIAIOSFODNN7EXAMPLE" not in ran.command
    assert "AKIAIOSFODNN7EXAMPLE" not in render_inputs((), (ran,), "en")


def test_inputs_render_runs_then_notes() -> None:
    run = CommandRun(command="pytest -q", status=1, timeout=120, output="1 failed\n")
    text = render_inputs((UserNote(text="a"), UserNote(text="b")), (run,), "en")
    assert text == (
        "\n## Output of `pytest -q`\nExit status 1.\n```\n1 failed\n```\n"
        "\n## Note from the user\na\n\nb\n"
    )


def test_the_state_keeps_notes_and_runs_through_json() -> None:
    run = CommandRun(command="make", status=None, timeout=5, output="x", cut_lines=2, held=("k",))
    state = BridgeState(task="t").with_note("hello").with_run(run)
    assert BridgeState.from_json(state.to_json()) == state


def test_notes_and_runs_stay_with_the_prompt_that_holds_them_until_a_reply() -> None:
    run = CommandRun(command="make", status=0, timeout=5, output="")
    state = BridgeState(task="t", rounds=1).with_note("first").with_run(run)
    assert state.waiting_input
    made = state.after_prompt((), ())
    assert not made.waiting_input and len(made.notes) == 1 and len(made.runs) == 1
    later = made.with_note("second")
    replied = later.with_reply()
    assert [n.text for n in replied.notes] == ["second"] and replied.runs == ()


def test_a_run_of_the_same_command_replaces_the_one_not_yet_sent() -> None:
    one = CommandRun(command="pytest", status=1, timeout=5, output="1 failed")
    two = replace(one, status=0, output="passed")
    state = BridgeState(task="t").with_run(one).with_run(two)
    assert state.runs == (two,)


def test_the_task_is_restated_once_the_chat_has_read_the_threshold() -> None:
    state = BridgeState(task="t", rounds=1)
    assert not state.restates_task
    # A whole prompt states the task at its head: all of its tokens come after it.
    read = state.after_prompt((), (), task=(True, DEFAULT_RESTATE_TOKENS - 100)).with_reply(99)
    assert read.since_task == DEFAULT_RESTATE_TOKENS - 1 and not read.restates_task
    more = read.after_prompt((), (), task=(False, 50)).with_reply(0)
    assert more.since_task == DEFAULT_RESTATE_TOKENS + 49 and more.restates_task
    # A follow-up that restates it last: the count starts again after it.
    again = more.after_prompt((), (), task=(True, 0)).with_reply(30)
    assert again.since_task == 30 and not again.restates_task
    assert replace(again, restate_tokens=0).restates_task


def test_binary_output_reaches_the_prompt_as_text(tmp_path: Path) -> None:
    code = "import sys; sys.stdout.buffer.write(b'ok\\x00\\xff\\n')"
    ran = run_command(tmp_path, [sys.executable, "-c", code])
    assert ran.output == "ok\ufffd\ufffd\n"


def test_a_command_of_several_lines_is_one_heading_line() -> None:
    ran = CommandRun(command="python3 -c 'a = 1\nprint(`a`)'", status=0, timeout=5, output="1\n")
    text = render_inputs((), (ran,), "en")
    heading = text.strip().split("\n")[0]
    assert heading == "## Output of `` python3 -c 'a = 1\\nprint(`a`)' ``"
