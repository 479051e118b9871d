"""``@agent_name`` in a user message: delegate the rest of the message to that agent.

The delegation guidelines tell the main agent to delegate when the user tags an
agent; the session does it before the first model call of the turn, as a call of the
``agent`` tool, so the delegation is visible in the history like any other tool call and
the model then writes the turn's text response from the agent's result.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass

from agentprompt.messages import ToolCall

__all__ = ["AGENT_TOOL", "Mention", "find_mention", "mention_call"]

AGENT_TOOL = "agent"
"""The tool a mention becomes a call of."""

_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9][A-Za-z0-9_.-]*)")


@dataclass(frozen=True, kw_only=True)
class Mention:
    """An agent tagged in a user message."""

    agent_name: str
    """The tagged agent."""
    task: str
    """The message without the tag: the agent's task."""


def find_mention(text: str, agent_names: Iterable[str]) -> Mention | None:
    """The first ``@name`` in ``text`` that names a known agent, or None."""
    known = set(agent_names)
    for match in _MENTION.finditer(text):
        name = match.group(1).rstrip(".-")
        if name in known:
            rest = (text[: match.start()] + text[match.start() + 1 + len(name) :]).strip()
            return Mention(agent_name=name, task=" ".join(rest.split()) or text.strip())
    return None


def mention_call(mention: Mention, call_id: str) -> ToolCall:
    """The ``agent`` tool call that delegates a mention."""
    arguments = {"task_prompt": mention.task, "agent_name": mention.agent_name}
    return ToolCall(id=call_id, name=AGENT_TOOL, arguments=json.dumps(arguments))
