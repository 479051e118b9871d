"""Project instructions: ALLY.md, the AGENTS.md/CLAUDE.md hierarchy, the cap."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.project.instructions import (
    DEFAULT_INSTRUCTION_FILES,
    INSTRUCTION_FILES_ENV,
    InstructionError,
    instruction_names,
    load_instructions,
    render_instructions,
)
from agentprompt.prompts.loader import PromptLibrary


@pytest.fixture
def prompts(tmp_path: Path) -> PromptLibrary:
    return PromptLibrary(tmp_path)


def test_ally_md_renders_under_its_heading(tmp_path: Path, prompts: PromptLibrary) -> None:
    (tmp_path / "ALLY.md").write_text(
        "\nWhen creating git commits, always use ./quick-commit tool if available.\n\n"
    )
    found = load_instructions(tmp_path)
    assert render_instructions(found, prompts) == (
        "- Project Instructions (ALLY.md):\n"
        "When creating git commits, always use ./quick-commit tool if available."
    )


def test_ally_md_is_read_from_the_root_down_to_the_working_directory(tmp_path: Path) -> None:
    # project init and the append tool write the root's ALLY.md; an agent started in a
    # subdirectory reads it, and a deeper ALLY.md refines it.
    (tmp_path / "ALLY.md").write_text("root rules\n")
    sub = tmp_path / "pkg"
    sub.mkdir()
    assert load_instructions(tmp_path, sub).names == ("ALLY.md",)
    (sub / "ALLY.md").write_text("pkg rules\n")
    assert load_instructions(tmp_path, sub).names == ("ALLY.md", "pkg/ALLY.md")


def test_agents_md_hierarchy_root_first_deeper_last(tmp_path: Path, prompts: PromptLibrary) -> None:
    deep = tmp_path / "src" / "app"
    deep.mkdir(parents=True)
    (tmp_path / "AGENTS.md").write_text("use tabs\n")
    (deep / "AGENTS.md").write_text("use spaces\n")
    found = load_instructions(tmp_path, deep)
    assert found.names == ("AGENTS.md", "src/app/AGENTS.md")
    text = render_instructions(found, prompts)
    assert text == (
        "- Project Instructions (AGENTS.md):\nuse tabs\n"
        "- Project Instructions (src/app/AGENTS.md):\nuse spaces\n"
        "- Where project instruction files disagree, the one in the deeper directory "
        "(closer to the working directory) takes precedence."
    )


def test_all_three_files_are_named_in_the_configured_order(tmp_path: Path) -> None:
    for name in ("ALLY.md", "AGENTS.md", "CLAUDE.md"):
        (tmp_path / name).write_text(f"{name} text\n")
    assert load_instructions(tmp_path).names == ("ALLY.md", "AGENTS.md", "CLAUDE.md")
    reordered = load_instructions(tmp_path, names=("CLAUDE.md", "ALLY.md"))
    assert reordered.names == ("CLAUDE.md", "ALLY.md")


def test_blank_files_are_left_out(tmp_path: Path) -> None:
    (tmp_path / "ALLY.md").write_text("  \n\n")
    assert load_instructions(tmp_path).empty


def test_size_cap_cuts_at_a_line_and_says_how_much_is_missing(
    tmp_path: Path, prompts: PromptLibrary
) -> None:
    (tmp_path / "ALLY.md").write_text("line one\nline two\nline three\n")
    found = load_instructions(tmp_path, max_bytes=20)
    (only,) = found.files
    assert only.text == "line one\nline two"
    assert only.omitted == len("\nline three")
    assert render_instructions(found, prompts).endswith(
        "line two\n[... 11 more bytes of ALLY.md not shown; read the file for the rest]"
    )


def test_size_cap_keeps_the_deeper_file_whole(tmp_path: Path) -> None:
    deep = tmp_path / "pkg"
    deep.mkdir()
    (tmp_path / "AGENTS.md").write_text("root " * 20 + "\n")
    (deep / "AGENTS.md").write_text("deeper rule\n")
    found = load_instructions(tmp_path, deep, max_bytes=15)
    assert [f.name for f in found.files] == ["pkg/AGENTS.md"]
    assert found.files[0].text == "deeper rule"
    assert any("AGENTS.md: left out" in p for p in found.problems)


def test_non_utf8_file_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "CLAUDE.md").write_bytes(b"caf\xe9\n")
    found = load_instructions(tmp_path)
    assert found.empty
    assert found.problems == ("CLAUDE.md: is not UTF-8 text (byte 3); save it as UTF-8",)


def test_environment_variable_chooses_the_files_and_their_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("ALLY.md", "AGENTS.md", "CLAUDE.md"):
        (tmp_path / name).write_text(f"{name} text\n")
    monkeypatch.setenv(INSTRUCTION_FILES_ENV, " CLAUDE.md, AGENTS.md ,")
    assert load_instructions(tmp_path).names == ("CLAUDE.md", "AGENTS.md")


def test_environment_variable_with_a_path_is_refused() -> None:
    with pytest.raises(InstructionError, match="plain file names"):
        instruction_names({INSTRUCTION_FILES_ENV: "ALLY.md,../x.md"})


def test_blank_environment_variable_means_the_defaults() -> None:
    assert instruction_names({INSTRUCTION_FILES_ENV: " "}) == DEFAULT_INSTRUCTION_FILES


def test_a_link_out_of_the_project_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("password\n")
    (root / "AGENTS.md").symlink_to(secret)
    found = load_instructions(root)
    assert found.empty
    assert found.problems == (
        f"AGENTS.md: is a link to {secret}, outside the project; it was not read",
    )
