"""The shipped JSON Schemas: valid, packaged, and documented field by field."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from jsonschema import Draft202012Validator

import agentprompt.workflow
from agentprompt.workflow._validation import load_schema

SCHEMAS = ["agents", "graph", "run_state"]


def _undocumented(node: Any, where: str) -> Iterator[str]:
    if isinstance(node, Mapping):
        for name, sub in node.get("properties", {}).items():
            if "description" not in sub:
                yield f"{where}/properties/{name}"
        for key, sub in node.items():
            yield from _undocumented(sub, f"{where}/{key}")
    elif isinstance(node, list):
        for i, sub in enumerate(node):
            yield from _undocumented(sub, f"{where}/{i}")


@pytest.mark.parametrize("name", SCHEMAS)
def test_each_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    Draft202012Validator.check_schema(load_schema(name))


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_field_of_each_schema_has_a_description(name: str) -> None:
    assert list(_undocumented(load_schema(name), "")) == []


def test_agents_schema_is_version_1_1() -> None:
    assert load_schema("agents")["properties"]["schemaVersion"]["const"] == "1.1"


def test_the_workflow_package_exports_a_sorted_all() -> None:
    names = agentprompt.workflow.__all__
    assert names == sorted(names, key=lambda n: (not n.isupper(), n[0].islower(), n))
    assert [n for n in names if not hasattr(agentprompt.workflow, n)] == []
