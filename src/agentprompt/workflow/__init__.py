"""The workflow runtime composer (seed 002).

A workflow runtime turns a workflow package (``agents.json`` v1.1, ``workflow.graph.json``
and step files) and a run's state into the messages for the model, layer by layer and by
mode: ``run`` (with an active step, or the post-completion profile), ``agent`` and
``chat``. Real paths never reach the model: it sees the mounts ``@project``, ``@pkg``
(read-only) and ``@state`` (hidden), and paths it sends back are de-aliased safely.
"""

from __future__ import annotations

from agentprompt.workflow.agents import (
    AGENTS_FILE,
    DEFAULT_MAX_READ_BYTES,
    AgentDefinition,
    AgentsFile,
    FsAccess,
    FsPolicy,
    McpPolicy,
    Persona,
    ToolSettings,
    load_agents_file,
)
from agentprompt.workflow.aliases import (
    MOUNT_NAMES,
    MountName,
    Mounts,
    alias_path,
    alias_text,
    dealias,
)
from agentprompt.workflow.compose import (
    PROFILE_NAMES,
    WorkflowContext,
    compose_workflow,
    profile_name,
    workflow_messages,
    workflow_profile,
)
from agentprompt.workflow.errors import (
    InvalidAgentDefinition,
    InvalidComposeInput,
    InvalidPackageFile,
    InvalidRunState,
    InvalidWorkflowGraph,
    PackageProblem,
    ReadOnlyMount,
    UnknownAgent,
    UnknownNode,
    UnknownPackage,
    UnsafeModelPath,
    WorkflowError,
)
from agentprompt.workflow.graph import (
    GRAPH_FILE,
    Artifact,
    Edge,
    GraphNode,
    WorkflowGraph,
    load_graph,
)
from agentprompt.workflow.inputs import (
    INTENTS,
    MODES,
    ComposeInput,
    Intent,
    Mode,
    NodeBrief,
    RunState,
)
from agentprompt.workflow.markers import (
    LAYER_TAGS,
    WrappedInput,
    escape_markers,
    find_markers,
    unescape_markers,
    unwrap_user_input,
    wrap_user_input,
)
from agentprompt.workflow.package import (
    RuntimeStore,
    WorkflowPackage,
    load_package,
    node_brief_for,
    package_problems,
)
from agentprompt.workflow.runtime import build_compose_input
from agentprompt.workflow.state import (
    default_state_dir,
    load_run_state,
    run_state_path,
    save_run_state,
)

__all__ = [
    "AGENTS_FILE",
    "DEFAULT_MAX_READ_BYTES",
    "GRAPH_FILE",
    "INTENTS",
    "LAYER_TAGS",
    "MODES",
    "MOUNT_NAMES",
    "PROFILE_NAMES",
    "AgentDefinition",
    "AgentsFile",
    "Artifact",
    "ComposeInput",
    "Edge",
    "FsAccess",
    "FsPolicy",
    "GraphNode",
    "Intent",
    "InvalidAgentDefinition",
    "InvalidComposeInput",
    "InvalidPackageFile",
    "InvalidRunState",
    "InvalidWorkflowGraph",
    "McpPolicy",
    "Mode",
    "MountName",
    "Mounts",
    "NodeBrief",
    "PackageProblem",
    "Persona",
    "ReadOnlyMount",
    "RunState",
    "RuntimeStore",
    "ToolSettings",
    "UnknownAgent",
    "UnknownNode",
    "UnknownPackage",
    "UnsafeModelPath",
    "WorkflowContext",
    "WorkflowError",
    "WorkflowGraph",
    "WorkflowPackage",
    "WrappedInput",
    "alias_path",
    "alias_text",
    "build_compose_input",
    "compose_workflow",
    "dealias",
    "default_state_dir",
    "escape_markers",
    "find_markers",
    "load_agents_file",
    "load_graph",
    "load_package",
    "load_run_state",
    "node_brief_for",
    "package_problems",
    "profile_name",
    "run_state_path",
    "save_run_state",
    "unescape_markers",
    "unwrap_user_input",
    "workflow_messages",
    "workflow_profile",
    "wrap_user_input",
]
