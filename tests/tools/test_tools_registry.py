"""The registry: order, policy filtering, guidance section, and calls that never raise."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.errors import AgentPromptError
from agentprompt.messages import ToolCall
from agentprompt.tools import (
    ToolContext,
    ToolPolicy,
    ToolRegistry,
    ToolResult,
    ToolSpec,
    tool_from_function,
)


def echo(text: str, times: int = 1) -> str:
    """Echo text.

    Args:
        text: The text.
        times: How often.
    """
    return text * times


def boom() -> str:
    """Always fails."""
    raise RuntimeError("kaput")


def spec(name: str, guidance: str | None = None, read_only: bool = True) -> ToolSpec:
    return tool_from_function(echo, name=name, guidance=guidance, read_only=read_only)


def run(registry: ToolRegistry, name: str, arguments: str, tmp_path: Path) -> ToolResult:
    return registry.run(
        ToolCall(id="1", name=name, arguments=arguments), ToolContext(root=tmp_path)
    )


def test_definitions_keep_registry_order() -> None:
    registry = ToolRegistry([spec("b"), spec("a"), spec("c")])
    assert [d.name for d in registry.definitions()] == ["b", "a", "c"]


def test_duplicate_name_is_refused() -> None:
    registry = ToolRegistry([spec("a")])
    with pytest.raises(AgentPromptError, match="already registered"):
        registry.register(spec("a"))


def test_policy_enables_disables_and_keeps_read_only() -> None:
    registry = ToolRegistry([spec("a"), spec("b"), spec("w", read_only=False)])
    assert [d.name for d in registry.definitions(ToolPolicy(disabled=frozenset({"a"})))] == [
        "b",
        "w",
    ]
    assert [d.name for d in registry.definitions(ToolPolicy(enabled=frozenset({"a"})))] == ["a"]
    assert [d.name for d in registry.definitions(ToolPolicy(read_only=True))] == ["a", "b"]


def test_guidance_section_joins_enabled_guidance() -> None:
    registry = ToolRegistry([spec("a", "Use a."), spec("b"), spec("c", "Use c.")])
    assert registry.guidance_section() == "## Tool Usage Guidance\n\nUse a.\n\nUse c."
    assert registry.guidance_section(ToolPolicy(disabled=frozenset({"a"}))) == (
        "## Tool Usage Guidance\n\nUse c."
    )


def test_guidance_section_is_empty_without_guidance() -> None:
    assert ToolRegistry([spec("a")]).guidance_section() == ""


def test_call_runs_handler_with_arguments(tmp_path: Path) -> None:
    result = run(ToolRegistry([spec("a")]), "a", '{"text": "ab", "times": 2}', tmp_path)
    assert result == ToolResult(content="abab")


def test_unknown_tool_is_an_error_result_listing_tools(tmp_path: Path) -> None:
    result = run(ToolRegistry([spec("a")]), "nope", "{}", tmp_path)
    assert result.is_error
    assert "does not exist" in result.content and "Available tools: a" in result.content


def test_disallowed_tool_is_an_error_result(tmp_path: Path) -> None:
    registry = ToolRegistry([spec("w", read_only=False)])
    ctx = ToolContext(root=tmp_path, policy=ToolPolicy(read_only=True))
    result = registry.run(ToolCall(id="1", name="w", arguments='{"text": "x"}'), ctx)
    assert result.is_error and "is not available" in result.content


def test_invalid_json_arguments_are_an_error_result(tmp_path: Path) -> None:
    result = run(ToolRegistry([spec("a")]), "a", '{"text": ', tmp_path)
    assert result.is_error and "not valid JSON" in result.content


def test_schema_violations_are_an_error_result(tmp_path: Path) -> None:
    result = run(ToolRegistry([spec("a")]), "a", '{"times": "2", "extra": 1}', tmp_path)
    assert result.is_error
    assert "'text' is a required property" in result.content
    assert "times: '2' is not of type 'integer'" in result.content


def test_handler_exception_is_an_error_result(tmp_path: Path) -> None:
    result = run(ToolRegistry([tool_from_function(boom)]), "boom", "{}", tmp_path)
    assert result.is_error
    assert result.content == "boom failed unexpectedly: RuntimeError: kaput"


def test_long_output_is_cut_with_a_note(tmp_path: Path) -> None:
    registry = ToolRegistry([spec("a")])
    ctx = ToolContext(root=tmp_path, policy=ToolPolicy(max_output_chars=10))
    result = registry.run(ToolCall(id="1", name="a", arguments='{"text": "x", "times": 50}'), ctx)
    assert result.content.startswith("x" * 10 + "\n[output cut at 10 of 50 characters")


def test_handler_sees_the_running_registry(tmp_path: Path) -> None:
    seen: list[object] = []

    def probe(ctx: ToolContext) -> str:
        """Probe."""
        seen.append(ctx.registry)
        return "ok"

    registry = ToolRegistry([tool_from_function(probe)])
    run(registry, "probe", "{}", tmp_path)
    assert seen == [registry]


def test_tool_failure_reads_as_the_tool_failing(tmp_path: Path) -> None:
    from agentprompt.tools import ToolFailure

    def picky(word: str) -> str:
        """Only likes yes.

        Args:
            word: The word.
        """
        if word != "yes":
            raise ToolFailure(f"{word!r} is not yes; pass yes")
        return "fine"

    result = run(ToolRegistry([tool_from_function(picky)]), "picky", '{"word": "no"}', tmp_path)
    assert result == ToolResult(content="picky failed: 'no' is not yes; pass yes", is_error=True)


def test_package_all_names_every_public_name_once() -> None:
    import agentprompt.tools as tools

    loaded = [getattr(tools, n) for n in tools.__all__]  # the lazy names too
    assert len(loaded) == len(set(tools.__all__))
    public = {n for n, v in vars(tools).items() if not n.startswith("_")}
    modules = {n for n in public if type(getattr(tools, n)).__name__ == "module"}
    assert sorted(tools.__all__) == sorted(public - modules)
