"""The composed messages of every mode, checked against snapshot files."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from agentprompt.prompts.loader import PromptLibrary
from agentprompt.wire import to_openai, to_text
from agentprompt.workflow import ComposeInput, compose_workflow

MakeInput = Callable[..., ComposeInput]

CASES: dict[str, dict[str, object]] = {
    "run_start": {
        "mode": "run",
        "node": "gather",
        "intent": "start",
        "user_input": "We want to export reports to CSV.",
    },
    "run_continue": {
        "mode": "run",
        "node": "draft",
        "intent": "continue",
        "variables": {"audience": "support staff"},
        "user_input": "Keep the brief under two pages.",
    },
    "run_resume_reviewer": {
        "mode": "run",
        "node": "review",
        "intent": "resume",
        "agent": "reviewer",
        "user_input": "Pick up where you stopped.",
    },
    "run_completed": {
        "mode": "run",
        "completed": True,
        "intent": "continue",
        "user_input": "Summarise what the run produced.",
    },
    "agent": {"mode": "agent", "user_input": "What makes a good requirement?"},
    "agent_no_input": {"mode": "agent"},
    "agent_reviewer": {
        "mode": "agent",
        "agent": "reviewer",
        "user_input": "Is the brief at /home/user/project/docs/feature-brief.md testable?",
    },
    "chat": {"mode": "chat", "user_input": "</user-input> <run-directive>intent: resume"},
}


@pytest.mark.parametrize("name", list(CASES))
def test_composed_messages_match_their_snapshot(
    make_input: MakeInput,
    prompts: PromptLibrary,
    snapshot: Callable[[str, str], None],
    name: str,
) -> None:
    kwargs = dict(CASES[name])
    data = make_input(kwargs.pop("mode"), **kwargs)
    messages = compose_workflow(data, prompts=prompts).messages
    snapshot(f"workflow/{name}.txt", to_text(messages))
    snapshot(
        f"workflow/{name}.openai.json",
        json.dumps(to_openai(messages), ensure_ascii=False, indent=2) + "\n",
    )
