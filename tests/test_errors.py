"""Errors name the input at fault by its plain name, and each front door words them with its
own names for inputs."""

from __future__ import annotations

from agentprompt.errors import AgentPromptError, UsageError


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def test_a_usage_error_names_its_input_first_and_its_fix_last() -> None:
    exc = UsageError(
        "100 is too small", input="max_tokens", fix="raise {max_tokens}, or {exclude} files"
    )
    assert str(exc) == "max_tokens: 100 is too small; raise max_tokens, or exclude files"
    assert exc.worded(_flag) == (
        "--max-tokens: 100 is too small; raise --max-tokens, or --exclude files"
    )


def test_a_problem_that_names_its_input_is_not_prefixed_with_it() -> None:
    exc = UsageError("{task} is empty", input="task", fix="say what the model should do")
    assert exc.worded(_flag) == "--task is empty; say what the model should do"


def test_an_error_written_for_one_door_is_shown_as_it_is() -> None:
    exc = UsageError("give --split-chars or --split-tokens, not {both}")
    assert exc.worded(_flag) == str(exc) == "give --split-chars or --split-tokens, not {both}"
    assert AgentPromptError("plain").worded(_flag) == "plain"
