"""The workflow runtime's prompt, layer by layer in a fixed order for each mode.

=====================  ===========================================================
profile                layers
=====================  ===========================================================
``run``                BaseRuntimeRules (run), ToolPolicy, Persona | RunDirective,
                       NodeBrief, UserInput (with ``forNodeId``)
``run-completed``      BaseRuntimeRules (run), ToolPolicy, Persona | RunDirective
                       (Post-Run Protocol, no ``currentNodeId``), UserInput
``agent``              BaseRuntimeRules (conversation), ToolPolicy, Persona | UserInput
``chat``               BaseRuntimeRules (conversation), ToolPolicy | UserInput
=====================  ===========================================================

System layers are session-stable (the rules, which depend on the profile and on whether
the agent may write files; the tool policy; the persona), so they share one cached system
message; user layers change every turn. Empty user input adds no
layer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from agentprompt.composition import Composition, compose
from agentprompt.messages import Message
from agentprompt.prompts.loader import PromptLibrary
from agentprompt.sections import Profile, SectionRole, SectionSpec, Stability
from agentprompt.tokens import Tokenizer
from agentprompt.workflow import _layers as layers
from agentprompt.workflow.inputs import ComposeInput

__all__ = [
    "LAYER_NAMES",
    "PROFILE_NAMES",
    "WorkflowContext",
    "compose_workflow",
    "profile_name",
    "workflow_messages",
    "workflow_profile",
]

PROFILE_NAMES: tuple[str, ...] = ("run", "run-completed", "agent", "chat")
"""The workflow profiles, one per mode (two for run)."""


@dataclass(frozen=True, kw_only=True)
class WorkflowContext:
    """What the workflow profiles build their sections from."""

    data: ComposeInput
    """The compose input."""
    prompts: PromptLibrary
    """Where the layers' prompt files come from."""


LAYER_NAMES: dict[str, str] = {
    "base_runtime_rules": "BaseRuntimeRules",
    "tool_policy": "ToolPolicy",
    "persona": "Persona",
    "run_directive": "RunDirective",
    "node_brief": "NodeBrief",
    "user_input": "UserInput",
}
"""The layer name (as ``compose --json`` reports it) each section id builds."""

Layer = Callable[[ComposeInput, PromptLibrary], str | None]


def _spec(
    section_id: str, layer: Layer, role: SectionRole, stability: Stability
) -> SectionSpec[WorkflowContext]:
    return SectionSpec(
        id=section_id,
        build=lambda ctx: layer(ctx.data, ctx.prompts),
        role=role,
        stability=stability,
    )


_RULES = _spec("base_runtime_rules", layers.base_runtime_rules, "system", Stability.SESSION)
_TOOLS = _spec("tool_policy", layers.tool_policy, "system", Stability.SESSION)
_PERSONA = _spec("persona", layers.persona, "system", Stability.SESSION)
_DIRECTIVE = _spec("run_directive", layers.run_directive, "user", Stability.TURN)
_BRIEF = _spec("node_brief", layers.node_brief, "user", Stability.TURN)
_INPUT = _spec("user_input", layers.user_input, "user", Stability.TURN)

_LAYERS: dict[str, tuple[SectionSpec[WorkflowContext], ...]] = {
    "run": (_RULES, _TOOLS, _PERSONA, _DIRECTIVE, _BRIEF, _INPUT),
    "run-completed": (_RULES, _TOOLS, _PERSONA, _DIRECTIVE, _INPUT),
    "agent": (_RULES, _TOOLS, _PERSONA, _INPUT),
    "chat": (_RULES, _TOOLS, _INPUT),
}

_DESCRIPTIONS = {
    "run": "A workflow run with an active step.",
    "run-completed": "A workflow run after completion: the Post-Completion Profile.",
    "agent": "A session with one agent of a workflow package.",
    "chat": "Free, tool-enabled chat without a persona.",
}


@cache
def workflow_profile(name: str) -> Profile[WorkflowContext]:
    """The profile ``name`` (one of :data:`PROFILE_NAMES`)."""
    return Profile(name=name, specs=_LAYERS[name], description=_DESCRIPTIONS[name])


def profile_name(data: ComposeInput) -> str:
    """Which profile a compose input uses."""
    if data.mode == "run":
        return "run" if data.active_step else "run-completed"
    return data.mode


def compose_workflow(
    data: ComposeInput,
    *,
    prompts: PromptLibrary | None = None,
    counter: Tokenizer | None = None,
) -> Composition:
    """The workflow runtime's messages for ``data``, with tokens and cache breakpoints.

    Prompt files resolve for the project (its ``config/prompts/workflow/*.md`` override the
    packaged ones) unless ``prompts`` is given.
    """
    library = prompts or PromptLibrary(data.project_root)
    context = WorkflowContext(data=data, prompts=library)
    return compose(workflow_profile(profile_name(data)), context, counter=counter)


def workflow_messages(data: ComposeInput, *, prompts: PromptLibrary | None = None) -> list[Message]:
    """Just the messages of :func:`compose_workflow`."""
    return list(compose_workflow(data, prompts=prompts).messages)
