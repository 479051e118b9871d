"""The workflow prompt's layers, each a function from the compose input to its text.

Layer text comes from the prompt files under ``prompts/workflow/``. Every value that does
not come from the runtime itself (persona fields, step files, titles, run variables, the
user's input) is aliased, so no real path of a mount reaches the model, and escaped, so it
cannot open or close one of the runtime's blocks.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from agentprompt.jsondata import map_strings
from agentprompt.prompts.loader import PromptLibrary, PromptTemplate
from agentprompt.workflow._agents import (
    AGENTS_FILE,
    USER_TEMPLATE_VARIABLES,
    AgentDefinition,
    uses_node_id,
)
from agentprompt.workflow._aliases import HIDDEN_PATH, Mounts, alias_text
from agentprompt.workflow._graph import GRAPH_FILE, Artifact, Edge
from agentprompt.workflow._markers import escape_markers, wrap_user_input
from agentprompt.workflow.inputs import ComposeInput

__all__ = [
    "GRAPH_PATH",
    "STATE_FILE",
    "STATE_PATH",
    "base_runtime_rules",
    "node_brief",
    "persona",
    "run_directive",
    "tool_policy",
    "user_input",
]

STATE_FILE = "run.json"
"""The run state file's name inside the state directory."""

GRAPH_PATH = f"@pkg/{GRAPH_FILE}"
"""The workflow graph as the model sees it."""

STATE_PATH = f"@state/{STATE_FILE}"
"""The run state file as the model sees it."""


def _foreign(text: str, mounts: Mounts) -> str:
    """Text from outside the runtime, made safe to place in a block."""
    return escape_markers(alias_text(text, mounts))


def _attribute(text: str) -> str:
    """Text made safe inside a double-quoted tag attribute."""
    return text.replace("&", "&amp;").replace('"', "&quot;")


def _lines(items: Iterable[str], prompts: PromptLibrary, empty: str = "workflow/none") -> str:
    text = "\n".join(items)
    return text or prompts.render(empty)


def _items(items: Iterable[str], prompts: PromptLibrary) -> list[str]:
    return [prompts.render("workflow/list_item", item=item) for item in items]


def _writes(agent: AgentDefinition) -> bool:
    return agent.tools.fs.enabled and agent.tools.fs.access == "read-write"


def base_runtime_rules(data: ComposeInput, prompts: PromptLibrary) -> str:
    """BaseRuntimeRules: the mounts and the graph as source of truth (run or conversation).

    In a run, the rules for an active step tell the model to record moves and outputs in
    files when its tool policy allows writing, and to report them in its reply otherwise;
    after completion the rules say there is no current node.
    """
    mounts = prompts.render("workflow/mounts", hidden=HIDDEN_PATH)
    if data.mode != "run":
        return prompts.render("workflow/base_rules_conversation", mounts=mounts)
    if data.active_step:
        writes = _writes(data.agent_definition)
        record = "workflow/record_write" if writes else "workflow/record_report"
        rules = prompts.render("workflow/run_rules_active", record=prompts.render(record))
    else:
        rules = prompts.render("workflow/run_rules_completed")
    return prompts.render("workflow/base_rules_run", mounts=mounts, run_rules=rules)


def tool_policy(data: ComposeInput, prompts: PromptLibrary) -> str:
    """ToolPolicy, derived from the agent's ``tools``: fs on/off, access, ``maxReadBytes``;
    MCP on/off and which servers."""
    tools = data.agent_definition.tools
    if not tools.fs.enabled:
        fs = prompts.render("workflow/tool_policy/fs_off")
    else:
        access = "fs_read" if tools.fs.access == "read" else "fs_read_write"
        fs = prompts.render(
            f"workflow/tool_policy/{access}", max_read_bytes=tools.fs.max_read_bytes
        )
    if not tools.mcp.enabled:
        mcp = prompts.render("workflow/tool_policy/mcp_off")
    elif tools.mcp.servers is None:
        mcp = prompts.render("workflow/tool_policy/mcp_all")
    else:
        servers = "\n".join(
            prompts.render("workflow/tool_policy/mcp_server", server=s) for s in tools.mcp.servers
        )
        mcp = prompts.render("workflow/tool_policy/mcp_servers", servers=servers)
    return prompts.render("workflow/tool_policy", agent=data.agent_definition.id, fs=fs, mcp=mcp)


def _heading(agent: AgentDefinition, prompts: PromptLibrary) -> str:
    heading = prompts.render("workflow/persona_heading", name=agent.name, title=agent.title)
    if agent.icon is None:
        return heading
    return prompts.render("workflow/persona_heading_icon", icon=agent.icon, heading=heading)


