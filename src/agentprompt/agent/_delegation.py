"""Sub-agents: what the explore, plan and agent tools (and ``@agent_name``) run.

:func:`run_delegation` is the session's answer to a
:class:`~agentprompt.tools.context.DelegationRequest`: a new session with the specialised
agent's role on the parent's model, tools and prompts, run for one turn on
the task; its final response is the tool's result. The explorer is read-only, the planner
proposes todos into the parent's own todo list (so the user can accept or reject them),
and custom agents get the tools, required tools and model their definition names (a
``provider:name`` model gets a client of its own). Sub-agents never stream, get no todo
reminder, and may not start the plan or agent tools themselves.
"""

from __future__ import annotations

from dataclasses import replace

from agentprompt.agent.session.driver import AgentSession
from agentprompt.agent.session.values import AgentRole, SessionEvent
from agentprompt.agent.specialized import (
    AgentSpec,
    explorer_agent,
    find_agent,
    planner_agent,
    scan_agents,
)
from agentprompt.llm.base import ModelClient
from agentprompt.llm.clients import make_client
from agentprompt.llm.config import resolve_model_config
from agentprompt.todos import TodoList
from agentprompt.tools.context import DelegationRequest
from agentprompt.tools.policy import ToolPolicy

__all__ = ["NESTED_TOOLS", "delegation_role", "run_delegation"]

NESTED_TOOLS = frozenset({"plan", "agent"})
"""Tools a sub-agent may not call: only the main agent plans and delegates to agents."""


def _policy(base: ToolPolicy, spec: AgentSpec, read_only: bool) -> ToolPolicy:
    enabled = frozenset(spec.tools) if spec.tools is not None else base.enabled
    if enabled is not None and base.enabled is not None:
        enabled = enabled & base.enabled
    return replace(
        base,
        enabled=enabled,
        disabled=base.disabled | NESTED_TOOLS,
        read_only=base.read_only or spec.read_only or read_only,
        required_tools=spec.required_tools,
    )


def _spec(parent: AgentSession, request: DelegationRequest) -> AgentSpec:
    if request.kind == "explore":
        return explorer_agent(parent.prompts)
    if request.kind == "plan":
        return planner_agent(parent.prompts)
    catalog = scan_agents(parent.root)
    name = request.agent_name or "general"
    broken = catalog.problem_for(name)
    if broken is not None:
        raise broken
    return find_agent(catalog.agents, name)


def delegation_role(
    parent: AgentSession, request: DelegationRequest, spec: AgentSpec | None = None
) -> AgentRole:
    """The role a sub-agent runs with for ``request`` under ``parent`` (``spec``: its
    definition, when already looked up)."""
    spec = spec or _spec(parent, request)
    policy = _policy(parent.config.policy, spec, request.read_only)
    if request.kind == "plan":  # the plan waits for the user's answer
        policy = replace(policy, propose_todos=True)
    return AgentRole(
        name=spec.name,
        base_prompt=spec.system_prompt,
        task=request.task,
        policy=policy,
        depth=parent.depth + 1,
        model=spec.model if spec.model and ":" not in spec.model else None,
    )


def _client(parent: AgentSession, spec: AgentSpec) -> ModelClient:
    """The client a sub-agent asks: its definition's ``provider:name`` model gets a client
    of its own (configured like ``--model``); otherwise the parent's. A model that cannot be
    reached raises a :class:`~agentprompt.llm.errors.ModelError`, which the agent tool
    reports to the calling model."""
    if spec.model is None or ":" not in spec.model:
        return parent.client
    return make_client(resolve_model_config(spec.model))


def run_delegation(parent: AgentSession, request: DelegationRequest) -> str:
    """Run the sub-agent ``request`` asks for and return its final response. The planner
    shares the parent's todo list; other agents get their own. Ctrl-C in the sub-agent
    interrupts the parent's turn too."""
    spec = _spec(parent, request)
    role = delegation_role(parent, request, spec)
    child = AgentSession(
        client=_client(parent, spec),
        root=parent.root,
        system_prompt=parent.system_prompt,
        registry=parent.registry,
        config=replace(parent.config, stream=False, once=False),
        prompts=parent.prompts,
        todos=parent.todos if request.kind == "plan" else TodoList(),
        role=role,
        delegate=parent.delegate,
        on_event=parent.on_event,
        counter=parent.counter,
    )
    child.stop = request.stop
    if parent.on_event is not None:
        parent.on_event(
            SessionEvent(
                kind="delegation", text=request.task, name=role.name, depth=parent.depth + 1
            )
        )
    result = child.run_turn(request.task)
    if result.interrupted:
        raise KeyboardInterrupt
    return result.text or parent.prompts.render("agent/no_response", agent=role.name)
