"""The ``execute_prompt`` interface (one prompt in, an object or a string out) on top of any
chat model client."""

from __future__ import annotations

import json
from dataclasses import dataclass

from agentprompt.llm.base import ModelClient, ModelRequest
from agentprompt.messages import Message

__all__ = ["ClientPromptExecutor"]


@dataclass(frozen=True, kw_only=True)
class ClientPromptExecutor:
    """Runs one-shot prompts on a chat client, choosing the model by the ``mode`` hint."""

    client: ModelClient
    """The chat model client that answers."""
    fast_model: str | None = None
    """The model for ``mode="fast"``; None for the client's default."""
    smart_model: str | None = None
    """The model for any other mode; None for the client's default."""

    def execute_prompt(
        self, prompt: str, *, mode: str = "fast", response_shape: str = "json"
    ) -> object:
        """The reply; with ``response_shape="json"``, parsed when it is one JSON value."""
        request = ModelRequest(
            messages=(Message(role="user", content=prompt),),
            model=self.fast_model if mode == "fast" else self.smart_model,
            mode="fast" if mode == "fast" else "smart",
            response_shape="json" if response_shape == "json" else "text",
        )
        text = self.client.complete(request).text
        if response_shape != "json":
            return text
        try:
            parsed: object = json.loads(text)
        except json.JSONDecodeError:
            return text
        return parsed
