"""Seed 004's prompt files: system.md's six parts, its examples against the EDIT/REPL parser,
system_extra.md, the lookup fallbacks, and lazy skill loading."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentprompt.edits import AnchoredEdit, parse_reply
from agentprompt.prompts.loader import (
    PromptFileMissing,
    build_system_prompt,
    load_extra_prompt,
    load_skill,
    load_system_prompt,
)


def test_system_prompt_has_the_six_parts_in_order(tmp_path: Path) -> None:
    text = load_system_prompt(tmp_path)
    heads = ["# Role", "# Symbol Map", "# Edit Protocol", "# Workflow", "# Examples"]
    heads.append("# Failure Recovery")
    positions = [text.index(f"\n{h}\n") if i else text.index(f"{h}\n") for i, h in enumerate(heads)]
    assert positions == sorted(positions)


@pytest.mark.parametrize(
    "phrase",
    [
        "←N",
        "i→",
        "Inherited methods",
        "Excluded files",
        "Requesting files",
        "No markdown fencing",
        "Exact matching",
        "Context in both sections",
        "Edit sizing",
        "Sequential dependencies",
        "Query",
        "Search the map",
        "Trace",
        "Request files",
        "Never edit a file you have not seen",
    ],
)
def test_system_prompt_covers_each_listed_rule(tmp_path: Path, phrase: str) -> None:
    assert phrase in load_system_prompt(tmp_path)


def test_system_prompt_examples_parse_into_the_edits_they_describe(tmp_path: Path) -> None:
    examples = load_system_prompt(tmp_path).split("# Examples\n", 1)[1].split("# Failure", 1)[0]
    actions = parse_reply(examples, dialect="editrepl").actions
    assert [a.path for a in actions] == [
        "src/config.py",
        "src/app.py",
        "src/version.py",
        "README.md",
    ]
    assert all(isinstance(a, AnchoredEdit) for a in actions)
    modify, insert, create, backticks = actions
    assert isinstance(modify, AnchoredEdit) and "encoding=" in modify.replace
    assert isinstance(insert, AnchoredEdit) and insert.replace == insert.search + "import logging\n"
    assert isinstance(create, AnchoredEdit) and (create.search, create.replace) == (
        "",
        'VERSION = "1.2.0"\n',
    )
    assert isinstance(backticks, AnchoredEdit) and "```" in backticks.search
    assert "pip install app[cli]" in backticks.replace


def test_the_format_sketch_in_the_protocol_section_is_a_block_too(tmp_path: Path) -> None:
    protocol = load_system_prompt(tmp_path).split("# Edit Protocol\n", 1)[1].split("# Workflow")[0]
    (action,) = parse_reply(protocol, dialect="editrepl").actions
    assert isinstance(action, AnchoredEdit) and action.path == "path/to/file.ext"


def test_system_prompt_has_no_fenced_edit_block(tmp_path: Path) -> None:
    text = load_system_prompt(tmp_path)
    assert not re.search(r"```\w*\n[^\n]+\n««« EDIT", text)


def test_build_system_prompt_joins_system_and_extra_with_a_blank_line(tmp_path: Path) -> None:
    extra = load_extra_prompt(tmp_path)
    assert extra is not None and "Request a file before you modify it" in extra
    assert build_system_prompt(tmp_path) == f"{load_system_prompt(tmp_path)}\n\n{extra}"


def test_project_system_md_overrides_the_packaged_one(tmp_path: Path) -> None:
    (tmp_path / "config" / "prompts").mkdir(parents=True)
    (tmp_path / "config" / "prompts" / "system.md").write_text("Project rules.\n")
    assert build_system_prompt(tmp_path).startswith("Project rules.\n\n")


def test_user_config_dir_comes_before_the_packaged_prompt(
    tmp_path: Path, user_config_dir: Path
) -> None:
    (user_config_dir / "prompts").mkdir(parents=True)
    (user_config_dir / "prompts" / "system_extra.md").write_text("User extra.\n")
    assert load_extra_prompt(tmp_path) == "User extra."


def test_missing_system_prompt_is_a_file_not_found_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentprompt.prompts.loader as loader

    monkeypatch.setattr(loader, "PACKAGED_DIR", tmp_path / "nowhere")
    with pytest.raises(FileNotFoundError) as caught:
        load_system_prompt(tmp_path)
    assert isinstance(caught.value, PromptFileMissing)


def test_compaction_skill_asks_for_the_boundary_json(tmp_path: Path) -> None:
    text = load_skill("compaction", tmp_path)
    for key in ("boundary_index", "boundary_reason", "confidence", "summary"):
        assert key in text
