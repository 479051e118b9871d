"""The reference agent, assembled: a session with the built-in tools, the main agent's system
prompt, sub-agents and a store; what ``agentprompt chat`` and ``run --once`` drive."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import TracebackType

from agentprompt.agent._delegation import run_delegation
from agentprompt.agent.session.driver import AgentSession
from agentprompt.agent.session.persist import (
    SessionStateError,
    load_session_state,
    restore_session,
    save_session,
)
from agentprompt.agent.session.prompt import seed_system_prompt
from agentprompt.agent.session.values import SessionConfig, SessionEvent, TurnResult
from agentprompt.agent.specialized import scan_agents
from agentprompt.context.environment import working_directory
from agentprompt.llm.base import ModelClient
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.store import Store, default_store_path
from agentprompt.tools.builtins import default_registry
from agentprompt.tools.registry import ToolRegistry

__all__ = ["Chat", "create_session", "open_chat"]


def create_session(
    *,
    client: ModelClient,
    root: Path,
    config: SessionConfig | None = None,
    prompts: PromptLibrary | None = None,
    registry: ToolRegistry | None = None,
    on_event: Callable[[SessionEvent], None] | None = None,
    clock: Callable[[], dt.datetime] | None = None,
    cwd: Path | None = None,
) -> AgentSession:
    """A main-agent session over ``root`` with the built-in tools, the main agent's regenerated
    system prompt, the explore/plan/agent sub-agents and ``@agent_name`` delegation.
    ``cwd`` is where the user works (inside ``root``; default: ``root``): the prompt's
    working directory, where the instruction files' hierarchy ends."""
    root = root.resolve()
    where = working_directory(root, cwd)
    config = config or SessionConfig()
    prompts = prompts or PromptLibrary(root)
    session = AgentSession(
        client=client,
        root=root,
        system_prompt=seed_system_prompt(prompts, clock=clock, cwd=where),
        registry=registry if registry is not None else default_registry(prompts),
        config=config,
        prompts=prompts,
        delegate=run_delegation,
        on_event=on_event,
    )
    session.agent_catalog = lambda: scan_agents(root)
    session.agent_names = scan_agents(root).names
    return session


class Chat:
    """A session bound to its row in the state database: each turn is saved after it."""

    def __init__(
        self, session: AgentSession, store: Store, session_id: str, *, new: bool = False
    ) -> None:
        self.session = session
        """The agent session."""
        self.store = store
        """Where it is saved."""
        self.session_id = session_id
        """Its id in the store."""
        self.new = new
        """The session was created for this chat and has not held a message yet: if that
        is still so when the chat closes (every turn failed, or none was asked), its row is
        removed again."""

    def turn(self, text: str) -> TurnResult:
        """Run one turn and save the session, also when the turn fails."""
        try:
            return self.session.run_turn(text)
        finally:
            self.save()

    def save(self) -> None:
        """Save the session's current state over its row."""
        save_session(self.store, self.session, self.session_id)
        if self.session.history:
            self.new = False  # it holds a conversation now, kept even if cleared later

    def close(self) -> None:
        """Close the store, removing a new session that never got a message."""
        try:
            if self.new and not self.session.history:
                self.store.delete_session(self.session_id)
        finally:
            self.store.close()

    def __enter__(self) -> Chat:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_chat(
    *,
    client: ModelClient,
    root: Path,
    config: SessionConfig,
    db: Path | None = None,
    resume_id: str | None = None,
    profile_given: bool = True,
    on_event: Callable[[SessionEvent], None] | None = None,
    cwd: Path | None = None,
) -> Chat:
    """A new stored session, or the stored session ``resume_id`` restored (its profile
    kept unless ``profile_given``), worked on from ``cwd`` (see :func:`create_session`).
    A bad id or a damaged state raises before anything is written."""
    path = db or default_store_path(root)
    if resume_id is not None and not path.exists():
        raise SessionStateError(
            f"no session {resume_id!r}: there is no state database at {path}; start a new "
            "session without --resume"
        )
    store = Store(path)
    try:
        state = None
        if resume_id is not None:
            state = load_session_state(store, resume_id).state
            stored_profile = state.get("profile")
            if not profile_given and stored_profile in ("agent", "ally"):
                config = replace(config, profile="ally" if stored_profile == "ally" else "agent")
        session = create_session(
            client=client, root=root, config=config, on_event=on_event, cwd=cwd
        )
        if state is not None and resume_id is not None:
            restore_session(session, state, label=resume_id)
            return Chat(session, store, resume_id)
        return Chat(session, store, save_session(store, session), new=True)
    except BaseException:
        store.close()
        raise
