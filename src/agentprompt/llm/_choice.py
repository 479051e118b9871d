"""The one way a front door gets the model a caller asked for: what the caller named, then
the environment, then the config file (see :mod:`agentprompt.llm.config`), made into a
client ready to ask.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from agentprompt.llm._executor import ClientPromptExecutor
from agentprompt.llm.base import ModelClient, PromptExecutor
from agentprompt.llm.clients import make_client
from agentprompt.llm.config import ModelConfig, resolve_model_config
from agentprompt.llm.errors import ModelConfigError, ModelNotConfigured

__all__ = ["ChosenModel", "ModelSpec", "model_from_environment"]


@dataclass(frozen=True, kw_only=True)
class ModelSpec:
    """The model a caller asked for; None leaves a setting to the environment and the
    config file."""

    model: str | None = None
    """``openai:NAME``, ``anthropic:NAME`` or ``script:FILE`` (a bare name is read as
    ``anthropic:`` or ``openai:``); None for ``$AGENTPROMPT_MODEL``, then the config file."""
    base_url: str | None = None
    """The model server's address; None for the provider's variable, then the config file,
    then the provider's own API."""
    api_key_env: str | None = None
    """The environment variable holding the API key; None for the provider's default."""
    timeout: float | None = None
    """Seconds to wait for the server; None for the configured value."""


@dataclass(frozen=True, kw_only=True)
class ChosenModel:
    """A model ready to ask: its configuration and its client."""

    config: ModelConfig
    """Which model, where, and how long to wait for it."""
    client: ModelClient
    """The chat client that asks it."""

    @property
    def executor(self) -> PromptExecutor:
        """The model as a prompt executor: a model that runs prompts itself (a reply script,
        a test model) answers them with its items as they are; a chat client runs them as
        one-message requests."""
        if isinstance(self.client, PromptExecutor):
            return self.client
        return ClientPromptExecutor(client=self.client)

    @property
    def scripted(self) -> bool:
        """The model replays a script (no network, no tokenizer of its own)."""
        return self.config.provider == "script"


def model_from_environment(
    spec: ModelSpec,
    environ: Mapping[str, str],
    *,
    needed_for: str | None = None,
    without: str | None = None,
    script_advice: str = "",
) -> ChosenModel:
    """The model ``spec`` names, with the settings it leaves open taken from ``environ``
    and the config file, and its client.

    ``needed_for`` says what needs the model (``"select"``) and ``without`` how to go on
    without one (it may name inputs as ``{print_prompt}``); both word the error when no
    model is usable. ``script_advice`` ends a reply script's out-of-answers error.

    Raises :class:`~agentprompt.llm.errors.ModelNotConfigured` when no model is named or
    its configuration (name, config file, script) cannot be used, and the client's
    :class:`~agentprompt.llm.errors.ModelError` (such as
    :class:`~agentprompt.llm.errors.MissingApiKey`) when it cannot be made.
    """
    try:
        config = resolve_model_config(
            spec.model,
            base_url=spec.base_url,
            api_key_env=spec.api_key_env,
            timeout=spec.timeout,
            env=environ,
        )
        client = make_client(config, script_advice=script_advice)
    except ModelNotConfigured as exc:
        raise exc.needed(needed_for, without=without) from None
    except ModelConfigError as exc:
        raise ModelNotConfigured(reason=exc, needed_for=needed_for) from None
    return ChosenModel(config=config, client=client)