def persona(data: ComposeInput, prompts: PromptLibrary) -> str:
    """Persona: the agent's ``systemPrompt`` when it has one, else its persona rendered."""
    agent = data.agent_definition
    mounts = data.mounts
    if agent.system_prompt is not None:
        return prompts.render(
            "workflow/persona_system_prompt",
            agent=agent.id,
            system_prompt=_foreign(agent.system_prompt, mounts),
        )
    p = agent.persona
    return prompts.render(
        "workflow/persona",
        agent=agent.id,
        heading=_foreign(_heading(agent, prompts), mounts),
        role=_foreign(p.role, mounts),
        identity=_foreign(p.identity, mounts),
        communication_style=_foreign(p.communication_style, mounts),
        principles=_foreign("\n".join(_items(p.principles, prompts)), mounts),
    )


def _variables(data: ComposeInput, prompts: PromptLibrary) -> str:
    if not data.run_state.variables:
        return ""
    mounts = data.mounts
    aliased = map_strings(dict(data.run_state.variables), lambda text: alias_text(text, mounts))
    text = json.dumps(aliased, indent=2, ensure_ascii=False, sort_keys=True, default=str)
    return prompts.render("workflow/run_variables", variables=_foreign(text, mounts)) + "\n"


def run_directive(data: ComposeInput, prompts: PromptLibrary) -> str:
    """RunDirective: the intent, the aliased graph and state paths, and the current node
    (or, after completion, the Post-Run Protocol and no current node)."""
    graph_id = data.graph.id if data.graph is not None else ""
    common = {
        "intent": data.intent,
        "workflow": graph_id,
        "graph": GRAPH_PATH,
        "state": STATE_PATH,
        "variables": _variables(data, prompts),
    }
    if not data.active_step:
        return prompts.render("workflow/run_directive_completed", **common)
    node = data.run_state.current_node_id or ""
    instruction = prompts.render(f"workflow/intent/{data.intent}", node=node, state=STATE_PATH)
    return prompts.render("workflow/run_directive", **common, node_id=node, instruction=instruction)


def _artifact(a: Artifact, prompts: PromptLibrary) -> str:
    def part(name: str, value: str | None, **values: str) -> str:
        return "" if value is None else prompts.render(f"workflow/{name}", **values)

    return prompts.render(
        "workflow/artifact_line",
        name=a.name,
        description=part("artifact_description", a.description, description=a.description or ""),
        path=part("artifact_path", a.path, path=a.path or ""),
        optional="" if a.required else prompts.render("workflow/artifact_optional"),
    )


def _edge(e: Edge, prompts: PromptLibrary) -> str:
    label = "" if e.label is None else prompts.render("workflow/transition_label", label=e.label)
    condition = (
        ""
        if e.condition is None
        else prompts.render("workflow/transition_condition", condition=e.condition)
    )
    return prompts.render(
        "workflow/transition_line", target=e.target, label=label, condition=condition
    )


def node_brief(data: ComposeInput, prompts: PromptLibrary) -> str | None:
    """NodeBrief: the current node's step file (aliased, with its content), inputs,
    outputs, validation rules and allowed transitions; None after completion."""
    brief = data.node_brief
    if brief is None or not data.active_step:
        return None
    mounts = data.mounts
    step_path = _foreign(f"@pkg/{brief.step_file_path_in_pkg}", mounts)
    if brief.step_content is None:
        step = prompts.render("workflow/step_pointer", path=step_path)
    else:
        content = _foreign(brief.step_content.rstrip("\n"), mounts)
        step = prompts.render("workflow/step_file", path=_attribute(step_path), content=content)
    return prompts.render(
        "workflow/node_brief",
        node_id=brief.node_id,
        title=_foreign(brief.title, mounts),
        step_file=step_path,
        inputs=_foreign(_lines((_artifact(a, prompts) for a in brief.inputs), prompts), mounts),
        outputs=_foreign(_lines((_artifact(a, prompts) for a in brief.outputs), prompts), mounts),
        validation=_foreign(_lines(_items(brief.validation, prompts), prompts), mounts),
        transitions=_foreign(
            _lines(
                (_edge(e, prompts) for e in brief.transitions), prompts, "workflow/no_transitions"
            ),
            mounts,
        ),
        step=step,
    )


def user_input(data: ComposeInput, prompts: PromptLibrary) -> str | None:
    """UserInput: the user's text wrapped so it cannot close or forge a block, bound to the
    current node (``forNodeId``) only while a run has an active step; None when empty.

    The agent's ``userTemplate`` presents it in run and agent modes. The generic Task
    format does instead when the agent has no template, in chat mode, and when the
    template names ``{{nodeId}}`` but there is no active step (it would read "step :").
    """
    if not data.user_input.strip():
        return None
    node = data.run_state.current_node_id if data.active_step else None
    wrapped = wrap_user_input(alias_text(data.user_input, data.mounts), node)
    agent = data.agent_definition
    template = agent.user_template
    if template is None or data.mode == "chat" or (node is None and uses_node_id(template)):
        return prompts.render("workflow/user_input_task", input=wrapped)
    rendered = PromptTemplate(
        name=f"{AGENTS_FILE}#{agent.id}/userTemplate",
        path=data.package_root / AGENTS_FILE,
        body=_foreign(template, data.mounts),
        variables=USER_TEMPLATE_VARIABLES,
    )
    return rendered.render(input=wrapped, nodeId=node or "")
