"""The workflow runtime's layered prompt composer.

A workflow runtime turns a workflow package (``agents.json`` v1.1, ``workflow.graph.json``
and step files) and a run's state into the messages for the model, layer by layer and by
mode: ``run`` (with an active step, or the post-completion profile), ``agent`` and
``chat``. Real paths never reach the model: it sees the mounts ``@project``, ``@pkg``
(read-only) and ``@state`` (hidden), and paths it sends back are de-aliased safely.

Errors::

    AgentPromptError
    └── WorkflowError
        ├── InvalidPackageFile      a package file that cannot be used (``kind``: workflow
        │   │                       graph, run state; ``problems``: each with its pointer)
        │   └── InvalidAgentsFile   an ``agents.json`` that cannot be used (also an
        │                           :class:`~agentprompt.errors.InvalidAgentDefinition`)
        ├── UnknownPackageAgent     an agent id the package does not define (also an
        │                           :class:`~agentprompt.errors.UnknownAgent`)
        └── UnsafeModelPath         a model's path that leaves its mount, uses ``..``, names
                                    no mount, or writes under the read-only ``@pkg``

An unknown node or package, and compose inputs that do not fit together, are a
``UsageError``.
"""

from __future__ import annotations

from agentprompt.workflow._agents import AgentDefinition, AgentsFile, load_agents_file
from agentprompt.workflow._aliases import Mounts, dealias
from agentprompt.workflow._errors import (
    InvalidAgentDefinition,
    InvalidAgentsFile,
    InvalidPackageFile,
    PackageProblem,
    UnknownAgent,
    UnknownPackageAgent,
    UnsafeModelPath,
    WorkflowError,
)
from agentprompt.workflow._graph import WorkflowGraph, load_graph
from agentprompt.workflow._state import default_state_dir, load_run_state, save_run_state
from agentprompt.workflow.compose import (
    LAYER_NAMES,
    PROFILE_NAMES,
    WorkflowContext,
    compose_workflow,
    workflow_messages,
    workflow_profile,
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
from agentprompt.workflow.package import (
    RuntimeStore,
    WorkflowPackage,
    load_package,
    package_problems,
)
from agentprompt.workflow.runtime import WorkflowTurn, build_compose_input, compose_turn

__all__ = [
    "INTENTS",
    "LAYER_NAMES",
    "MODES",
    "PROFILE_NAMES",
    "AgentDefinition",
    "AgentsFile",
    "ComposeInput",
    "Intent",
    "InvalidAgentDefinition",
    "InvalidAgentsFile",
    "InvalidPackageFile",
    "Mode",
    "Mounts",
    "NodeBrief",
    "PackageProblem",
    "RunState",
    "RuntimeStore",
    "UnknownAgent",
    "UnknownPackageAgent",
    "UnsafeModelPath",
    "WorkflowContext",
    "WorkflowError",
    "WorkflowGraph",
    "WorkflowPackage",
    "WorkflowTurn",
    "build_compose_input",
    "compose_turn",
    "compose_workflow",
    "dealias",
    "default_state_dir",
    "load_agents_file",
    "load_graph",
    "load_package",
    "load_run_state",
    "package_problems",
    "save_run_state",
    "workflow_messages",
    "workflow_profile",
]
