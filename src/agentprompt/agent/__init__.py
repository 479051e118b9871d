"""The agent prompting system: the session (:mod:`agentprompt.agent.session`), reminders,
compaction and topic detection, request placement, system prompts and specialised agents
(the todo list is :mod:`agentprompt.todos`).

The package exports what a user of the agent needs; the working parts are imported from
their modules. Names are imported on first use, so importing one module of the package does
not load the whole session machinery.

Errors::

    AgentPromptError
    ├── CompactionError     the model gave no usable summary; the history is left as it was
    └── SessionStateError   a stored agent session cannot be resumed

An unusable topic-boundary reply is an ``AgentPromptError``; agent files raise
:class:`~agentprompt.errors.InvalidAgentDefinition` and
:class:`~agentprompt.errors.UnknownAgent`.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.agent._reminders import (
        ReminderFacts,
        build_reminders,
        inject_reminders,
        remove_reminders,
    )
    from agentprompt.agent._system_prompt import (
        PromptFacts,
        agent_system_prompt,
        main_system_parts,
        main_system_prompt,
    )
    from agentprompt.agent._topic import TopicBoundary, TopicDetector
    from agentprompt.agent.compaction import (
        Compaction,
        CompactionError,
        CompactionPolicy,
        compact_history,
    )
    from agentprompt.agent.placement import PlacedRequest, ProfileName, SystemText, place_request
    from agentprompt.agent.runtime import Chat, create_session, open_chat
    from agentprompt.agent.session.driver import AgentSession, Delegate
    from agentprompt.agent.session.persist import SessionStateError, restore_session, save_session
    from agentprompt.agent.session.prompt import (
        PromptInputs,
        SystemPromptBuilder,
        seed_system_prompt,
    )
    from agentprompt.agent.session.values import AgentRole, SessionConfig, SessionEvent, TurnResult
    from agentprompt.agent.specialized import (
        AgentCatalog,
        AgentSpec,
        InvalidAgentDefinition,
        UnknownAgent,
        scan_agents,
    )

_SOURCES = {
    "AgentCatalog": "agentprompt.agent.specialized",
    "AgentRole": "agentprompt.agent.session.values",
    "AgentSession": "agentprompt.agent.session.driver",
    "AgentSpec": "agentprompt.agent.specialized",
    "Chat": "agentprompt.agent.runtime",
    "Compaction": "agentprompt.agent.compaction",
    "CompactionError": "agentprompt.agent.compaction",
    "CompactionPolicy": "agentprompt.agent.compaction",
    "Delegate": "agentprompt.agent.session.driver",
    "InvalidAgentDefinition": "agentprompt.agent.specialized",
    "PlacedRequest": "agentprompt.agent.placement",
    "ProfileName": "agentprompt.agent.placement",
    "PromptFacts": "agentprompt.agent._system_prompt",
    "PromptInputs": "agentprompt.agent.session.prompt",
    "ReminderFacts": "agentprompt.agent._reminders",
    "SessionConfig": "agentprompt.agent.session.values",
    "SessionEvent": "agentprompt.agent.session.values",
    "SessionStateError": "agentprompt.agent.session.persist",
    "SystemPromptBuilder": "agentprompt.agent.session.prompt",
    "SystemText": "agentprompt.agent.placement",
    "TopicBoundary": "agentprompt.agent._topic",
    "TopicDetector": "agentprompt.agent._topic",
    "TurnResult": "agentprompt.agent.session.values",
    "UnknownAgent": "agentprompt.agent.specialized",
    "agent_system_prompt": "agentprompt.agent._system_prompt",
    "build_reminders": "agentprompt.agent._reminders",
    "compact_history": "agentprompt.agent.compaction",
    "create_session": "agentprompt.agent.runtime",
    "inject_reminders": "agentprompt.agent._reminders",
    "main_system_parts": "agentprompt.agent._system_prompt",
    "main_system_prompt": "agentprompt.agent._system_prompt",
    "open_chat": "agentprompt.agent.runtime",
    "place_request": "agentprompt.agent.placement",
    "remove_reminders": "agentprompt.agent._reminders",
    "restore_session": "agentprompt.agent.session.persist",
    "save_session": "agentprompt.agent.session.persist",
    "scan_agents": "agentprompt.agent.specialized",
    "seed_system_prompt": "agentprompt.agent.session.prompt",
}

__all__ = [
    "AgentCatalog",
    "AgentRole",
    "AgentSession",
    "AgentSpec",
    "Chat",
    "Compaction",
    "CompactionError",
    "CompactionPolicy",
    "Delegate",
    "InvalidAgentDefinition",
    "PlacedRequest",
    "ProfileName",
    "PromptFacts",
    "PromptInputs",
    "ReminderFacts",
    "SessionConfig",
    "SessionEvent",
    "SessionStateError",
    "SystemPromptBuilder",
    "SystemText",
    "TopicBoundary",
    "TopicDetector",
    "TurnResult",
    "UnknownAgent",
    "agent_system_prompt",
    "build_reminders",
    "compact_history",
    "create_session",
    "inject_reminders",
    "main_system_parts",
    "main_system_prompt",
    "open_chat",
    "place_request",
    "remove_reminders",
    "restore_session",
    "save_session",
    "scan_agents",
    "seed_system_prompt",
]

__getattr__ = _lazy_attributes(globals(), _SOURCES)
