"""Errors name their inputs plainly and each front door words them its own way: the
command line as flags and commands, the page as params, ``str()`` by their plain names."""

from __future__ import annotations

from pathlib import Path

from agentprompt.cli._output import flag_name
from agentprompt.errors import AgentPromptError, NotADirectory, UsageError, literal


def test_a_usage_error_names_the_input_first_then_the_problem_then_the_fix() -> None:
    error = UsageError("it is too small", input="max_tokens", fix="raise {max_tokens}")
    assert str(error) == "max_tokens: it is too small; raise max_tokens"
    assert error.worded(flag_name) == "--max-tokens: it is too small; raise --max-tokens"
    assert (error.problem, error.input, error.fix) == (
        "it is too small",
        "max_tokens",
        "raise {max_tokens}",
    )


def test_any_error_may_name_a_command_in_its_fix() -> None:
    error = AgentPromptError("a journal was left", fix="run '{recover}' first")
    assert str(error) == "a journal was left; run 'recover' first"
    assert error.worded(flag_name) == "a journal was left; run 'agentprompt apply --recover' first"


def test_an_error_may_name_inputs_inside_its_message() -> None:
    error = AgentPromptError("start afresh ({start_session} starts a session)", names=True)
    assert str(error) == "start afresh (start_session starts a session)"
    assert error.worded(flag_name) == "start afresh (agentprompt pack --task TEXT starts a session)"


def test_an_error_naming_no_input_is_shown_as_it_is() -> None:
    error = UsageError("param {x} is {odd}")
    assert str(error) == error.worded(flag_name) == "param {x} is {odd}"


def test_quoted_text_is_never_read_as_an_input() -> None:
    error = UsageError(f"{literal(repr('{src}/'))} matches nothing", fix="check {include}")
    assert str(error) == "'{src}/' matches nothing; check include"
    assert error.worded(flag_name) == "'{src}/' matches nothing; check --include"


def test_a_root_that_is_not_a_folder_is_one_error(tmp_path: Path) -> None:
    file = tmp_path / "f"
    file.write_text("x")
    error = NotADirectory(file)
    assert error.root == file
    assert str(error) == f"{file} is not a directory; give the repository's folder as the root"


def test_a_problem_that_names_its_own_input_is_not_prefixed_with_it() -> None:
    exc = UsageError("{task} is empty", input="task", fix="say what the model should do")
    assert str(exc) == "task is empty; say what the model should do"
    assert exc.worded(flag_name) == "--task is empty; say what the model should do"
