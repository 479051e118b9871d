"""The agent session: one conversation with an agent, cut at its seams.

``values.py`` holds what a session is configured with and reports (config, role, events,
results); ``prompt.py`` the system prompt it regenerates before every call; ``turn.py`` the
bookkeeping of one turn; ``driver.py`` the session itself, which drives the turns;
``persist.py`` saving it in the project's store and resuming it; ``profiles.py`` the
``agent`` and ``ally`` profiles that show a session's first call. Names are imported on
first use.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.agent.session.driver import AgentSession, Delegate
    from agentprompt.agent.session.persist import SessionStateError, restore_session, save_session
    from agentprompt.agent.session.prompt import (
        PromptInputs,
        SystemPromptBuilder,
        seed_system_prompt,
    )
    from agentprompt.agent.session.values import AgentRole, SessionConfig, SessionEvent, TurnResult

_SOURCES = {
    "AgentRole": "agentprompt.agent.session.values",
    "AgentSession": "agentprompt.agent.session.driver",
    "Delegate": "agentprompt.agent.session.driver",
    "PromptInputs": "agentprompt.agent.session.prompt",
    "SessionConfig": "agentprompt.agent.session.values",
    "SessionEvent": "agentprompt.agent.session.values",
    "SessionStateError": "agentprompt.agent.session.persist",
    "SystemPromptBuilder": "agentprompt.agent.session.prompt",
    "TurnResult": "agentprompt.agent.session.values",
    "restore_session": "agentprompt.agent.session.persist",
    "save_session": "agentprompt.agent.session.persist",
    "seed_system_prompt": "agentprompt.agent.session.prompt",
}

__all__ = [
    "AgentRole",
    "AgentSession",
    "Delegate",
    "PromptInputs",
    "SessionConfig",
    "SessionEvent",
    "SessionStateError",
    "SystemPromptBuilder",
    "TurnResult",
    "restore_session",
    "save_session",
    "seed_system_prompt",
]

__getattr__ = _lazy_attributes(globals(), _SOURCES)
