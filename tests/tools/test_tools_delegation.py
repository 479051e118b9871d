"""explore, plan and agent hand a DelegationRequest to the session's delegate."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from agentprompt.prompts.loader import PromptLibrary
from agentprompt.tools import DelegationRequest, ToolContext, ToolPolicy, ToolResult

Call = Callable[..., ToolResult]


def recording(
    ctx: ToolContext, answer: str = "done"
) -> tuple[ToolContext, list[DelegationRequest]]:
    seen: list[DelegationRequest] = []

    def delegate(request: DelegationRequest) -> str:
        seen.append(request)
        return answer

    return replace(ctx, delegate=delegate), seen


def test_explore_asks_for_a_read_only_explorer(call: Call, ctx: ToolContext) -> None:
    ctx, seen = recording(ctx, "Auth lives in src/auth.py")
    result = call("explore", ctx, task_description="  Find how auth works ")
    assert result.content == "Auth lives in src/auth.py"
    assert seen == [DelegationRequest(kind="explore", task="Find how auth works", read_only=True)]


def test_agent_passes_the_agent_name(call: Call, ctx: ToolContext) -> None:
    ctx, seen = recording(ctx)
    call("agent", ctx, task_prompt="Review security", agent_name="security-reviewer")
    assert seen == [
        DelegationRequest(kind="agent", task="Review security", agent_name="security-reviewer")
    ]
    call("agent", ctx, task_prompt="Do it")
    assert seen[-1].agent_name == "general"


def test_plan_with_proposed_todos_sets_the_fixed_tool_context(call: Call, ctx: ToolContext) -> None:
    def planner(request: DelegationRequest) -> str:
        ctx.todos.add("Add model", status="proposed")
        return "## Implementation Plan"

    result = call("plan", replace(ctx, delegate=planner), requirements="Add users")
    assert result.content == "## Implementation Plan"
    assert result.tool_context == PromptLibrary().render("tools/plan_context")
    assert result.tool_context.startswith(
        "You have just created a planning context with proposed todos. The user can either:\n"
        "- Accept the plan (todos automatically activated)\n"
        "- Reject the plan with deny_proposal()\n"
    )


def test_plan_without_proposals_sets_no_tool_context(call: Call, ctx: ToolContext) -> None:
    ctx, _ = recording(ctx, "Nothing to do")
    assert call("plan", ctx, requirements="x").tool_context is None


def test_delegation_without_a_runner_is_an_error_result(call: Call) -> None:
    result = call("explore", task_description="x")
    assert result.is_error and "no sub-agent runner" in result.content


def test_empty_task_is_refused_before_delegating(call: Call, ctx: ToolContext) -> None:
    ctx, seen = recording(ctx)
    assert call("plan", ctx, requirements="  ").is_error
    assert seen == []


def test_read_only_policy_offers_explore_but_not_plan_or_agent(
    call: Call, ctx: ToolContext
) -> None:
    ctx, _ = recording(replace(ctx, policy=ToolPolicy(read_only=True)))
    assert not call("explore", ctx, task_description="x").is_error
    assert call("plan", ctx, requirements="x").is_error
    assert call("agent", ctx, task_prompt="x").is_error
