"""Provider wire forms: messages to and from OpenAI and Anthropic dicts, and plain text."""

from agentprompt.wire.anthropic import MAX_CACHE_BREAKPOINTS, from_anthropic, to_anthropic
from agentprompt.wire.openai import from_openai, to_openai
from agentprompt.wire.text import to_text

__all__ = [
    "MAX_CACHE_BREAKPOINTS",
    "from_anthropic",
    "from_openai",
    "to_anthropic",
    "to_openai",
    "to_text",
]
