"""What a run tells the model: intents that match the run, rules that match the agent's tools
and the profile, user templates outside a step, and values that go into tag attributes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from agentprompt.errors import UsageError
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.workflow import ComposeInput, RunState, compose_workflow

MakeInput = Callable[..., ComposeInput]


def _system(data: ComposeInput, prompts: PromptLibrary) -> str:
    return compose_workflow(data, prompts=prompts).messages[0].text


def _user(data: ComposeInput, prompts: PromptLibrary) -> str:
    messages = compose_workflow(data, prompts=prompts).messages
    return "\n\n".join(m.text for m in messages if m.role == "user")


def test_intent_start_is_refused_at_a_node_that_is_not_the_entry(make_input: MakeInput) -> None:
    with pytest.raises(UsageError, match="entry node 'gather', but the run is at 'review'"):
        make_input("run", node="review", intent="start")


def test_intent_start_is_refused_for_a_completed_run(make_input: MakeInput) -> None:
    with pytest.raises(UsageError, match="this run is completed"):
        make_input("run", completed=True, intent="start")


def test_a_writing_agent_records_moves_in_the_state_file(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    system = _system(make_input("run", node="gather"), prompts)
    assert "Record every move in the run state file" in system
    assert "does not let you write files" not in system


@pytest.mark.parametrize("access", ["read", "off"])
def test_an_agent_that_cannot_write_reports_moves_and_outputs_in_its_reply(
    make_input: MakeInput, prompts: PromptLibrary, access: str
) -> None:
    data = make_input("run", node="review", agent="reviewer")
    if access == "off":
        tools = data.agent_definition.tools
        agent = replace(
            data.agent_definition, tools=replace(tools, fs=replace(tools.fs, enabled=False))
        )
        data = replace(data, agent_definition=agent)
    system = _system(data, prompts)
    assert "Record every move in the run state file" not in system
    assert "Your tool policy does not let you write files" in system
    assert "Give each output you produce in full in your reply, headed by its path." in system


def test_the_example_reviewer_is_told_to_give_its_notes_in_its_reply(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    data = make_input("run", node="review", agent="reviewer")
    text = _system(data, prompts) + _user(data, prompts)
    assert "You never edit files." not in text
    assert "give the notes in full in your reply, headed by that path" in text


def test_post_completion_rules_have_no_current_node_to_work_on(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    system = _system(make_input("run", completed=True), prompts)
    assert "Work only on the current node" not in system
    assert "This run is complete: there is no current node" in system
    assert "forNodeId` names that step's node" in system


@pytest.mark.parametrize("mode", ["agent", "run-completed"])
def test_a_template_naming_the_node_falls_back_to_the_task_format_without_a_step(
    make_input: MakeInput, prompts: PromptLibrary, mode: str
) -> None:
    data = make_input(
        "run" if mode == "run-completed" else mode,
        agent="reviewer",
        completed=mode == "run-completed",
        user_input="Is it testable?",
    )
    user = _user(data, prompts)
    assert "Review request for step" not in user
    assert "## Task\n<user-input boundary=" in user


def test_a_template_without_the_node_is_used_outside_a_step(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    data = make_input("agent", agent="reviewer", user_input="Hi")
    agent = replace(data.agent_definition, user_template="Request: {{ input }} \\{{literal}}")
    user = _user(replace(data, agent_definition=agent), prompts)
    assert user.startswith("Request: <user-input boundary=")
    assert user.endswith(" {{literal}}")


@pytest.mark.parametrize(
    ("template", "message"),
    [("{{input}} {{who}}", "it uses {{who}}"), ("no input here", "it has no {{input}}")],
)
def test_a_user_template_that_cannot_be_filled_is_refused(
    make_input: MakeInput, template: str, message: str
) -> None:
    data = make_input("agent", agent="reviewer")
    agent = replace(data.agent_definition, user_template=template)
    with pytest.raises(UsageError, match=message):
        replace(data, agent_definition=agent)


def test_a_step_file_path_is_escaped_in_its_tag_attribute(
    make_input: MakeInput, prompts: PromptLibrary
) -> None:
    data = make_input("run", node="gather")
    assert data.node_brief is not None
    brief = replace(data.node_brief, step_file_path_in_pkg='steps/a" evil="1.md')
    user = _user(replace(data, node_brief=brief), prompts)
    assert '<step-file path="@pkg/steps/a&quot; evil=&quot;1.md">' in user


@pytest.mark.parametrize("bad", ['draft" x="y', "has space", ""])
def test_node_and_agent_ids_that_are_not_ids_are_refused(make_input: MakeInput, bad: str) -> None:
    data = make_input("run", node="gather")
    with pytest.raises(UsageError, match="is not an id"):
        replace(data, agent_definition=replace(data.agent_definition, id=bad))
    if bad:
        assert data.node_brief is not None
        with pytest.raises(UsageError, match="is not an id"):
            replace(
                data,
                run_state=RunState(current_node_id=bad),
                node_brief=replace(data.node_brief, node_id=bad),
            )


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("package_root", Path("/home/user/project"), "@project and @pkg are the same"),
        ("state_dir", Path("/home/user/project"), "@project and @state are the same"),
        ("project_root", Path("/pkgs/feature-brief/work"), "the project lies inside the package"),
    ],
)
def test_overlapping_mounts_are_refused_by_the_compose_input(
    make_input: MakeInput, field: str, value: Path, message: str
) -> None:
    data = make_input("chat")
    if field == "project_root":
        data = replace(data, package_root=Path("/pkgs/feature-brief"))
    with pytest.raises(UsageError, match=message):
        replace(data, **{field: value})


def test_project_prompt_files_override_the_brief_line_formats(
    make_input: MakeInput, tmp_path: Path
) -> None:
    folder = tmp_path / "proj" / "config" / "prompts" / "workflow"
    folder.mkdir(parents=True)
    (folder / "transition_line.md").write_text(
        "---\nvariables:\n  target: t\n  label: l\n  condition: c\n---\n"
        "* next: {{target}}{{label}}{{condition}}\n"
    )
    user = _user(make_input("run", node="gather"), PromptLibrary(tmp_path / "proj"))
    assert "* next: draft — requirements agreed; when: the user has confirmed" in user
