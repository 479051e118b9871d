"""Commit messages: the prompt, the format checks, cleanup and one re-ask (scripted model)."""

from __future__ import annotations

import pytest

from agentprompt.commitmsg import (
    clean_commit_message,
    commit_messages,
    commit_problems,
    get_commit_message,
)
from agentprompt.errors import UsageError
from agentprompt.llm import ScriptedModel

DIFF = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-A = 1\n+A = 2\n"


def test_request_is_the_commit_system_prompt_and_the_diff() -> None:
    system, user = commit_messages(DIFF)
    assert system.role == "system" and "<type>: <subject>" in system.text
    for rule in ("imperative", "50 characters", "72 characters", "commit message only"):
        assert rule in system.text
    assert user.role == "user" and user.text.endswith("+A = 2")


def test_commit_prompt_is_not_the_agent_system_prompt() -> None:
    system, _ = commit_messages(DIFF)
    assert "EDIT/REPL" not in system.text


def test_empty_diff_is_refused_with_an_instruction() -> None:
    with pytest.raises(UsageError, match="git add"):
        commit_messages("  \n")


def test_well_formed_message_has_no_problems() -> None:
    assert commit_problems("fix: handle empty input\n\nThe parser crashed on an empty file.") == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("handle empty input", "does not start with '<type>: '"),
        ("bugfix: handle empty input", "not a conventional type"),
        ("fix: " + "x" * 50, "the limit is 50"),
        ("fix: a\nbody right after", "not followed by a blank line"),
        ("fix: a\n\n" + "word " * 20, "longer than 72"),
        ("fix: ", "subject after the type is empty"),
        ("", "empty"),
    ],
)
def test_each_format_fault_is_named(text: str, problem: str) -> None:
    assert any(problem in p for p in commit_problems(text))


def test_cleanup_removes_the_fence_lowers_the_type_and_adds_the_blank_line() -> None:
    reply = "Here is the message:\n```\nFix: handle empty input.\nBody line.\n```"
    text, done = clean_commit_message(reply)
    assert text == "fix: handle empty input\n\nBody line."
    assert done == (
        "removed the markdown fence (and any text around it)",
        "wrote the type in lower case",
        "removed the full stop after the subject",
        "added the blank line after the subject",
    )


def test_cleanup_removes_a_preamble_and_quotes() -> None:
    text, done = clean_commit_message("Sure! Here it is:\n'docs: explain tiers'")
    assert text == "docs: explain tiers"
    assert done == (
        "removed the text before the subject line",
        "removed the quotes around the message",
    )


def test_cleanup_wraps_the_body_at_72() -> None:
    text, done = clean_commit_message("feat: add x\n\n" + "word " * 30)
    assert all(len(line) <= 72 for line in text.split("\n"))
    assert done == ("wrapped the body at 72 characters",)


def test_good_reply_is_accepted_as_is() -> None:
    model = ScriptedModel(["feat: add tiers\n\nTrack stability per item."])
    result = get_commit_message(DIFF, model)
    assert (result.action, result.text) == (
        "accepted",
        "feat: add tiers\n\nTrack stability per item.",
    )
    assert len(model.requests) == 1


def test_repairable_reply_is_cleaned_without_asking_again() -> None:
    model = ScriptedModel(['"feat: add tiers."'])
    result = get_commit_message(DIFF, model)
    assert (result.action, result.text) == ("cleaned", "feat: add tiers")
    assert len(model.requests) == 1


def test_broken_reply_is_asked_again_once_with_the_problems() -> None:
    model = ScriptedModel(["I updated the constant.", "fix: update the constant"])
    result = get_commit_message(DIFF, model)
    assert (result.action, result.text) == ("reasked", "fix: update the constant")
    retry = model.requests[1].messages
    assert retry[-2].text == "I updated the constant."
    assert "does not start with '<type>: '" in retry[-1].text


def test_still_broken_after_one_reask_is_reported_not_asked_a_third_time() -> None:
    model = ScriptedModel(["nope", "still nope", "never used"])
    result = get_commit_message(DIFF, model)
    assert result.action == "invalid" and result.problems
    assert model.remaining == 1
