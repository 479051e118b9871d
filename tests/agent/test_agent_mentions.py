"""@agent_name in a user message delegates the rest of it to that agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentprompt.agent._mentions import find_mention, mention_call
from agentprompt.agent.placement import SystemText
from agentprompt.agent.session.driver import AgentSession
from agentprompt.agent.session.values import SessionConfig
from agentprompt.llm._testing import ScriptedModel
from agentprompt.tools.context import ToolContext
from agentprompt.tools.policy import ToolPolicy
from agentprompt.tools.registry import ToolRegistry, ToolSpec


def test_a_known_agent_tag_is_found_with_the_rest_as_task() -> None:
    mention = find_mention("@reviewer check the auth module", ["reviewer"])
    assert mention is not None
    assert (mention.agent_name, mention.task) == ("reviewer", "check the auth module")


def test_a_tag_in_the_middle_of_the_text_is_found() -> None:
    mention = find_mention("please ask @reviewer. to look at it", ["reviewer"])
    assert mention is not None and mention.task == "please ask . to look at it"


def test_unknown_tags_and_email_addresses_are_not_mentions() -> None:
    assert find_mention("@nobody do it", ["reviewer"]) is None
    assert find_mention("mail me at a@reviewer", ["reviewer"]) is None


def test_a_mention_becomes_an_agent_tool_call() -> None:
    mention = find_mention("@general fix it", ["general"])
    assert mention is not None
    call = mention_call(mention, "m1")
    assert call.name == "agent"
    assert json.loads(call.arguments) == {"task_prompt": "fix it", "agent_name": "general"}


def test_the_session_delegates_a_tagged_message_before_asking_the_model(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def agent(ctx: ToolContext, args: dict[str, Any]) -> str:
        seen.append(args)
        return "No problems found."

    registry = ToolRegistry(
        [ToolSpec(name="agent", description="Delegate.", parameters={}, handler=agent)]
    )
    model = ScriptedModel(["The reviewer found no problems."])
    session = AgentSession(
        client=model,
        root=tmp_path,
        system_prompt=lambda i: SystemText(head="R"),
        registry=registry,
    )
    session.agent_names = ("reviewer",)
    result = session.run_turn("@reviewer check auth")
    assert seen == [{"task_prompt": "check auth", "agent_name": "reviewer"}]
    assert result.text == "The reviewer found no problems."
    roles = [m.role for m in model.requests[0].messages]
    assert roles[:4] == ["system", "user", "assistant", "tool"]
    assert model.requests[0].messages[3].text == "No problems found."


def test_a_tag_is_not_delegated_when_the_policy_disables_the_agent_tool(tmp_path: Path) -> None:
    registry = ToolRegistry(
        [ToolSpec(name="agent", description="Delegate.", parameters={}, handler=lambda c, a: "x")]
    )
    model = ScriptedModel(["I cannot delegate here."])
    session = AgentSession(
        client=model,
        root=tmp_path,
        system_prompt=lambda i: SystemText(head="R"),
        registry=registry,
        config=SessionConfig(policy=ToolPolicy(disabled=frozenset({"agent"}))),
    )
    session.agent_names = ("reviewer",)
    session.run_turn("@reviewer check auth")
    assert [m.role for m in session.history] == ["user", "assistant"]
