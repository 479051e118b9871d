"""Tool definitions from typed functions and their docstrings."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from agentprompt.tools import ToolContext, ToolDefinitionError, tool_from_function


def search(ctx: ToolContext, query: str, limit: int = 10, mode: Literal["a", "b"] = "a") -> str:
    """Search the index.

    More detail for people.

    Args:
        query: What to look for,
            over two lines.
        limit: How many hits.
        mode: Which index.

    Returns:
        The hits.
    """
    return query


def test_schema_comes_from_hints_and_docstring() -> None:
    spec = tool_from_function(search)
    assert spec.name == "search"
    assert spec.description == "Search the index.\n\nMore detail for people."
    assert spec.parameters == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for, over two lines."},
            "limit": {"type": "integer", "description": "How many hits.", "default": 10},
            "mode": {
                "enum": ["a", "b"],
                "type": "string",
                "description": "Which index.",
                "default": "a",
            },
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def test_openai_and_anthropic_forms() -> None:
    definition = tool_from_function(search, name="find").definition()
    assert definition.to_openai()["function"]["name"] == "find"
    assert definition.to_anthropic()["input_schema"]["required"] == ["query"]


def test_containers_and_optionals_map_to_json_schema() -> None:
    def f(items: list[str], table: dict[str, Any], n: float | None = None) -> str:
        """F.

        Args:
            items: Items.
            table: Table.
            n: Number.
        """
        return ""

    props = tool_from_function(f).parameters["properties"]
    assert props["items"]["type"] == "array"
    assert props["items"]["items"] == {"type": "string"}
    assert props["table"]["type"] == "object"
    assert props["n"]["type"] == "number"


def test_every_problem_is_reported_at_once() -> None:
    def bad(a, b: set[int], c: str) -> str:  # type: ignore[no-untyped-def]
        """Bad.

        Args:
            a: A.
            z: Unknown.
        """
        return ""

    with pytest.raises(ToolDefinitionError) as info:
        tool_from_function(bad)
    text = str(info.value)
    assert "'a' has no type annotation" in text
    assert "'b'" in text
    assert "'c' is not described" in text
    assert "unknown parameter(s) z" in text


def test_custom_definition_overrides_schema() -> None:
    params = {"type": "object", "properties": {}}
    assert tool_from_function(search, parameters=params).parameters is params
