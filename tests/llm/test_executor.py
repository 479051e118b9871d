"""Seed 000's execute_prompt on a chat client: model by mode, JSON parsed when asked for."""

from __future__ import annotations

import pytest

from agentprompt.llm import (
    ClientPromptExecutor,
    ModelReply,
    ModelRequest,
    PromptExecutor,
    ScriptedModel,
)
from agentprompt.messages import Message


def executor(*answers: str) -> tuple[ClientPromptExecutor, ScriptedModel]:
    """An executor with a fast and a smart model over a scripted client."""
    client = ScriptedModel(answers)
    return ClientPromptExecutor(client=client, fast_model="f", smart_model="s"), client


def test_fast_mode_sends_one_user_message_to_the_fast_model() -> None:
    run, client = executor("{}")
    run.execute_prompt("pick files", mode="fast", response_shape="json")
    assert client.requests == [
        ModelRequest(
            messages=(Message(role="user", content="pick files"),),
            model="f",
            mode="fast",
            response_shape="json",
        )
    ]


@pytest.mark.parametrize("mode", ["smart", "thorough"])
def test_any_other_mode_uses_the_smart_model(mode: str) -> None:
    run, client = executor("{}")
    run.execute_prompt("plan it", mode=mode)
    assert client.requests[0].model == "s"
    assert client.requests[0].mode == "smart"


def test_the_defaults_are_fast_mode_and_a_json_reply() -> None:
    run, client = executor('{"done": true}')
    assert run.execute_prompt("p") == {"done": True}
    assert client.requests[0].model == "f"
    assert client.requests[0].response_shape == "json"


def test_a_json_reply_is_parsed_into_an_object() -> None:
    run, _ = executor('{"done": false, "files": ["a.py", "b.py"], "reason": "need more"}')
    assert run.execute_prompt("p", mode="fast", response_shape="json") == {
        "done": False,
        "files": ["a.py", "b.py"],
        "reason": "need more",
    }


def test_a_json_array_reply_is_parsed_too() -> None:
    run, _ = executor('["a.py"]')
    assert run.execute_prompt("p") == ["a.py"]


def test_a_reply_that_is_not_json_is_returned_unchanged() -> None:
    text = 'Here you go: {"done": true}'
    run, _ = executor(text)
    assert run.execute_prompt("p", mode="fast", response_shape="json") == text


def test_a_text_shape_never_parses_the_reply() -> None:
    run, client = executor('{"done": true}')
    assert run.execute_prompt("p", response_shape="text") == '{"done": true}'
    assert client.requests[0].response_shape == "text"


def test_without_model_names_the_clients_default_is_used() -> None:
    client = ScriptedModel(["ok", "ok"])
    run = ClientPromptExecutor(client=client)
    run.execute_prompt("a", mode="fast")
    run.execute_prompt("b", mode="smart")
    assert [r.model for r in client.requests] == [None, None]


def test_only_the_reply_text_is_returned() -> None:
    client = ScriptedModel([ModelReply(text="42", stop_reason="end_turn", model="f")])
    assert ClientPromptExecutor(client=client).execute_prompt("p") == 42


def test_a_client_error_reaches_the_caller() -> None:
    run = ClientPromptExecutor(client=ScriptedModel([ConnectionError("offline")]))
    with pytest.raises(ConnectionError, match="offline"):
        run.execute_prompt("p")


def test_the_executor_is_a_prompt_executor() -> None:
    assert isinstance(ClientPromptExecutor(client=ScriptedModel()), PromptExecutor)
