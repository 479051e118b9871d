"""The delegation tools: explore, plan and agent run a sub-agent through the session.

Each hands a :class:`~agentprompt.tools.context.DelegationRequest` to ``ctx.delegate``
(supplied by the session) and returns the sub-agent's final response. explore asks for a
read-only agent; plan asks for the planner, and when the planner left proposed todos it
sets the tool-context reminder that tells the model how the user may accept or reject them
(before the next model call).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from agentprompt.tools.context import (
    DelegationRequest,
    ToolContext,
    ToolFailure,
    ToolResult,
)

__all__ = ["agent", "explore", "plan_tool"]


def _delegate(ctx: ToolContext, request: DelegationRequest) -> str:
    if ctx.delegate is None:
        raise ToolFailure(
            f"the {request.kind} tool cannot run here: this agent has no sub-agent runner; "
            "do the work with the other tools"
        )
    if not request.task.strip():
        raise ToolFailure("the task is empty; describe what the sub-agent should do")
    return ctx.delegate(replace(request, stop=ctx.stop))


def explore(ctx: ToolContext, task_description: str) -> str:
    """Delegate a read-only investigation of the codebase to an exploration agent.

    Args:
        task_description: What to find out, as a complete task for the explorer.
    """
    return _delegate(
        ctx, DelegationRequest(kind="explore", task=task_description.strip(), read_only=True)
    )


def plan_tool(plan_context: str) -> Callable[[ToolContext, str], ToolResult]:
    """The plan tool's function; ``plan_context`` is the reminder text set when the planner
    proposed todos."""

    def plan(ctx: ToolContext, requirements: str) -> ToolResult:
        """Delegate implementation planning to a planner agent that proposes todos.

        Args:
            requirements: What is to be built or changed, with every known constraint.
        """
        before = {t.id for t in ctx.todos.list() if t.status == "proposed"}
        response = _delegate(ctx, DelegationRequest(kind="plan", task=requirements.strip()))
        proposed = [t for t in ctx.todos.list() if t.status == "proposed"]
        new = [t for t in proposed if t.id not in before]
        return ToolResult(content=response, tool_context=plan_context if new else None)

    return plan


def agent(ctx: ToolContext, task_prompt: str, agent_name: str = "general") -> str:
    """Delegate a complex multi-step task to a specialised agent.

    Args:
        task_prompt: The complete task for the agent, with the context it needs.
        agent_name: Which agent to run (general, or a custom agent's name).
    """
    name = agent_name.strip() or "general"
    return _delegate(
        ctx, DelegationRequest(kind="agent", task=task_prompt.strip(), agent_name=name)
    )
