"""The built-in registry: names, order, descriptions and guidance from prompt files."""

from __future__ import annotations

from pathlib import Path

from agentprompt.prompts.loader import PromptLibrary
from agentprompt.tools import GUIDANCE_HEADING, ToolPolicy, ToolRegistry, default_registry
from agentprompt.tools.builtins import BUILTIN_NAMES

EXPLORE_GUIDANCE = """**When to use explore:**
- Understanding codebase structure and architecture
- Finding specific implementations or patterns
- Tracing feature implementations across files
- Analyzing dependencies and relationships

**Example usage:**
- explore(task_description="Find how user authentication is implemented")
- explore(task_description="Analyze the REST API structure and endpoints")
- explore(task_description="Understand the plugin system architecture")

The explore tool delegates to a read-only exploration agent. Use it instead of
manual grep/read sequences."""


def test_every_builtin_is_registered_in_order(registry: ToolRegistry) -> None:
    assert registry.names() == BUILTIN_NAMES
    assert {"read", "write", "edit", "line_edit", "ls", "tree", "glob", "grep", "batch"} <= set(
        BUILTIN_NAMES
    )


def test_explore_guidance_is_the_fixed_text(registry: ToolRegistry) -> None:
    spec = registry.get("explore")
    assert spec is not None and spec.guidance == EXPLORE_GUIDANCE


def test_guidance_section_holds_enabled_tools_only(registry: ToolRegistry) -> None:
    section = registry.guidance_section(ToolPolicy(read_only=True))
    assert section.startswith(GUIDANCE_HEADING + "\n\n")
    assert EXPLORE_GUIDANCE in section
    assert "**When to use plan:**" not in section


def test_every_definition_serialises_to_both_wire_forms(registry: ToolRegistry) -> None:
    for definition in registry.definitions(ToolPolicy(shell_enabled=True)):
        assert definition.description
        assert definition.to_openai()["function"]["parameters"]["type"] == "object"
        assert definition.to_anthropic()["input_schema"] == definition.parameters


def test_project_prompt_file_overrides_a_description(tmp_path: Path) -> None:
    override = tmp_path / ".agentprompt" / "prompts" / "tools"
    override.mkdir(parents=True)
    (override / "read.md").write_text("Read a file, our way.\n")
    registry = default_registry(PromptLibrary(tmp_path))
    spec = registry.get("read")
    assert spec is not None and spec.description == "Read a file, our way."
