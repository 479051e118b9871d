"""The client a model configuration gets: the provider's SDK client or a reply script."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agentprompt.llm import (
    ClientNotInstalled,
    MissingApiKey,
    ModelClient,
    ModelConfig,
    ScriptFileModel,
    make_client,
    resolve_model_config,
)
from agentprompt.llm._anthropic_client import AnthropicClient
from agentprompt.llm._openai_client import OpenAIClient


def test_make_client_without_a_key_for_the_providers_own_api_names_the_variable() -> None:
    config = resolve_model_config("openai:gpt-4o", env={})
    with pytest.raises(MissingApiKey) as caught:
        make_client(config)
    assert caught.value.env_var == "OPENAI_API_KEY"
    assert "OPENAI_API_KEY" in str(caught.value) and "--api-key-env" in str(caught.value)


def test_make_client_without_a_key_names_the_variable_asked_for() -> None:
    config = resolve_model_config("anthropic:c", api_key_env="TEAM_KEY", env={})
    with pytest.raises(MissingApiKey, match="TEAM_KEY"):
        make_client(config)


def test_make_client_builds_the_providers_client() -> None:
    openai_config = ModelConfig(provider="openai", model="m", api_key="k")
    anthropic_config = ModelConfig(provider="anthropic", model="c", api_key="k")
    openai_client = make_client(openai_config)
    anthropic_client = make_client(anthropic_config)
    assert isinstance(openai_client, OpenAIClient) and isinstance(openai_client, ModelClient)
    assert isinstance(anthropic_client, AnthropicClient)
    assert isinstance(anthropic_client, ModelClient)


def test_make_client_for_a_script_replays_the_file(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text('["hello"]')
    client = make_client(resolve_model_config(f"script:{script}", env={}))
    assert isinstance(client, ScriptFileModel) and isinstance(client, ModelClient)


def test_a_missing_sdk_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(ClientNotInstalled) as caught:
        make_client(ModelConfig(provider="anthropic", model="c", api_key="k"))
    assert "pip install 'agentprompt[anthropic]'" in str(caught.value)


def test_a_named_key_variable_that_is_unset_is_missing_even_for_a_custom_server() -> None:
    config = resolve_model_config(
        "openai:m", base_url="http://127.0.0.1:1/v1", api_key_env="LOCAL_KEY", env={}
    )
    with pytest.raises(MissingApiKey, match="LOCAL_KEY"):
        make_client(config)


def test_a_custom_server_without_any_key_setting_gets_a_client() -> None:
    config = resolve_model_config("openai:m", base_url="http://127.0.0.1:1/v1", env={})
    assert isinstance(make_client(config), OpenAIClient)
