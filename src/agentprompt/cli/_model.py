"""The model options every command that asks a model shares, and the client they select.

``@model_options`` adds ``--model``, ``--base-url``, ``--api-key-env`` and ``--timeout`` to
a command and hands the command one :class:`ModelOptions` value as ``model_opts``;
:func:`client_from_options` turns it into a chat client (see :mod:`agentprompt.llm.config`
for how flags, environment and config file combine).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from agentprompt.llm.base import ModelClient
from agentprompt.llm.clients import make_client
from agentprompt.llm.config import MODEL_ENV, ModelConfig, resolve_model_config

__all__ = ["ModelOptions", "client_from_options", "config_from_options", "model_options"]

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True, kw_only=True)
class ModelOptions:
    """The model a command was told to ask, as given on the command line."""

    model: str | None = None
    """``--model``: ``openai:NAME``, ``anthropic:NAME`` or ``script:FILE``; None for the default."""
    base_url: str | None = None
    """``--base-url``: the server's address; None for the environment or config file's."""
    api_key_env: str | None = None
    """``--api-key-env``: the environment variable holding the key; None for the default."""
    timeout: float | None = None
    """``--timeout``: seconds to wait for the server; None for the configured value."""


def model_options(command: F) -> F:
    """Add the model flags to a click command; it receives them as ``model_opts``."""

    @functools.wraps(command)
    def wrapper(
        *args: Any,
        model: str | None,
        base_url: str | None,
        api_key_env: str | None,
        timeout: float | None,
        **kwargs: Any,
    ) -> Any:
        options = ModelOptions(
            model=model, base_url=base_url, api_key_env=api_key_env, timeout=timeout
        )
        return command(*args, model_opts=options, **kwargs)

    decorated: Any = wrapper
    for option in reversed(
        [
            click.option(
                "--model",
                default=None,
                metavar="PROVIDER:NAME",
                help=(
                    "The model: openai:NAME (any OpenAI-compatible server), anthropic:NAME, "
                    f"or script:FILE (replies from a JSON file). Default: ${MODEL_ENV}, "
                    "then the config file."
                ),
            ),
            click.option(
                "--base-url",
                default=None,
                metavar="URL",
                help="The model server's address (default: $OPENAI_BASE_URL / "
                "$ANTHROPIC_BASE_URL, then the config file, then the provider's API).",
            ),
            click.option(
                "--api-key-env",
                default=None,
                metavar="NAME",
                help="The environment variable holding the API key "
                "(default: OPENAI_API_KEY / ANTHROPIC_API_KEY).",
            ),
            click.option(
                "--timeout",
                type=click.FloatRange(min=0, min_open=True),
                default=None,
                metavar="SECONDS",
                help="Seconds to wait for the model server (default: 120).",
            ),
        ]
    ):
        decorated = option(decorated)
    result: F = decorated
    return result


def config_from_options(options: ModelOptions) -> ModelConfig:
    """The model configuration the flags select, with the environment and config file."""
    return resolve_model_config(
        options.model,
        base_url=options.base_url,
        api_key_env=options.api_key_env,
        timeout=options.timeout,
    )


def client_from_options(options: ModelOptions) -> ModelClient:
    """The chat client the flags select; a :class:`~agentprompt.llm.errors.ModelError` if none."""
    return make_client(config_from_options(options))
