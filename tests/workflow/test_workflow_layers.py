"""Each layer on its own: the mounts, the graph as source of truth, the tool policy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from agentprompt.prompts.loader import PromptLibrary
from agentprompt.workflow import ComposeInput
from agentprompt.workflow._agents import FsPolicy, McpPolicy, ToolSettings
from agentprompt.workflow._layers import base_runtime_rules, persona, tool_policy

MakeInput = Callable[..., ComposeInput]


def _with_tools(data: ComposeInput, tools: ToolSettings) -> ComposeInput:
    return replace(data, agent_definition=replace(data.agent_definition, tools=tools))


@pytest.mark.parametrize("mode", ["run", "agent", "chat"])
def test_base_rules_name_the_three_mounts_and_their_access(
    make_input: MakeInput, prompts: PromptLibrary, mode: str
) -> None:
    text = base_runtime_rules(make_input(mode), prompts)
    assert "- `@project` — the user's project." in text
    assert "`@pkg` — the workflow package" in text
    assert "It is read-only: never create, change or delete anything under `@pkg`." in text
    assert "- `@state` — the runtime's state directory. It is hidden" in text


@pytest.mark.parametrize("mode", ["run", "agent", "chat"])
def test_base_rules_make_the_graph_the_source_of_truth(
    make_input: MakeInput, prompts: PromptLibrary, mode: str
) -> None:
    text = base_runtime_rules(make_input(mode), prompts)
    assert "`@pkg/workflow.graph.json` is the source of truth" in text


def test_run_mode_uses_the_run_rules_and_the_other_modes_the_conversation_rules(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    run = base_runtime_rules(make_input("run"), prompts)
    agent = base_runtime_rules(make_input("agent"), prompts)
    assert "Work only on the current node named in the run directive." in run
    assert "outside any workflow run" in agent
    assert "outside any workflow run" not in run
    assert agent == base_runtime_rules(make_input("chat"), prompts)


def test_tool_policy_grants_read_and_write_with_the_agents_read_limit(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    text = tool_policy(make_input("run"), prompts)
    assert text.startswith('<tool-policy agent="analyst">\n')
    assert "## File system (fs): enabled, read and write" in text
    assert "One read returns at most 131072 bytes (`maxReadBytes`)." in text
    assert "## MCP: disabled" in text
    assert text.endswith("</tool-policy>")


def test_tool_policy_of_a_read_only_agent_forbids_writes_and_lists_its_mcp_servers(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    text = tool_policy(make_input("agent", agent="reviewer"), prompts)
    assert "## File system (fs): enabled, read only" in text
    assert "Do not create, change, move or delete any file." in text
    assert "One read returns at most 65536 bytes" in text
    assert "## MCP: enabled for these servers only\n- `issue-tracker`\n" in text


def test_tool_policy_with_fs_disabled_forbids_every_file_tool(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    data = _with_tools(make_input("chat"), ToolSettings(fs=FsPolicy(enabled=False)))
    text = tool_policy(data, prompts)
    assert "## File system (fs): disabled" in text
    assert "maxReadBytes" not in text


def test_tool_policy_with_mcp_enabled_and_no_server_list_allows_every_server(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    data = _with_tools(make_input("chat"), ToolSettings(mcp=McpPolicy(enabled=True)))
    assert "## MCP: enabled, every server" in tool_policy(data, prompts)


def test_persona_is_rendered_from_identity_principles_and_style(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    text = persona(make_input("agent"), prompts)
    assert text.startswith('<persona agent="analyst">\nYou are 📊 Mary, Business Analyst.')
    assert "## Identity\nSenior analyst" in text
    assert "## Communication style\nCurious and structured." in text
    assert "## Principles\n- Every requirement traces back" in text


def test_an_agent_without_an_icon_is_named_without_one(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    data = make_input("agent")
    data = replace(data, agent_definition=replace(data.agent_definition, icon=None))
    assert "You are Mary, Business Analyst." in persona(data, prompts)
