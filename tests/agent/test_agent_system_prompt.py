"""The main and specialised system prompts of seed 001, against snapshot files."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.agent._system_prompt import (
    PromptFacts,
    agent_system_parts,
    agent_system_prompt,
    core_directives,
    main_system_parts,
    main_system_prompt,
)
from agentprompt.agent.specialized import AgentSpec, explorer_agent, planner_agent
from agentprompt.context.environment import Environment
from agentprompt.context.instructions import load_instructions
from agentprompt.context.project import ProjectFacts
from agentprompt.context.usage import ContextUsage, ToolResultStats
from agentprompt.prompts.loader import PromptLibrary

Snapshot = Callable[[str, str], None]

TODOS = (
    '📋 Active Todos (1/3 completed):\n→ Currently working on: "Add login route"\n'
    '○ Pending: "Write tests for auth system"'
)
GUIDANCE = "## Tool Usage Guidance\n\n**When to use explore:**\n- Understanding structure"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "ALLY.md").write_text(
        "When creating git commits, always use ./quick-commit tool if available.\n"
    )
    return tmp_path


@pytest.fixture
def prompts(root: Path) -> PromptLibrary:
    return PromptLibrary(root)


def _facts(root: Path, *, used: int = 45_000, minute: int = 32) -> PromptFacts:
    env = Environment(
        now=dt.datetime(2025, 10, 31, 14, minute, 15),
        cwd=Path("/work/project"),
        git_branch="main",
        is_git=True,
        os_name="linux 6.1.0",
        python_version="3.11.9",
    )
    return PromptFacts(
        environment=env,
        project=ProjectFacts(
            project_types=("Node.js",),
            languages=("TypeScript",),
            frameworks=("Express",),
            package_managers=("npm",),
            docker=True,
            ci=("GitHub Actions",),
        ),
        instructions=load_instructions(root),
        usage=ContextUsage(
            used_tokens=used,
            context_size=100_000,
            tool_results=ToolResultStats().add(1500).add(2500),
        ),
        todo_context=TODOS,
        tool_guidance=GUIDANCE,
        agents=(
            AgentSpec(
                name="general",
                description="General-purpose agent for complex tasks",
                system_prompt="x",
            ),
            AgentSpec(
                name="security-reviewer",
                description="Security analysis and vulnerability detection",
                system_prompt="y",
            ),
        ),
    )


def test_main_prompt_snapshot(root: Path, prompts: PromptLibrary, snapshot: Snapshot) -> None:
    snapshot("agent/main_system_prompt.txt", main_system_prompt(_facts(root), prompts=prompts))


def test_main_prompt_once_mode_snapshot(
    root: Path, prompts: PromptLibrary, snapshot: Snapshot
) -> None:
    text = main_system_prompt(_facts(root, used=86_000), once=True, prompts=prompts)
    snapshot("agent/main_system_prompt_once.txt", text)


def test_main_prompt_starts_with_the_identity(root: Path, prompts: PromptLibrary) -> None:
    text = main_system_prompt(_facts(root), prompts=prompts)
    assert text.startswith(
        "You are Ally, an AI pair programming assistant. Use tools directly to complete tasks "
        "efficiently. Apply creative problem solving and leverage tool combinations to find "
        "elegant solutions.\n\n## Behavior\n"
    )


def test_main_prompt_context_is_in_the_fixed_order(root: Path, prompts: PromptLibrary) -> None:
    text = main_system_prompt(_facts(root), prompts=prompts)
    context = text[text.index("## Context\n") :]
    assert context == (
        "## Context\n"
        "- Current Date: 2025-10-31 14:32:15\n"
        "- Working Directory: /work/project (git repository, branch: main)\n"
        "- Operating System: linux 6.1.0\n"
        "- Python Version: 3.11.9\n"
        "- Project: Node.js • TypeScript • Express • npm • Docker • GitHub Actions\n"
        "- Context Usage: 45% (~27 tool calls remaining)\n"
        "- Project Instructions (ALLY.md):\n"
        "When creating git commits, always use ./quick-commit tool if available.\n"
        "- Available Agents:\n"
        "  - general: General-purpose agent for complex tasks\n"
        "  - security-reviewer: Security analysis and vulnerability detection\n"
        f"{TODOS}"
    )


def test_once_mode_text_appears_only_in_once_mode(root: Path, prompts: PromptLibrary) -> None:
    marker = "**IMPORTANT - Single Response Mode:**"
    assert marker not in main_system_prompt(_facts(root), prompts=prompts)
    assert marker in main_system_prompt(_facts(root), once=True, prompts=prompts)


def test_missing_facts_leave_their_lines_out(prompts: PromptLibrary, root: Path) -> None:
    facts = PromptFacts(environment=_facts(root).environment)
    text = main_system_prompt(facts, prompts=prompts)
    for absent in (
        "- Project:",
        "Context Usage",
        "Project Instructions",
        "Available Agents",
        "## Tool Usage Guidance",
        "📋",
    ):
        assert absent not in text
    assert text.endswith("- Python Version: 3.11.9")


def test_regenerated_prompt_reflects_current_usage(root: Path, prompts: PromptLibrary) -> None:
    before = main_system_prompt(_facts(root, used=10_000), prompts=prompts)
    after = main_system_prompt(_facts(root, used=96_000), prompts=prompts)
    assert "⚠️" not in before
    assert "⚠️ CRITICAL: Context nearly full. Finish immediately or compact." in after


def test_stable_part_does_not_change_between_calls(root: Path, prompts: PromptLibrary) -> None:
    first = main_system_parts(_facts(root, used=10_000, minute=1), prompts=prompts)
    second = main_system_parts(_facts(root, used=90_000, minute=59), prompts=prompts)
    assert first.stable == second.stable
    assert first.per_turn != second.per_turn
    for volatile in ("Current Date", "Context Usage", "📋"):
        assert volatile not in first.stable


def test_split_parts_hold_every_line_of_the_whole_prompt(
    root: Path, prompts: PromptLibrary
) -> None:
    facts = _facts(root)
    whole = main_system_prompt(facts, prompts=prompts)
    parts = main_system_parts(facts, prompts=prompts)
    split_lines = set(parts.stable.splitlines()) | set(parts.per_turn.splitlines())
    assert set(whole.splitlines()) <= split_lines


def test_split_parts_snapshot(root: Path, prompts: PromptLibrary, snapshot: Snapshot) -> None:
    parts = main_system_parts(_facts(root), prompts=prompts)
    snapshot("agent/main_system_per_turn.txt", parts.per_turn)
    assert parts.per_turn.startswith("## Current Context\n- Current Date: 2025-10-31 14:32:15\n")


def test_planner_prompt_snapshot(root: Path, prompts: PromptLibrary, snapshot: Snapshot) -> None:
    text = agent_system_prompt(
        planner_agent(prompts).system_prompt, "Plan a login route.", _facts(root), prompts=prompts
    )
    snapshot("agent/planner_system_prompt.txt", text)


def test_explorer_prompt_snapshot(root: Path, prompts: PromptLibrary, snapshot: Snapshot) -> None:
    text = agent_system_prompt(
        explorer_agent(prompts).system_prompt,
        "Find how authentication works.",
        _facts(root),
        prompts=prompts,
    )
    snapshot("agent/explorer_system_prompt.txt", text)


def test_specialised_prompt_leaves_out_delegation_agents_and_instructions(
    root: Path, prompts: PromptLibrary
) -> None:
    text = agent_system_prompt("You review code.", "Review x.py", _facts(root), prompts=prompts)
    assert text.startswith("**Primary Identity:**\nYou review code.\n\n## Behavior\n")
    for absent in (
        "## Planning",
        "Available Agents",
        "Project Instructions",
        "ALLY.md",
        "You are Ally",
        "📋",
    ):
        assert absent not in text
    assert "**Current Task:**\nReview x.py\n\n**Context:**\n- Current Date:" in text
    assert "- Context Usage: 45%" in text
    assert "\n\n**Final Response Requirement**\n" in text


def test_specialised_split_keeps_the_task_in_the_stable_part(
    root: Path, prompts: PromptLibrary
) -> None:
    first = agent_system_parts("Base.", "Task.", _facts(root, used=1, minute=1), prompts=prompts)
    second = agent_system_parts("Base.", "Task.", _facts(root, used=99, minute=2), prompts=prompts)
    assert first.stable == second.stable
    assert "**Current Task:**\nTask." in first.stable
    assert "Current Date" not in first.stable
    assert "- Current Date: 2025-10-31 14:01:15" in first.per_turn


def test_core_directives_without_delegation(prompts: PromptLibrary) -> None:
    assert "## Planning" in core_directives(prompts)
    assert "## Planning" not in core_directives(prompts, delegation=False)


def test_a_project_override_of_a_prompt_file_is_used(root: Path, prompts: PromptLibrary) -> None:
    override = root / ".agentprompt" / "prompts" / "agent"
    override.mkdir(parents=True)
    (override / "identity.md").write_text("You are Bob.\n")
    assert main_system_prompt(_facts(root), prompts=prompts).startswith("You are Bob.\n\n")
