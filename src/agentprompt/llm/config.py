"""Which model to ask and how to reach it: flags, environment and config file, in that order.

A model is named ``PROVIDER:MODEL``: ``openai:gpt-4o`` (any OpenAI-compatible server),
``anthropic:claude-sonnet-4-5``, or ``script:FILE`` (replies replayed from a JSON file, no
network). A bare name is read as ``anthropic:`` when it starts with ``claude`` and as
``openai:`` otherwise, so ``llama3:8b`` on a local server works as it is.

Settings come from the arguments (the CLI's flags) first, then the environment
(``AGENTPROMPT_MODEL``, ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``ANTHROPIC_API_KEY``,
``ANTHROPIC_BASE_URL``), then the TOML file ``config.toml`` in the user config directory
(``$AGENTPROMPT_CONFIG_DIR`` or the platform's), which may hold a default ``model`` and one
table per provider::

    model = "openai:gpt-4o"

    [openai]
    base_url = "http://127.0.0.1:8080/v1"
    api_key_env = "LOCAL_LLM_KEY"
    timeout = 60

    [anthropic]
    max_tokens = 8192

    [agent]
    compact_threshold = 80

The ``[agent]`` table holds the agent session's settings (:class:`AgentSettings`).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, cast

import platformdirs

from agentprompt.llm.errors import MissingApiKey, ModelConfigError, ModelNotConfigured

__all__ = [
    "CONFIG_FILE_NAME",
    "DEFAULT_BASE_URLS",
    "KEY_ENV",
    "MODEL_ENV",
    "AgentSettings",
    "ModelConfig",
    "Provider",
    "ProviderSettings",
    "default_config_file",
    "read_config_file",
    "resolve_model_config",
]

Provider = Literal["openai", "anthropic", "script"]
"""Who answers: an OpenAI-compatible server, Anthropic, or a reply script (no network)."""

PROVIDERS: Final = ("openai", "anthropic", "script")
"""Every provider prefix a model name may start with."""

MODEL_ENV: Final = "AGENTPROMPT_MODEL"
"""The environment variable naming the model when the caller names none."""


KEY_ENV: Final[Mapping[str, str]] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
"""The environment variable each provider's API key is read from by default."""

BASE_URL_ENV: Final[Mapping[str, str]] = {
    "openai": "OPENAI_BASE_URL",
    "anthropic": "ANTHROPIC_BASE_URL",
}
"""The environment variable each provider's server address is read from."""

DEFAULT_BASE_URLS: Final[Mapping[str, str]] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
"""Each provider's own API address, used when no base URL is configured."""

CONFIG_FILE_NAME: Final = "config.toml"
"""The config file's name inside the user config directory."""

NO_KEY_PLACEHOLDER: Final = "unused"
"""The key sent to a server at a custom base URL when none is configured (local servers
that check no key accept any value, and the SDKs refuse to send none)."""

_SETTING_TYPES: Final[Mapping[str, tuple[type, ...]]] = {
    "base_url": (str,),
    "api_key": (str,),
    "api_key_env": (str,),
    "timeout": (int, float),
    "connect_timeout": (int, float),
    "max_retries": (int,),
    "max_tokens": (int,),
    "context_window": (int,),
}


@dataclass(frozen=True, kw_only=True)
class ProviderSettings:
    """One provider's table of the config file; None where the file says nothing."""

    base_url: str | None = None
    """The server's address."""
    api_key: str | None = field(default=None, repr=False)
    """The key itself (prefer ``api_key_env``, so the file holds no secret)."""
    api_key_env: str | None = None
    """The environment variable that holds the key."""
    timeout: float | None = None
    """Seconds to wait for the server between bytes of the reply."""
    connect_timeout: float | None = None
    """Seconds to wait for the connection to open."""
    max_retries: int | None = None
    """How often the SDK retries a request that failed for a passing reason (429, 5xx)."""
    max_tokens: int | None = None
    """The most tokens a reply may have when a request does not say."""
    context_window: int | None = None
    """The model's context size in tokens, for context-usage figures."""


@dataclass(frozen=True, kw_only=True)
class AgentSettings:
    """The config file's ``[agent]`` table; None where the file says nothing."""

    compact_threshold: float | None = None
    """Context usage, in percent (1 to 100), at which the agent compacts its history."""


_AGENT_SETTINGS: Final[Mapping[str, str]] = {
    "compact_threshold": "a number of percent from 1 to 100",
}


