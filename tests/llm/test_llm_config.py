"""Model configuration: names, precedence of flags, environment and config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.errors import UsageError
from agentprompt.llm import (
    ModelConfig,
    ModelConfigError,
    ModelNotConfigured,
    read_config_file,
    resolve_model_config,
)
from agentprompt.llm.config import DEFAULT_BASE_URLS, default_config_file


@pytest.mark.parametrize(
    ("name", "provider", "model"),
    [
        ("openai:gpt-4o", "openai", "gpt-4o"),
        ("anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"),
        ("script:replies.json", "script", "replies.json"),
        ("claude-haiku-4-5", "anthropic", "claude-haiku-4-5"),
        ("gpt-4o-mini", "openai", "gpt-4o-mini"),
        ("llama3:8b", "openai", "llama3:8b"),
        ("openai:llama3:8b", "openai", "llama3:8b"),
    ],
)
def test_a_model_name_names_its_provider(name: str, provider: str, model: str) -> None:
    config = resolve_model_config(name, env={})
    assert (config.provider, config.model) == (provider, model)


def test_a_provider_prefix_without_a_model_is_an_error() -> None:
    with pytest.raises(ModelConfigError, match="names no model after 'openai:'"):
        resolve_model_config("openai:", env={})


def test_without_any_model_the_error_says_every_way_to_name_one() -> None:
    with pytest.raises(ModelConfigError) as caught:
        resolve_model_config(None, env={})
    message = caught.value.worded(lambda name: f"--{name}")
    assert "--model openai:MODEL, anthropic:MODEL or script:FILE" in message
    assert "AGENTPROMPT_MODEL" in message and str(default_config_file()) in message


def test_without_any_model_the_plain_error_names_no_flag() -> None:
    with pytest.raises(ModelNotConfigured) as caught:
        resolve_model_config(None, env={})
    assert isinstance(caught.value, UsageError)
    assert "--model" not in str(caught.value)
    assert str(caught.value).startswith(
        "no model is named; pass model openai:MODEL, anthropic:MODEL or script:FILE"
    )


def test_the_model_comes_from_the_flag_then_the_environment_then_the_file(
    user_config_dir: Path,
) -> None:
    (user_config_dir / "config.toml").write_text('model = "openai:from-file"\n')
    env = {"AGENTPROMPT_MODEL": "openai:from-env"}
    assert resolve_model_config("openai:from-flag", env=env).model == "from-flag"
    assert resolve_model_config(None, env=env).model == "from-env"
    assert resolve_model_config(None, env={}).model == "from-file"


def test_the_key_comes_from_the_providers_variable() -> None:
    config = resolve_model_config("anthropic:c", env={"ANTHROPIC_API_KEY": "sk-a"})
    assert config.api_key == "sk-a" and config.api_key_env == "ANTHROPIC_API_KEY"


def test_api_key_env_names_another_variable() -> None:
    env = {"OPENAI_API_KEY": "default", "MY_KEY": "mine"}
    config = resolve_model_config("openai:m", api_key_env="MY_KEY", env=env)
    assert config.api_key == "mine" and config.api_key_env == "MY_KEY"


def test_the_key_never_shows_in_the_configs_repr() -> None:
    config = resolve_model_config("openai:m", env={"OPENAI_API_KEY": "sk-secret"})
    assert "sk-secret" not in repr(config)


def test_the_base_url_comes_from_the_flag_then_the_environment_then_the_file(
    user_config_dir: Path,
) -> None:
    (user_config_dir / "config.toml").write_text('[openai]\nbase_url = "http://file/v1"\n')
    env = {"OPENAI_BASE_URL": "http://env/v1/"}
    assert resolve_model_config("m", base_url="http://flag/v1", env=env).base_url == (
        "http://flag/v1"
    )
    assert resolve_model_config("m", env=env).base_url == "http://env/v1"
    assert resolve_model_config("m", env={}).base_url == "http://file/v1"


def test_without_a_base_url_the_providers_own_api_is_the_endpoint() -> None:
    config = resolve_model_config("anthropic:c", env={})
    assert config.base_url is None and config.endpoint == DEFAULT_BASE_URLS["anthropic"]


def test_a_base_url_that_is_not_http_is_an_error_naming_its_source() -> None:
    with pytest.raises(ModelConfigError, match="from OPENAI_BASE_URL"):
        resolve_model_config("m", env={"OPENAI_BASE_URL": "localhost:8080"})


def test_the_config_files_provider_table_sets_limits_and_key_variable(
    user_config_dir: Path,
) -> None:
    (user_config_dir / "config.toml").write_text(
        "[anthropic]\napi_key_env = 'TEAM_KEY'\ntimeout = 30\nmax_retries = 0\n"
        "max_tokens = 4096\ncontext_window = 200000\nconnect_timeout = 2\n"
    )
    config = resolve_model_config("anthropic:c", env={"TEAM_KEY": "k"})
    assert config == ModelConfig(
        provider="anthropic",
        model="c",
        api_key="k",
        api_key_env="TEAM_KEY",
        api_key_required=True,
        timeout=30.0,
        connect_timeout=2.0,
        max_retries=0,
        max_tokens=4096,
        context_window=200000,
    )


def test_the_timeout_argument_wins_over_the_file(user_config_dir: Path) -> None:
    (user_config_dir / "config.toml").write_text("[openai]\ntimeout = 30\n")
    assert resolve_model_config("m", timeout=5, env={}).timeout == 5


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("model = [", "is not valid TOML"),
        ("model = 3", "model must be text"),
        ("[gemini]\nbase_url = 'x'", "unknown setting or table 'gemini'"),
        ("[openai]\nbase_ur = 'x'", "unknown setting 'base_ur'"),
        ("[openai]\ntimeout = 'long'", "timeout must be a number"),
        ("[openai]\nmax_retries = true", "max_retries must be a whole number"),
        ("[openai]\nmax_tokens = -1", "max_tokens must not be negative"),
        ("openai = 3", "[openai] must be a table"),
    ],
)
def test_a_bad_config_file_is_an_error_naming_the_file(
    user_config_dir: Path, text: str, message: str
) -> None:
    path = user_config_dir / "config.toml"
    path.write_text(text)
    with pytest.raises(ModelConfigError) as caught:
        resolve_model_config("openai:m", env={})
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_a_named_config_file_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ModelConfigError, match="does not exist"):
        resolve_model_config("m", env={}, config_file=tmp_path / "nope.toml")


def test_a_missing_default_config_file_is_no_error() -> None:
    assert read_config_file(default_config_file()).path is None
