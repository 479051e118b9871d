"""Fixtures for the workflow composer: the example package and fixed compose inputs."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agentprompt.prompts.loader import PromptLibrary
from agentprompt.workflow import ComposeInput, RunState, WorkflowPackage, load_package
from agentprompt.workflow.package import node_brief_for

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workflow" / "feature-brief"
"""The example package shipped in examples/."""

PROJECT = Path("/home/user/project")
"""A fixed project root, so snapshots are byte-stable."""
STATE = PROJECT / ".agentprompt" / "workflow" / "feature-brief"
"""A fixed state directory inside the project."""


@pytest.fixture
def example() -> WorkflowPackage:
    """The example package, loaded from examples/."""
    return load_package(EXAMPLE)


@pytest.fixture
def package_copy(tmp_path: Path) -> Path:
    """A writable copy of the example package."""
    target = tmp_path / "feature-brief"
    shutil.copytree(EXAMPLE, target)
    return target


@pytest.fixture
def prompts(tmp_path: Path) -> PromptLibrary:
    """A prompt library that resolves only the packaged prompt files."""
    return PromptLibrary(tmp_path)


@pytest.fixture
def make_input(example: WorkflowPackage) -> Callable[..., ComposeInput]:
    """A compose input over the example package; keywords override its fields.

    ``node`` sets the run's current node and its brief; ``agent`` picks an agent by id.
    ``intent`` defaults as the runtime's does: ``start`` at the entry node, else ``continue``.
    """

    def build(
        mode: str = "run", *, node: str | None = "gather", agent: str | None = None, **kw: Any
    ) -> ComposeInput:
        completed = kw.pop("completed", False)
        variables = kw.pop("variables", {})
        agent_def = (
            example.agents.default if agent is None else example.agents.get(agent, package_id="x")
        )
        active = mode == "run" and not completed
        if "intent" not in kw:
            at_entry = active and node == example.graph.entry_node_id
            kw["intent"] = "start" if at_entry else "continue"
        base = ComposeInput(
            mode="chat",
            project_root=PROJECT,
            package_id=example.id,
            package_root=example.root,
            state_dir=STATE,
            agent_definition=agent_def,
            graph=example.graph,
        )
        return replace(
            base,
            mode=mode,
            run_state=RunState(
                current_node_id=node if active else None, variables=variables, completed=completed
            ),
            node_brief=node_brief_for(example, node) if active and node else None,
            **kw,
        )

    return build
