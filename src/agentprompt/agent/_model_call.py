"""One call to the model for a session: whole or streamed, and the tokens it used."""

from __future__ import annotations

from collections.abc import Callable

from agentprompt.llm.base import ModelClient, ModelReply, ModelRequest, ReplyDone, TextDelta
from agentprompt.llm.errors import ModelStreamInterrupted

__all__ = ["call_model", "reported_tokens"]


def call_model(
    client: ModelClient,
    request: ModelRequest,
    *,
    stream: bool = False,
    on_text: Callable[[str], None] | None = None,
) -> ModelReply:
    """The model's reply to ``request``; with ``stream``, each piece of text goes to
    ``on_text`` as it arrives. A stream that ends without its final event raises
    :class:`~agentprompt.llm.errors.ModelStreamInterrupted` carrying the text so far."""
    if not stream:
        return client.complete(request)
    text: list[str] = []
    for event in client.stream(request):
        if isinstance(event, TextDelta):
            text.append(event.text)
            if on_text is not None:
                on_text(event.text)
        elif isinstance(event, ReplyDone):
            return event.reply
    raise ModelStreamInterrupted(
        request.model or "model",
        "the stream ended without its final event",
        partial=ModelReply(text="".join(text)),
    )


def reported_tokens(reply: ModelReply) -> int:
    """The context tokens the provider reports for a call (prompt, cached or not, and
    reply); 0 when it reported none."""
    u = reply.usage
    return u.input_tokens + u.cache_read_tokens + u.cache_write_tokens + u.output_tokens
