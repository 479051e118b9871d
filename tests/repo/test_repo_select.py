"""Seed 000, one behaviour per test: prompts, the model call, constraints, reply parsing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.llm import ClientPromptExecutor, FunctionModel, ModelRequest, ScriptedModel
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.repo.selection import (
    FileChoice,
    SelectionOptions,
    ask_llm_for_files,
    build_constraints_section,
    normalize_response,
    parse_response,
)

FAILURE = {"done": True, "files": [], "reason": "Could not parse LLM response."}
TREE = "src/\n  app.py\nREADME.md\n"


@pytest.fixture
def prompts(tmp_path: Path) -> PromptLibrary:
    """The packaged prompts only (no project overrides)."""
    return PromptLibrary(tmp_path)


def ask(
    model: ScriptedModel, prompts: PromptLibrary, context: str | None, constraints: str = ""
) -> FileChoice:
    return ask_llm_for_files(model, "Fix the bug", TREE, context, constraints, prompts=prompts)


# ask_llm_for_files


def test_without_current_context_the_initial_prompt_is_used(prompts: PromptLibrary) -> None:
    model = ScriptedModel([{"done": True, "files": [], "reason": ""}])
    ask(model, prompts, None)
    assert "## Current Context" not in model.prompts[0].prompt
    assert "Fix the bug" in model.prompts[0].prompt
    assert TREE.rstrip("\n") in model.prompts[0].prompt


def test_with_current_context_the_followup_prompt_is_used(prompts: PromptLibrary) -> None:
    model = ScriptedModel([{"done": True, "files": [], "reason": ""}])
    ask(model, prompts, "### src/app.py\n\n```\nx = 1\n```")
    assert "## Current Context\n\n### src/app.py" in model.prompts[0].prompt


def test_an_empty_current_context_counts_as_none(prompts: PromptLibrary) -> None:
    model = ScriptedModel([{"done": True, "files": [], "reason": ""}])
    ask(model, prompts, "")
    assert "## Current Context" not in model.prompts[0].prompt


def test_the_model_is_called_with_mode_fast_and_response_shape_json(
    prompts: PromptLibrary,
) -> None:
    model = ScriptedModel([{"done": True, "files": [], "reason": ""}])
    ask(model, prompts, None)
    assert (model.prompts[0].mode, model.prompts[0].response_shape) == ("fast", "json")


def test_the_answer_is_returned_normalised(prompts: PromptLibrary) -> None:
    model = ScriptedModel([{"done": 0, "files": ["src/app.py", "", 3], "reason": "needed"}])
    assert ask(model, prompts, None) == {"done": False, "files": ["src/app.py"], "reason": "needed"}


@pytest.mark.parametrize("context", [None, "### a.py"], ids=["initial", "followup"])
def test_the_constraints_section_sits_between_the_tree_and_the_instructions(
    prompts: PromptLibrary, context: str | None
) -> None:
    model = ScriptedModel([{"done": True, "files": [], "reason": ""}])
    section = build_constraints_section({"maxFiles": 3})
    ask(model, prompts, context, section)
    prompt = model.prompts[0].prompt
    tree_at = prompt.index("## Directory Tree")
    constraints_at = prompt.index("## Active Constraints")
    instructions_at = prompt.index("## Instructions")
    assert tree_at < constraints_at < instructions_at
    assert f"{TREE}\n{section}\n## Instructions" in prompt


@pytest.mark.parametrize("context", [None, "### a.py"], ids=["initial", "followup"])
def test_without_constraints_no_section_is_written(
    prompts: PromptLibrary, context: str | None
) -> None:
    model = ScriptedModel([{"done": True, "files": [], "reason": ""}])
    ask(model, prompts, context)
    assert "## Active Constraints" not in model.prompts[0].prompt
    assert f"{TREE}\n## Instructions" in model.prompts[0].prompt


@pytest.mark.parametrize("context", [None, "### a.py"], ids=["initial", "followup"])
def test_the_prompts_demand_json_only(prompts: PromptLibrary, context: str | None) -> None:
    model = ScriptedModel([{"done": True, "files": [], "reason": ""}])
    ask(model, prompts, context)
    prompt = model.prompts[0].prompt
    assert "Respond ONLY with a JSON object" in prompt
    assert "Do not wrap it in a markdown code block" in prompt
    assert '"done"' in prompt and '"files"' in prompt and '"reason"' in prompt


def test_a_text_reply_through_a_chat_client_is_parsed(prompts: PromptLibrary) -> None:
    def answer(request: ModelRequest) -> str:
        assert request.mode == "fast" and request.response_shape == "json"
        return 'Sure:\n```json\n{"done": false, "files": ["README.md"], "reason": "docs"}\n```'

    executor = ClientPromptExecutor(client=FunctionModel(answer))
    found = ask_llm_for_files(executor, "Explain", TREE, None, "", prompts=prompts)
    assert found == {"done": False, "files": ["README.md"], "reason": "docs"}


# build_constraints_section


def test_filter_becomes_an_only_select_rule() -> None:
    assert build_constraints_section({"filter": r"\.py$"}) == (
        "## Active Constraints\n- ONLY select files whose name matches the pattern: \\.py$\n"
    )


def test_exclude_becomes_a_do_not_select_rule() -> None:
    assert build_constraints_section({"exclude": "test"}) == (
        "## Active Constraints\n- Do NOT select files whose name matches the pattern: test\n"
    )


def test_max_files_becomes_a_limit_rule() -> None:
    assert build_constraints_section({"maxFiles": 4}) == (
        "## Active Constraints\n- Maximum 4 files can be read in total. Be selective.\n"
    )


def test_include_becomes_an_already_loaded_rule() -> None:
    assert build_constraints_section({"include": ["a.py", "b.py"]}) == (
        "## Active Constraints\n- The following files are already force-included and loaded. "
        "Do NOT request them again: a.py, b.py\n"
    )


def test_dir_other_than_dot_becomes_a_directory_rule() -> None:
    assert build_constraints_section({"dir": "src/app"}) == (
        "## Active Constraints\n- Only select files within the directory: src/app\n"
    )


def test_dir_dot_adds_no_rule() -> None:
    assert build_constraints_section({"dir": "."}) == ""


def test_no_active_constraint_gives_an_empty_string() -> None:
    assert build_constraints_section({}) == ""
    assert build_constraints_section(SelectionOptions()) == ""


def test_all_rules_appear_in_the_fixed_order() -> None:
    options = SelectionOptions(
        filter="py", exclude="test", max_files=2, include=("a.py",), dir="src"
    )
    assert build_constraints_section(options).splitlines() == [
        "## Active Constraints",
        "- ONLY select files whose name matches the pattern: py",
        "- Do NOT select files whose name matches the pattern: test",
        "- Maximum 2 files can be read in total. Be selective.",
        "- The following files are already force-included and loaded. "
        "Do NOT request them again: a.py",
        "- Only select files within the directory: src",
    ]


# parse_response and normalize_response


def test_an_object_reply_is_normalised() -> None:
    assert parse_response({"done": True, "files": ["a.py"], "reason": "ok"}) == {
        "done": True,
        "files": ["a.py"],
        "reason": "ok",
    }


def test_a_string_reply_is_parsed_from_its_first_brace_span() -> None:
    text = 'Here you go: {"done": false, "files": ["a.py"], "reason": "x"} hope it helps'
    assert parse_response(text) == {"done": False, "files": ["a.py"], "reason": "x"}


def test_a_string_reply_with_nested_objects_is_parsed_whole() -> None:
    text = '{"done": true, "files": [], "reason": "r", "extra": {"k": 1}}'
    assert parse_response(text) == {"done": True, "files": [], "reason": "r"}


def test_a_string_without_braces_falls_back() -> None:
    assert parse_response("I think you need a.py") == FAILURE


def test_a_string_with_invalid_json_in_braces_falls_back() -> None:
    assert parse_response("{done: true, files: [a.py]}") == FAILURE


def test_a_string_whose_brace_span_crosses_two_objects_falls_back() -> None:
    assert parse_response('{"done": true} and {"files": []}') == FAILURE


@pytest.mark.parametrize("reply", [None, 42, 3.5, True, ["a.py"]], ids=repr)
def test_anything_else_falls_back(reply: object) -> None:
    assert parse_response(reply) == FAILURE


def test_done_is_coerced_like_a_javascript_boolean() -> None:
    assert normalize_response({"done": "yes"})["done"] is True
    assert normalize_response({"done": "false"})["done"] is True
    assert normalize_response({"done": []})["done"] is True
    assert normalize_response({"done": 0})["done"] is False
    assert normalize_response({"done": ""})["done"] is False
    assert normalize_response({})["done"] is False


def test_files_keeps_only_non_empty_strings() -> None:
    found = normalize_response({"files": ["a.py", "", "  ", None, 7, {"p": 1}, "b.py"]})
    assert found["files"] == ["a.py", "b.py"]


def test_files_that_is_not_a_list_becomes_empty() -> None:
    assert normalize_response({"files": "a.py"})["files"] == []


def test_reason_is_coerced_to_a_string_defaulting_to_empty() -> None:
    assert normalize_response({})["reason"] == ""
    assert normalize_response({"reason": None})["reason"] == ""
    assert normalize_response({"reason": 12})["reason"] == "12"
    assert normalize_response({"reason": False})["reason"] == "false"


@pytest.mark.parametrize(
    "context", [None, "### src/app.py\n\n```\nx = 1\n```"], ids=["initial", "followup"]
)
def test_rendered_prompts_match_their_snapshots(
    prompts: PromptLibrary, context: str | None, snapshot: Callable[[str, str], None]
) -> None:
    model = ScriptedModel([{"done": True, "files": [], "reason": ""}])
    ask(model, prompts, context, build_constraints_section({"maxFiles": 3, "dir": "src"}))
    name = "followup" if context else "initial"
    snapshot(f"file_select/{name}.txt", model.prompts[0].prompt)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(
    reply=_JSON
    | st.dictionaries(st.sampled_from(["done", "files", "reason", "x"]), _JSON)
    | st.text()
    .map(lambda t: "{" + t + "}")
    .flatmap(lambda t: st.sampled_from([t, "note " + t, t + " end"]))
)
def test_parse_response_always_returns_a_well_formed_choice(reply: object) -> None:
    found = parse_response(reply)
    assert set(found) == {"done", "files", "reason"}
    assert isinstance(found["done"], bool)
    assert all(isinstance(f, str) and f.strip() for f in found["files"])
    assert isinstance(found["reason"], str)
