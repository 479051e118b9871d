"""The prompt files shipped with agentprompt: all valid, and the seed texts exact."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentprompt.prompts.loader import PACKAGED_DIR, PromptLibrary

PACKAGED_NAMES = sorted(
    path.relative_to(PACKAGED_DIR).with_suffix("").as_posix() for path in PACKAGED_DIR.rglob("*.md")
)

# A placeholder that is not escaped with a backslash.
PLACEHOLDER = re.compile(r"(?<!\\)\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")

ALLY_IDENTITY = (
    "You are Ally, an AI pair programming assistant. Use tools directly to complete tasks "
    "efficiently. Apply creative problem solving and leverage tool combinations to find "
    "elegant solutions."
)

ONCE_MODE = (
    "**IMPORTANT - Single Response Mode:**\n"
    "This is a non-interactive, single-turn conversation. Your response will be final\n"
    "and the conversation will end immediately after you respond. There is no opportunity\n"
    "for follow-up questions or clarification. Make your response complete, clear, and\n"
    "self-contained."
)


@pytest.fixture
def library(tmp_path: Path) -> PromptLibrary:
    """A library whose project and user dirs are empty, so only packaged files resolve."""
    return PromptLibrary(tmp_path)


def test_prompt_files_are_packaged() -> None:
    assert "agent/identity" in PACKAGED_NAMES
    assert "agent/once_mode" in PACKAGED_NAMES


@pytest.mark.parametrize("name", PACKAGED_NAMES)
def test_every_packaged_prompt_file_parses(library: PromptLibrary, name: str) -> None:
    template = library.load(name)
    assert template.path == PACKAGED_DIR / f"{name}.md"
    assert library.resolve(name).origin == "packaged"


@pytest.mark.parametrize("name", PACKAGED_NAMES)
def test_every_placeholder_in_a_packaged_prompt_is_declared(
    library: PromptLibrary, name: str
) -> None:
    template = library.load(name)
    used = set(PLACEHOLDER.findall(template.body))
    assert used <= set(template.variables)


@pytest.mark.parametrize("name", PACKAGED_NAMES)
def test_every_variable_a_packaged_prompt_declares_is_used(
    library: PromptLibrary, name: str
) -> None:
    template = library.load(name)
    used = set(PLACEHOLDER.findall(template.body))
    assert set(template.variables) <= used


def test_agent_identity_is_the_fixed_ally_identity(library: PromptLibrary) -> None:
    assert library.render("agent/identity") == ALLY_IDENTITY


def test_agent_once_mode_is_the_fixed_single_response_block(library: PromptLibrary) -> None:
    assert library.render("agent/once_mode") == ONCE_MODE
