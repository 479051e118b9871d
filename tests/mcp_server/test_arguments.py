"""Checking a tool call's arguments before anything runs."""

from __future__ import annotations

from agentprompt.mcp_server._arguments import MAX_TEXT_CHARS, argument_problem

SCHEMAS = {
    "rank_files": {
        "type": "object",
        "properties": {"task": {"type": "string"}, "top": {"type": "integer", "minimum": 1}},
        "required": ["task"],
    },
    "preview_edits": {
        "type": "object",
        "properties": {
            "reply": {"type": "string"},
            "dialect": {"type": "string", "enum": ["auto", "udiff"]},
        },
        "required": ["reply"],
    },
    "read_context": {
        "type": "object",
        "properties": {"paths": {"type": "array", "items": {"type": "string"}}},
    },
}


def test_a_good_call_has_no_problem() -> None:
    assert argument_problem("rank_files", SCHEMAS, {"task": "fix", "top": 3}) is None


def test_an_unknown_tool_lists_the_tools() -> None:
    problem = argument_problem("rank", SCHEMAS, {})
    assert problem is not None
    assert '"rank"' in problem and "rank_files" in problem


def test_a_tool_not_offered_says_why() -> None:
    problem = argument_problem(
        "apply_edits", SCHEMAS, {}, not_offered={"apply_edits": "read-only: not offered"}
    )
    assert problem == "read-only: not offered"


def test_an_unknown_argument_is_named_with_the_ones_taken() -> None:
    problem = argument_problem("rank_files", SCHEMAS, {"task": "x", "topp": 3})
    assert problem == 'rank_files does not take the argument "topp"; it takes: task, top'


def test_a_missing_argument_is_named() -> None:
    assert argument_problem("rank_files", SCHEMAS, {}) == 'argument "task" is required'


def test_a_non_string_argument_is_named_with_its_type() -> None:
    problem = argument_problem("rank_files", SCHEMAS, {"task": ["a"]})
    assert problem == 'argument "task" must be of type string, not a list'


def test_a_list_item_of_the_wrong_type_is_named() -> None:
    problem = argument_problem("read_context", SCHEMAS, {"paths": ["a", 3]})
    assert problem is not None and problem.startswith('argument "paths" (item 1)')


def test_a_value_outside_the_choices_lists_them() -> None:
    problem = argument_problem("preview_edits", SCHEMAS, {"reply": "x", "dialect": "git"})
    assert problem == "argument \"dialect\" must be one of 'auto', 'udiff', not 'git'"


def test_a_huge_argument_is_refused_by_its_size() -> None:
    problem = argument_problem("preview_edits", SCHEMAS, {"reply": "x" * (MAX_TEXT_CHARS + 1)})
    assert problem is not None and problem.startswith('argument "reply" is 5,000,001 characters')


def test_arguments_that_are_not_an_object_are_refused() -> None:
    problem = argument_problem("rank_files", SCHEMAS, ["fix"])
    assert problem == 'the arguments of "rank_files" must be an object of named arguments'
