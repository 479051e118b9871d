"""Specialised agents: the planner and explorer, their output checks, custom agent files."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentprompt.agent.specialized import (
    EXPLORER_TOOLS,
    PLAN_HEADINGS,
    InvalidAgentDefinition,
    UnknownAgent,
    builtin_agents,
    check_exploration,
    check_plan,
    explorer_agent,
    find_agent,
    load_agents,
    parse_agent_file,
    planner_agent,
)
from agentprompt.prompts.loader import PromptLibrary

REVIEWER = """---
name: security-reviewer
description: Security analysis and vulnerability detection
tools: [read, grep, glob]
model: openai:gpt-4o
---
You are a security reviewer. Find vulnerabilities.
"""

PLAN = """Here is the plan.

## Implementation Plan

### Context
The app uses Express.

### Implementation Steps
1. Add src/routes/login.ts

### Considerations
- Rate limiting

### Files to Modify/Create
- src/routes/login.ts

### Proposed Todos
Proposed below.
"""


@pytest.fixture
def prompts(tmp_path: Path) -> PromptLibrary:
    return PromptLibrary(tmp_path)


def test_explorer_prompt_is_the_fixed_text_exactly(prompts: PromptLibrary) -> None:
    text = explorer_agent(prompts).system_prompt
    assert text.startswith("You are a specialized code exploration assistant. Your role is to")
    assert "- You have READ-ONLY access - you cannot modify files\n" in text
    assert text.endswith(
        "Execute your exploration systematically and provide comprehensive results."
    )
    assert len(text.splitlines()) == 27


def test_explorer_is_read_only_with_the_tools_its_prompt_lists(prompts: PromptLibrary) -> None:
    spec = explorer_agent(prompts)
    assert spec.read_only
    assert spec.tools == EXPLORER_TOOLS
    for tool in EXPLORER_TOOLS:
        assert re.search(rf"\b{tool}\b", spec.system_prompt)


def test_planner_prompt_keeps_the_fixed_lines(prompts: PromptLibrary) -> None:
    text = planner_agent(prompts).system_prompt
    for line in (
        "You are an expert implementation planner. Your role is to create detailed, actionable",
        "6. **Create Proposed Todos** - Use todo_add() to draft implementation tasks",
        "**Your Output Format (REQUIRED):**",
        'After providing the plan above, call todo_add() with proposed todos (status="proposed")',
        *PLAN_HEADINGS,
    ):
        assert line in text.splitlines()
    assert "..." not in text


def test_planner_must_propose_todos(prompts: PromptLibrary) -> None:
    spec = planner_agent(prompts)
    assert spec.required_tools == ("todo_add",)
    assert spec.tools is not None and "todo_add" in spec.tools
    assert not spec.read_only


def test_plan_with_every_heading_passes_the_check() -> None:
    assert check_plan(PLAN).ok


def test_plan_missing_a_heading_names_it() -> None:
    result = check_plan(PLAN.replace("### Considerations\n", ""))
    assert not result.ok
    assert result.missing == ("### Considerations",)


def test_plan_headings_out_of_order_fail_the_check() -> None:
    swapped = PLAN.replace("### Context", "### TMP").replace("### Considerations", "### Context")
    assert not check_plan(swapped.replace("### TMP", "### Considerations")).ok


def test_exploration_needs_a_summary() -> None:
    assert check_exploration("Auth lives in src/auth.ts.").ok
    assert not check_exploration("  \n").ok


def test_custom_agent_file_is_parsed() -> None:
    spec = parse_agent_file(REVIEWER, path=Path("security-reviewer.md"))
    assert spec.name == "security-reviewer"
    assert spec.description == "Security analysis and vulnerability detection"
    assert spec.tools == ("read", "grep", "glob")
    assert spec.model == "openai:gpt-4o"
    assert spec.system_prompt == "You are a security reviewer. Find vulnerabilities."
    assert spec.origin == "project"


def test_name_defaults_to_the_file_stem_and_tools_may_be_a_string() -> None:
    text = "---\ndescription: Docs writer\ntools: read, write\n---\nWrite docs.\n"
    spec = parse_agent_file(text, path=Path("/x/docs.md"))
    assert spec.name == "docs"
    assert spec.tools == ("read", "write")
    assert spec.model is None


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("no front matter\n", "must start with front matter"),
        ("---\ndescription: [unclosed\n---\nbody\n", "not valid YAML"),
        ("---\nname: x\n---\nbody\n", "'description' is required"),
        ("---\ndescription: d\n---\n\n", "body"),
        ("---\ndescription: d\ncolour: red\n---\nbody\n", "unknown key(s) colour"),
        ("---\ndescription: d\ntools: 5\n---\nbody\n", "'tools' must be a list"),
        ("---\nname: bad name\ndescription: d\n---\nbody\n", "agent name"),
        ("---\ndescription: d\ntools: [read]\nrequired_tools: [write]\n---\nb\n", "required"),
        ("---\ndescription: d\nread_only: maybe\n---\nbody\n", "'read_only'"),
    ],
)
def test_invalid_agent_files_are_refused_with_the_reason(text: str, problem: str) -> None:
    with pytest.raises(InvalidAgentDefinition) as caught:
        parse_agent_file(text, path=Path("a.md"))
    assert problem in str(caught.value)
    assert "a.md" in str(caught.value)


def test_builtin_general_agent_exists() -> None:
    (general,) = builtin_agents()
    assert general.name == "general"
    assert general.description == "General-purpose agent for complex tasks"
    assert general.origin == "builtin"


def test_load_agents_merges_builtin_user_and_project(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "security-reviewer.md").write_text(REVIEWER)
    (user / "general.md").write_text("---\ndescription: user general\n---\nUser general.\n")
    project = tmp_path / "repo" / ".agentprompt" / "agents"
    project.mkdir(parents=True)
    (project / "general.md").write_text("---\ndescription: project general\n---\nP.\n")
    agents = load_agents(tmp_path / "repo", user_dir=user)
    assert [a.name for a in agents] == ["general", "security-reviewer"]
    assert agents[0].description == "project general"
    assert agents[0].origin == "project"
    assert agents[1].origin == "user"


def test_load_agents_reads_the_user_config_dir(user_config_dir: Path, tmp_path: Path) -> None:
    agents_dir = user_config_dir / "agents"
    agents_dir.mkdir()
    (agents_dir / "reviewer.md").write_text(REVIEWER)
    assert "security-reviewer" in [a.name for a in load_agents(tmp_path)]


def test_two_files_defining_one_agent_are_refused(tmp_path: Path) -> None:
    project = tmp_path / ".agentprompt" / "agents"
    project.mkdir(parents=True)
    (project / "a.md").write_text(REVIEWER)
    (project / "b.md").write_text(REVIEWER)
    with pytest.raises(InvalidAgentDefinition, match="security-reviewer"):
        load_agents(tmp_path)


def test_non_utf8_agent_file_is_refused(tmp_path: Path) -> None:
    project = tmp_path / ".agentprompt" / "agents"
    project.mkdir(parents=True)
    (project / "x.md").write_bytes(b"---\ndescription: \xff\n---\nb\n")
    with pytest.raises(InvalidAgentDefinition, match="not UTF-8"):
        load_agents(tmp_path)


def test_find_agent_lists_known_names_when_missing(tmp_path: Path) -> None:
    agents = load_agents(tmp_path)
    assert find_agent(agents, "general").name == "general"
    with pytest.raises(UnknownAgent, match="available agents: general"):
        find_agent(agents, "nobody")


def test_agent_file_linking_out_of_its_directory_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text(REVIEWER)
    project = tmp_path / "repo" / ".agentprompt" / "agents"
    project.mkdir(parents=True)
    (project / "reviewer.md").symlink_to(outside)
    with pytest.raises(InvalidAgentDefinition, match="outside"):
        load_agents(tmp_path / "repo")


def test_a_changed_agent_file_is_read_again(tmp_path: Path) -> None:
    project = tmp_path / ".agentprompt" / "agents"
    project.mkdir(parents=True)
    path = project / "docs.md"
    path.write_text("---\ndescription: Docs writer\n---\nWrite docs.\n")
    assert find_agent(load_agents(tmp_path), "docs").description == "Docs writer"
    path.write_text("---\ndescription: API docs writer\n---\nWrite API docs.\n")
    assert find_agent(load_agents(tmp_path), "docs").description == "API docs writer"
