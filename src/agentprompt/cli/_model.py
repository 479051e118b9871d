"""The model flags every command that asks a model shares.

``@model_options`` adds ``--model``, ``--base-url``, ``--api-key-env`` and ``--timeout`` to
a command and hands the command one :class:`~agentprompt.llm.ModelSpec` as ``model_opts``;
the command gets its model with :func:`~agentprompt.llm.model_from_environment` (see
:mod:`agentprompt.llm.config` for how flags, environment and config file combine).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from agentprompt.llm import MODEL_ENV, ModelSpec

__all__ = ["model_options"]

F = TypeVar("F", bound=Callable[..., Any])


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
        options = ModelSpec(
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
