"""Which client answers a model configuration: the OpenAI or Anthropic SDK client, or a reply
script.

The client modules are imported when a client is made, so reading a configuration (and
starting the command line) loads neither them nor their SDKs.
"""

from __future__ import annotations

from pathlib import Path

from agentprompt.llm.base import ModelClient
from agentprompt.llm.config import ModelConfig

__all__ = ["make_client"]


def make_client(config: ModelConfig, *, script_advice: str = "") -> ModelClient:
    """A chat client for ``config``: the OpenAI or Anthropic SDK client, or a reply script
    (``script_advice`` ends its out-of-answers error).

    The SDKs are imported when a client is made, not before. Raises :class:`MissingApiKey`
    when a key is needed and none is configured, :class:`ClientNotInstalled` when the SDK is
    missing, and :class:`ModelConfigError` for an unreadable reply script.
    """
    if config.provider == "script":
        from agentprompt.llm._script import load_script_model

        return load_script_model(Path(config.model), advice=script_advice)
    if config.provider == "anthropic":
        from agentprompt.llm._anthropic_client import AnthropicClient

        return AnthropicClient(config)
    from agentprompt.llm._openai_client import OpenAIClient

    return OpenAIClient(config)
