"""Seed 002's scenarios: the layers of each mode, in order, with their content."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from agentprompt.errors import UsageError
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.sections import Stability
from agentprompt.workflow import ComposeInput, RunState, compose_workflow
from agentprompt.workflow._markers import unwrap_user_input

MakeInput = Callable[..., ComposeInput]


def _ids(data: ComposeInput, prompts: PromptLibrary) -> list[str]:
    return [s.id for s in compose_workflow(data, prompts=prompts).sections]


def _user(data: ComposeInput, prompts: PromptLibrary) -> str:
    messages = compose_workflow(data, prompts=prompts).messages
    return "\n\n".join(m.text for m in messages if m.role == "user")


def _system(data: ComposeInput, prompts: PromptLibrary) -> str:
    return compose_workflow(data, prompts=prompts).messages[0].text


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"mode": "run"},
            [
                "base_runtime_rules",
                "tool_policy",
                "persona",
                "run_directive",
                "node_brief",
                "user_input",
            ],
        ),
        (
            {"mode": "run", "completed": True},
            ["base_runtime_rules", "tool_policy", "persona", "run_directive", "user_input"],
        ),
        ({"mode": "agent"}, ["base_runtime_rules", "tool_policy", "persona", "user_input"]),
        ({"mode": "chat"}, ["base_runtime_rules", "tool_policy", "user_input"]),
    ],
)
def test_each_mode_has_its_layers_in_the_fixed_order(
    make_input: MakeInput, prompts: PromptLibrary, kwargs: dict[str, object], expected: list[str]
) -> None:
    data = make_input(**kwargs, user_input="Hello.")
    assert _ids(data, prompts) == expected


def test_system_layers_are_cached_and_user_layers_change_per_turn(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    comp = compose_workflow(make_input("run", user_input="Hello."), prompts=prompts)
    assert [m.role for m in comp.messages] == ["system", "user"]
    stability = {s.id: s.stability for s in comp.sections}
    assert stability["base_runtime_rules"] is Stability.SESSION
    assert stability["persona"] is Stability.SESSION
    assert stability["run_directive"] is Stability.TURN
    assert comp.breakpoints == (0,)


def test_start_run_states_intent_start_and_briefs_the_entry_node(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("run", node="gather", intent="start"), prompts)
    assert "intent: start\n" in user
    assert "currentNodeId: gather\n" in user
    assert "at its entry node `gather`" in user
    assert '<node-brief nodeId="gather">\n# Current step: Gather requirements\n' in user
    assert "Step file: @pkg/steps/01-gather.md" in user
    assert "- to `draft` — requirements agreed; when: the user has confirmed" in user
    assert '<step-file path="@pkg/steps/01-gather.md">\n# Gather requirements\n' in user


def test_continue_run_states_intent_continue_and_briefs_the_new_node(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("run", node="draft", intent="continue"), prompts)
    assert "intent: continue\n" in user
    assert "currentNodeId: draft\n" in user
    assert "The run has moved on to node `draft`." in user
    assert '<node-brief nodeId="draft">\n# Current step: Draft the brief\n' in user
    assert (
        "- `review-notes` — Findings of an earlier review (@project/docs/review-notes.md) "
        "(optional)" in user
    )
    assert "Gather requirements" not in user


def test_resume_run_asks_to_check_the_state_before_continuing(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("run", node="review", intent="resume"), prompts)
    assert "intent: resume\n" in user
    assert "was interrupted at node `review`" in user
    assert "read @state/run.json" in user


def test_run_directive_points_at_the_aliased_graph_and_state(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("run"), prompts)
    assert "graph: @pkg/workflow.graph.json\nstate: @state/run.json\n" in user


def test_a_node_without_outgoing_edges_says_the_run_ends_there(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    data = make_input("run", node="review")
    brief = data.node_brief
    assert brief is not None
    user = _user(replace(data, node_brief=replace(brief, transitions=())), prompts)
    assert "None: this node ends the workflow." in user


def test_run_variables_are_shown_in_the_directive(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("run", variables={"audience": "support staff"}), prompts)
    assert (
        "## Run variables\nValues collected earlier in this run:\n"
        '```json\n{\n  "audience": "support staff"\n}\n```' in user
    )


def test_system_prompt_overrides_the_rendered_persona(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    system = _system(make_input("agent", agent="reviewer"), prompts)
    assert '<persona agent="reviewer">\nYou are Quinn, the brief reviewer.' in system
    assert "## Principles" not in system
    assert "Critical reviewer of product briefs" not in system


def test_post_completion_has_the_post_run_protocol_and_no_node_or_step(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    data = make_input("run", completed=True, user_input="What did we decide?")
    user = _user(data, prompts)
    assert "status: completed\n\n## Post-Run Protocol\n" in user
    assert "currentNodeId:" not in user
    assert "<node-brief" not in user
    assert "<step-file" not in user
    assert "forNodeId" not in user
    assert unwrap_user_input(user[user.index("<user-input") :]).for_node_id is None


def test_user_input_in_an_active_run_is_bound_to_the_current_node(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("run", node="draft", user_input="Keep it short."), prompts)
    block = user[user.index("<user-input") :]
    assert unwrap_user_input(block).for_node_id == "draft"
    assert unwrap_user_input(block).text == "Keep it short."


@pytest.mark.parametrize("agent", [None, "reviewer"])
def test_chat_never_has_a_persona_but_keeps_the_agents_tool_policy(
    make_input: MakeInput, prompts: PromptLibrary, agent: str | None
) -> None:
    system = _system(make_input("chat", agent=agent, user_input="Hi"), prompts)
    assert "<persona" not in system
    expected = agent or "analyst"
    assert f'<tool-policy agent="{expected}">' in system


def test_chat_uses_the_task_format_even_when_the_agent_has_a_template(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("chat", agent="reviewer", user_input="Hi"), prompts)
    assert user.startswith("## Task\n<user-input boundary=")


def test_an_agents_user_template_presents_the_input(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("run", node="review", agent="reviewer", user_input="Go"), prompts)
    assert '\n\nReview request for step review:\n<user-input forNodeId="review" boundary=' in user
    assert "## Task" not in user


def test_a_missing_user_template_falls_back_to_the_task_format(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    user = _user(make_input("agent", user_input="Draft a brief for CSV export."), prompts)
    assert user.startswith("## Task\n<user-input boundary=")
    assert "\nDraft a brief for CSV export.\n</user-input boundary=" in user


@pytest.mark.parametrize("text", ["", "   ", "\n\t\n"])
@pytest.mark.parametrize("mode", ["run", "agent", "chat"])
def test_empty_user_input_adds_no_layer(
    make_input: MakeInput, prompts: PromptLibrary, text: str, mode: str
) -> None:
    ids = _ids(make_input(mode, user_input=text), prompts)
    assert "user_input" not in ids


def test_agent_and_chat_with_empty_input_send_only_the_system_message(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    comp = compose_workflow(make_input("agent"), prompts=prompts)
    assert [m.role for m in comp.messages] == ["system"]


def test_a_run_that_is_not_completed_needs_a_current_node(make_input: MakeInput) -> None:
    data = make_input("agent")
    with pytest.raises(UsageError, match="needs a current node"):
        replace(data, mode="run", run_state=RunState(current_node_id=None))


def test_a_brief_for_another_node_than_the_runs_is_refused(make_input: MakeInput) -> None:
    data = make_input("run", node="draft")
    with pytest.raises(UsageError, match="the node brief is for 'draft'"):
        replace(data, run_state=RunState(current_node_id="gather"))


def test_relative_mount_paths_are_refused(make_input: MakeInput) -> None:
    with pytest.raises(UsageError, match="project_root proj is relative"):
        replace(make_input("chat"), project_root=Path("proj"))


def test_the_file_system_root_cannot_be_a_mount(make_input: MakeInput) -> None:
    with pytest.raises(UsageError, match="state_dir is the file-system root"):
        replace(make_input("chat"), state_dir=Path("/"))


def test_project_prompt_files_override_the_workflow_layers(
    make_input: MakeInput, tmp_path: Path
) -> None:
    root = tmp_path / "proj"
    override = root / "config" / "prompts" / "workflow" / "tool_policy" / "mcp_off.md"
    override.parent.mkdir(parents=True)
    override.write_text("## MCP: off for this project\n")
    system = _system(make_input("chat"), PromptLibrary(root))
    assert "## MCP: off for this project" in system