def _agent_settings(path: Path, raw: Any) -> AgentSettings:
    if not isinstance(raw, dict):
        raise ModelConfigError(f"{path}: [agent] must be a table of settings", source=str(path))
    for key, value in raw.items():
        if key not in _AGENT_SETTINGS:
            known = ", ".join(sorted(_AGENT_SETTINGS))
            raise ModelConfigError(
                f"{path}: [agent] has an unknown setting {key!r}; known settings: {known}",
                source=str(path),
            )
        if isinstance(value, bool) or not isinstance(value, int | float) or not 1 <= value <= 100:
            raise ModelConfigError(
                f"{path}: [agent] {key} must be {_AGENT_SETTINGS[key]}, not {value!r}",
                source=str(path),
            )
    threshold = raw.get("compact_threshold")
    return AgentSettings(compact_threshold=None if threshold is None else float(threshold))


@dataclass(frozen=True, kw_only=True)
class ConfigFile:
    """The parsed config file: a default model and each provider's settings."""

    path: Path | None = None
    """The file read, or None when there was none."""
    model: str | None = None
    """The default model name."""
    providers: Mapping[str, ProviderSettings] = field(default_factory=dict)
    """Settings per provider name."""
    agent: AgentSettings = field(default_factory=AgentSettings)
    """The agent session's settings (the ``[agent]`` table)."""


@dataclass(frozen=True, kw_only=True)
class ModelConfig:
    """Everything needed to build a client for one model."""

    provider: Provider
    """Who answers."""
    model: str
    """The provider's model name; for ``script``, the reply file's path."""
    base_url: str | None = None
    """The server's address; None for the provider's own API."""
    api_key: str | None = field(default=None, repr=False)
    """The API key; None when none is configured."""
    api_key_env: str | None = None
    """The environment variable the key was looked for in (named in errors)."""
    api_key_required: bool = False
    """Whether a key must be sent even to a custom base URL (the variable was named on
    purpose, by ``--api-key-env`` or the config file)."""
    timeout: float = 120.0
    """Seconds to wait for the server between bytes of the reply."""
    connect_timeout: float = 10.0
    """Seconds to wait for the connection to open."""
    max_retries: int = 2
    """How often the SDK retries a request that failed for a passing reason (429, 5xx)."""
    max_tokens: int | None = None
    """The most tokens a reply may have when a request does not say (Anthropic needs one)."""
    context_window: int | None = None
    """The model's context size in tokens, when configured."""

    @property
    def name(self) -> str:
        """The model as ``PROVIDER:MODEL``."""
        return f"{self.provider}:{self.model}"

    @property
    def endpoint(self) -> str:
        """The address requests go to: the base URL or the provider's own."""
        return self.base_url or DEFAULT_BASE_URLS.get(self.provider, "")


def default_config_file() -> Path:
    """``config.toml`` in ``$AGENTPROMPT_CONFIG_DIR`` or the platform's user config dir."""
    base = os.environ.get("AGENTPROMPT_CONFIG_DIR")
    root = Path(base) if base else Path(platformdirs.user_config_dir("agentprompt"))
    return root / CONFIG_FILE_NAME


def _settings(path: Path, table: str, raw: Any) -> ProviderSettings:
    if not isinstance(raw, dict):
        raise ModelConfigError(f"{path}: [{table}] must be a table of settings", source=str(path))
    values: dict[str, Any] = {}
    for key, value in raw.items():
        kinds = _SETTING_TYPES.get(key)
        if kinds is None:
            known = ", ".join(sorted(_SETTING_TYPES))
            raise ModelConfigError(
                f"{path}: [{table}] has an unknown setting {key!r}; known settings: {known}",
                source=str(path),
            )
        if isinstance(value, bool) or not isinstance(value, kinds):
            want = "a number" if float in kinds else ("a whole number" if int in kinds else "text")
            raise ModelConfigError(
                f"{path}: [{table}] {key} must be {want}, not {value!r}", source=str(path)
            )
        if kinds != (str,) and cast(float, value) < 0:
            raise ModelConfigError(
                f"{path}: [{table}] {key} must not be negative, not {value!r}", source=str(path)
            )
        values[key] = float(cast(float, value)) if float in kinds else value
    return ProviderSettings(**values)


