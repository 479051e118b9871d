"""``model_from_environment``: the one way a front door gets the model a caller asked for."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentprompt.errors import UsageError
from agentprompt.llm import (
    ClientPromptExecutor,
    ModelConfigError,
    ModelNotConfigured,
    ModelSpec,
    ScriptFileModel,
    ScriptOutOfAnswers,
    model_from_environment,
)


def _flags(name: str) -> str:
    return "--" + name.replace("_", "-")


def _script(tmp_path: Path, answers: list[object]) -> str:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers))
    return f"script:{path}"


def test_the_model_is_named_by_the_spec_before_the_environment(tmp_path: Path) -> None:
    named = _script(tmp_path, ["hi"])
    chosen = model_from_environment(ModelSpec(model=named), {"AGENTPROMPT_MODEL": "openai:m"})
    assert chosen.scripted and isinstance(chosen.client, ScriptFileModel)


def test_the_environment_given_names_the_model(tmp_path: Path) -> None:
    chosen = model_from_environment(
        ModelSpec(), {"AGENTPROMPT_MODEL": "openai:m", "OPENAI_BASE_URL": "http://h/v1"}
    )
    assert (chosen.config.provider, chosen.config.model) == ("openai", "m")
    assert chosen.config.base_url == "http://h/v1"


def test_a_script_runs_prompts_itself_and_a_client_through_the_executor(tmp_path: Path) -> None:
    script = model_from_environment(ModelSpec(model=_script(tmp_path, [{"a": 1}])), {})
    assert script.executor is script.client
    real = model_from_environment(ModelSpec(model="openai:m", base_url="http://h/v1"), {})
    assert isinstance(real.executor, ClientPromptExecutor)


def test_no_model_is_a_usage_error_worded_for_what_needs_it() -> None:
    with pytest.raises(ModelNotConfigured) as caught:
        model_from_environment(
            ModelSpec(), {}, needed_for="commit-msg", without="use {print_prompt} instead"
        )
    error = caught.value
    assert isinstance(error, UsageError) and isinstance(error, ModelConfigError)
    assert str(error).startswith("commit-msg needs a usable model: no model is named; pass model ")
    worded = error.worded(_flags)
    assert "pass --model openai:MODEL, anthropic:MODEL or script:FILE" in worded
    assert worded.endswith(", or use --print-prompt instead")
    assert "--" not in str(error).replace(str(error.config_file), "")


def test_an_unusable_configuration_keeps_its_reason(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    with pytest.raises(ModelNotConfigured) as caught:
        model_from_environment(ModelSpec(model=f"script:{bad}"), {}, needed_for="select")
    assert str(caught.value).startswith(f"select needs a usable model: the model script {bad}")
    assert isinstance(caught.value.reason, ModelConfigError)


def test_the_script_advice_ends_its_out_of_answers_error(tmp_path: Path) -> None:
    chosen = model_from_environment(
        ModelSpec(model=_script(tmp_path, [])), {}, script_advice="or ask less"
    )
    with pytest.raises(ScriptOutOfAnswers, match=r"JSON list, or ask less$"):
        chosen.executor.execute_prompt("p")
