"""The switch that keeps real model requests out of tests."""

from __future__ import annotations

import os

import pytest

from agentprompt.errors import AgentPromptError
from agentprompt.llm import (
    ALLOW_MODEL_REQUESTS_ENV,
    ModelRequestsBlocked,
    check_model_requests_allowed,
    model_requests,
)


def test_real_model_requests_are_blocked_in_the_test_suite() -> None:
    assert os.environ[ALLOW_MODEL_REQUESTS_ENV] == "0"
    with pytest.raises(ModelRequestsBlocked):
        check_model_requests_allowed("openai")


def test_the_blocked_error_names_the_client_and_points_to_the_test_models() -> None:
    with pytest.raises(ModelRequestsBlocked) as caught:
        check_model_requests_allowed("anthropic")
    message = str(caught.value)
    assert "anthropic" in message
    assert f"{ALLOW_MODEL_REQUESTS_ENV}=0" in message
    assert "ScriptedModel" in message
    assert "FunctionModel" in message


def test_the_blocked_error_is_an_agentprompt_error() -> None:
    assert issubclass(ModelRequestsBlocked, AgentPromptError)


@pytest.mark.parametrize("value", ["0", "false", "no", "FALSE", " No "])
def test_these_values_block_real_requests(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(ALLOW_MODEL_REQUESTS_ENV, value)
    with pytest.raises(ModelRequestsBlocked):
        check_model_requests_allowed("openai")


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_these_values_allow_real_requests(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(ALLOW_MODEL_REQUESTS_ENV, value)
    check_model_requests_allowed("openai")


def test_real_requests_are_allowed_when_the_variable_is_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ALLOW_MODEL_REQUESTS_ENV)
    check_model_requests_allowed("openai")


def test_model_requests_true_allows_real_requests_within_the_block() -> None:
    with model_requests(True):
        check_model_requests_allowed("openai")
    with pytest.raises(ModelRequestsBlocked):
        check_model_requests_allowed("openai")


def test_model_requests_false_blocks_real_requests_within_the_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ALLOW_MODEL_REQUESTS_ENV, "1")
    with model_requests(False), pytest.raises(ModelRequestsBlocked):
        check_model_requests_allowed("openai")
    check_model_requests_allowed("openai")


def test_model_requests_restores_the_previous_value() -> None:
    with model_requests(True):
        assert os.environ[ALLOW_MODEL_REQUESTS_ENV] == "1"
    assert os.environ[ALLOW_MODEL_REQUESTS_ENV] == "0"


def test_model_requests_unsets_the_variable_again_when_it_was_unset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(ALLOW_MODEL_REQUESTS_ENV)
    with model_requests(False):
        assert os.environ[ALLOW_MODEL_REQUESTS_ENV] == "0"
    assert ALLOW_MODEL_REQUESTS_ENV not in os.environ


def test_model_requests_restores_the_previous_value_when_the_block_raises() -> None:
    with pytest.raises(RuntimeError), model_requests(True):
        raise RuntimeError("inside")
    assert os.environ[ALLOW_MODEL_REQUESTS_ENV] == "0"