def read_config_file(path: Path, *, required: bool = False) -> ConfigFile:
    """The settings in the TOML file ``path``; empty when it does not exist and not ``required``.

    Raises :class:`ModelConfigError` naming the file for unreadable TOML, unknown tables or
    settings, and values of the wrong type.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if required:
            raise ModelConfigError(
                f"the config file {path} does not exist", source=str(path)
            ) from None
        return ConfigFile()
    except OSError as exc:
        raise ModelConfigError(
            f"cannot read the config file {path}: {exc.strerror}", source=str(path)
        ) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ModelConfigError(
            f"the config file {path} is not valid TOML ({exc}); fix or remove it",
            source=str(path),
        ) from None
    model = data.pop("model", None)
    if model is not None and not isinstance(model, str):
        raise ModelConfigError(
            f'{path}: model must be text such as "openai:gpt-4o", not {model!r}',
            source=str(path),
        )
    agent = _agent_settings(path, data.pop("agent", {}))
    providers: dict[str, ProviderSettings] = {}
    for table, raw in data.items():
        if table not in KEY_ENV:
            raise ModelConfigError(
                f"{path}: unknown setting or table {table!r}; the file holds 'model' and the "
                "tables [openai], [anthropic] and [agent]",
                source=str(path),
            )
        providers[table] = _settings(path, table, raw)
    return ConfigFile(path=path, model=model, providers=providers, agent=agent)


def _split_name(name: str, source: str) -> tuple[Provider, str]:
    prefix, sep, rest = name.partition(":")
    if sep and prefix in PROVIDERS:
        if not rest.strip():
            raise ModelConfigError(
                f"the model {name!r} (from {source}) names no model after '{prefix}:'; "
                f"write it as {prefix}:NAME",
                source=source,
            )
        return cast(Provider, prefix), rest.strip()
    provider: Provider = "anthropic" if name.startswith("claude") else "openai"
    return provider, name


def _check_url(url: str, source: str) -> str:
    if not url.startswith(("http://", "https://")):
        raise ModelConfigError(
            f"the base URL {url!r} (from {source}) must start with http:// or https://",
            source=source,
        )
    return url


def _pick(*candidates: tuple[Any, str]) -> tuple[Any, str]:
    for value, source in candidates:
        if value is not None and value != "":
            return value, source
    return None, ""


def resolve_model_config(
    model: str | None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    api_key_env: str | None = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    config_file: Path | None = None,
) -> ModelConfig:
    """The configuration of the model to ask, from arguments, ``env`` and the config file.

    ``model`` is ``PROVIDER:MODEL`` (or a bare name); when None, ``$AGENTPROMPT_MODEL`` and
    then the config file's ``model`` name it. ``api_key_env`` names the variable the key is
    read from instead of the provider's default. ``env`` defaults to ``os.environ``; a given
    ``config_file`` must exist, the default one may be missing. A missing key is not an
    error here: :func:`~agentprompt.llm.clients.make_client` reports it, so a
    configuration can be shown without one.
    """
    env = os.environ if env is None else env
    file = (
        read_config_file(config_file, required=True)
        if config_file is not None
        else read_config_file(default_config_file())
    )
    where = str(file.path) if file.path else "the config file"
    name, source = _pick(
        (model, "--model"), (env.get(MODEL_ENV, "").strip(), MODEL_ENV), (file.model, where)
    )
    if name is None:
        raise ModelNotConfigured(model_env=MODEL_ENV, config_file=str(default_config_file()))
    provider, model_name = _split_name(str(name).strip(), source)
    if provider == "script":
        return ModelConfig(provider="script", model=model_name)
    settings = file.providers.get(provider, ProviderSettings())
    url, url_source = _pick(
        (base_url, "--base-url"),
        (env.get(BASE_URL_ENV[provider], "").strip(), BASE_URL_ENV[provider]),
        (settings.base_url, where),
    )
    key_env = api_key_env or settings.api_key_env or KEY_ENV[provider]
    key, _ = _pick((api_key, ""), (env.get(key_env, "").strip(), ""), (settings.api_key, ""))
    defaults = ModelConfig(provider=provider, model=model_name)
    return ModelConfig(
        provider=provider,
        model=model_name,
        base_url=_check_url(url, url_source).rstrip("/") if url else None,
        api_key=key,
        api_key_env=key_env,
        api_key_required=bool(api_key_env or settings.api_key_env),
        timeout=timeout if timeout is not None else (settings.timeout or defaults.timeout),
        connect_timeout=settings.connect_timeout or defaults.connect_timeout,
        max_retries=(
            settings.max_retries if settings.max_retries is not None else defaults.max_retries
        ),
        max_tokens=settings.max_tokens,
        context_window=settings.context_window,
    )


def api_key_for(config: ModelConfig) -> str:
    """The key to send: the configured one, a placeholder for a custom server, else an error.

    Raises :class:`MissingApiKey` when the provider's own API would be asked with no key, or
    when the key's variable was named on purpose and is not set.
    """
    if config.api_key:
        return config.api_key
    if config.base_url and not config.api_key_required:
        return NO_KEY_PLACEHOLDER
    raise MissingApiKey(config.provider, config.api_key_env or KEY_ENV[config.provider])
