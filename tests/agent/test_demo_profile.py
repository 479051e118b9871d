"""The demo profile: seed 001's main agent prompt, laid out for cache stability."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

from agentprompt import Message, Stability, compose, get_tokenizer, to_anthropic, to_openai, to_text
from agentprompt.agent.demo_profile import AgentContext, demo_profile
from agentprompt.project.environment import Environment
from agentprompt.prompts.loader import PromptLibrary

ALLY_IDENTITY = (
    "You are Ally, an AI pair programming assistant. Use tools directly to complete tasks "
    "efficiently. Apply creative problem solving and leverage tool combinations to find "
    "elegant solutions."
)


def _context(tmp_path: Path, **overrides: object) -> AgentContext:
    env = Environment(
        now=dt.datetime(2026, 1, 2, 3, 4, 5),
        cwd=Path("/work/project"),
        git_branch="main",
        is_git=True,
        os_name="linux 6.1.0",
        python_version="3.11.7",
    )
    values: dict[str, object] = {
        "prompts": PromptLibrary(tmp_path),
        "environment": env,
        "task": "Add a --verbose flag to the CLI.",
        "files": ("README.md", "src/app/cli.py", "src/app/core.py", "tests/test_cli.py"),
    }
    values.update(overrides)
    return AgentContext(**values)  # type: ignore[arg-type]


def test_the_prompt_starts_with_the_agent_identity_exactly(tmp_path: Path) -> None:
    comp = compose(demo_profile(), _context(tmp_path))
    assert comp.messages[0].text.startswith(ALLY_IDENTITY + "\n\n## Behavior\n")


def test_static_and_session_sections_share_the_system_message_and_the_task_is_the_user_turn(
    tmp_path: Path,
) -> None:
    comp = compose(demo_profile(), _context(tmp_path))
    assert [m.role for m in comp.messages] == ["system", "user"]
    assert comp.messages[1].text == "Add a --verbose flag to the CLI."
    assert comp.section("task").stability is Stability.TURN
    assert comp.breakpoints == (0,)


def test_a_new_task_leaves_the_system_message_byte_identical(tmp_path: Path) -> None:
    first = compose(demo_profile(), _context(tmp_path))
    second = compose(demo_profile(), _context(tmp_path, task="Now write the docs."))
    assert first.messages[0] == second.messages[0]
    assert first.messages[1] != second.messages[1]


def test_context_states_date_directory_branch_os_and_python(tmp_path: Path) -> None:
    text = compose(demo_profile(), _context(tmp_path)).messages[0].text
    assert (
        "## Context\n- Current Date: 2026-01-02 03:04:05\n"
        "- Working Directory: /work/project (git repository, branch: main)\n"
        "- Operating System: linux 6.1.0\n- Python Version: 3.11.7"
    ) in text


def test_outside_git_the_working_directory_has_no_branch_note(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    env = Environment(**{**ctx.environment.__dict__, "is_git": False, "git_branch": None})
    text = compose(demo_profile(), _context(tmp_path, environment=env)).messages[0].text
    assert "- Working Directory: /work/project\n" in text


def test_once_mode_adds_the_single_response_instructions(tmp_path: Path) -> None:
    plain = compose(demo_profile(), _context(tmp_path)).messages[0].text
    once = compose(demo_profile(), _context(tmp_path, once=True)).messages[0].text
    assert "Single Response Mode" not in plain
    assert "**IMPORTANT - Single Response Mode:**" in once


def test_repository_files_fall_back_to_folders(tmp_path: Path) -> None:
    comp = compose(demo_profile(), _context(tmp_path))
    section = next(p for p in comp.parts if p.id == "repository_files")
    assert "src/app/cli.py" in section.text  # type: ignore[union-attr]
    assert section.fallbacks[0].endswith("README.md\nsrc/ (2 files)\ntests/ (1 files)")  # type: ignore[union-attr]


def test_history_sits_between_the_system_message_and_the_task(tmp_path: Path) -> None:
    history = (
        Message(role="user", content="What does core.py do?"),
        Message(role="assistant", content="It holds the domain logic."),
    )
    comp = compose(demo_profile(), _context(tmp_path, history=history))
    assert [m.role for m in comp.messages] == ["system", "user", "assistant", "user"]
    assert comp.breakpoints == (0, 2)


def test_section_tokens_are_exact_o200k_counts(tmp_path: Path) -> None:
    comp = compose(demo_profile(), _context(tmp_path))
    tok = get_tokenizer("o200k_base")
    for placed, part in zip(comp.sections, comp.parts, strict=True):
        assert placed.tokens == tok.count(part.text)  # type: ignore[union-attr]


def test_rendered_demo_prompt_matches_its_snapshots(
    tmp_path: Path, snapshot: Callable[[str, str], None]
) -> None:
    history = (
        Message(role="user", content="What does core.py do?"),
        Message(role="assistant", content="It holds the domain logic."),
    )
    comp = compose(demo_profile(), _context(tmp_path, history=history))
    snapshot("demo/prompt.txt", to_text(comp.messages))
    snapshot("demo/openai.json", json.dumps(to_openai(comp.messages), indent=2) + "\n")
    snapshot("demo/anthropic.json", json.dumps(to_anthropic(comp.messages), indent=2) + "\n")


def test_a_detached_head_is_stated_with_its_commit(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    env = Environment(**{**ctx.environment.__dict__, "git_branch": None, "detached_at": "abc1234"})
    text = compose(demo_profile(), _context(tmp_path, environment=env)).messages[0].text
    assert "- Working Directory: /work/project (git repository, detached at abc1234)\n" in text
