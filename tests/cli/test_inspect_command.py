"""``agentprompt inspect``: messages, tokens per section, budgets and the cache prefix."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt import get_tokenizer

from .conftest import Result, snapshot_tree

Run = Callable[..., Result]
DATE = "2026-03-04T05:06:07"


def _inspect(run: Run, repo: Path, *extra: str) -> Result:
    return run("inspect", "--profile", "demo", "--root", str(repo), "--date", DATE, *extra)


def test_json_gives_messages_and_exact_counts_per_section(run: Run, repo: Path) -> None:
    result = _inspect(run, repo, "--task", "Add a flag.", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["profile"] == "demo"
    assert data["tokenizer"] == "o200k_base" and data["exact"] is True
    assert [m["role"] for m in data["messages"]] == ["system", "user"]
    assert data["messages"][1]["content"] == "Add a flag."
    ids = [s["id"] for s in data["sections"]]
    assert ids == [
        "identity",
        "behavior",
        "delegation",
        "guidelines",
        "context",
        "repository_files",
        "task",
    ]
    tok = get_tokenizer("o200k_base")
    assert data["sections"][-1]["tokens"] == tok.count("Add a flag.")
    assert data["message_tokens"] == [tok.count(m["content"]) for m in data["messages"]]
    assert data["total_tokens"] == sum(data["message_tokens"]) + 3 * 2 + 3
    assert data["breakpoints"] == [0]
    static_head = data["messages"][0]["content"].index("## Context")
    assert data["cache_markers"] == [{"message": 0, "inside_at": [static_head], "at_end": True}]
    assert "- Current Date: 2026-03-04 05:06:07" in data["messages"][0]["content"]
    assert "src/app/cli.py" in data["messages"][0]["content"]


def test_people_get_a_table_of_sections_and_the_messages(run: Run, repo: Path) -> None:
    result = _inspect(run, repo, "--task", "Add a flag.")
    assert result.code == 0, result.err
    assert "Profile 'demo'" in result.out and "o200k_base, exact" in result.out
    assert "repository_files" in result.out
    assert "Cache breakpoints: message 0 (after its static part and at its end)" in result.out
    assert "=== SYSTEM ===" in result.out and "=== USER ===\nAdd a flag." in result.out


def test_anthropic_format_places_the_breakpoint_on_the_system_block(run: Run, repo: Path) -> None:
    data = json.loads(_inspect(run, repo, "--task", "x", "--json", "--format", "anthropic").out)
    system = data["anthropic"]["system"]
    assert system[-1]["cache_control"] == {"type": "ephemeral"}
    assert data["anthropic"]["messages"] == [{"role": "user", "content": "x"}]


def test_a_model_without_a_public_tokenizer_is_labelled_an_estimate(run: Run, repo: Path) -> None:
    data = json.loads(_inspect(run, repo, "--model", "claude-sonnet-4-5", "--json").out)
    assert data["exact"] is False
    assert "estimate" in data["tokenizer"]


def test_a_budget_cuts_the_file_list_to_its_fallback_and_reports_it(run: Run, repo: Path) -> None:
    full = json.loads(_inspect(run, repo, "--json").out)
    files = next(s for s in full["sections"] if s["id"] == "repository_files")
    budget = full["total_tokens"] - 1
    data = json.loads(_inspect(run, repo, "--json", "--max-tokens", str(budget)).out)
    assert data["total_tokens"] <= budget
    assert data["cuts"][0]["section"] == "repository_files"
    assert data["cuts"][0]["action"] == "fallback"
    assert data["cuts"][0]["tokens_before"] == files["tokens"]
    assert "src/ (2 files)" in data["messages"][0]["content"]


def test_a_budget_below_the_required_sections_is_bad_input(run: Run, repo: Path) -> None:
    before = snapshot_tree(repo)
    result = _inspect(run, repo, "--max-tokens", "100")
    assert result.code == 2
    assert "budget is 100" in result.err and "identity" in result.err
    assert "Traceback" not in result.err
    assert snapshot_tree(repo) == before


def test_previous_render_reports_the_shared_prefix(run: Run, repo: Path, tmp_path: Path) -> None:
    previous = tmp_path / "previous.json"
    previous.write_text(_inspect(run, repo, "--task", "First task.", "--json").out)
    data = json.loads(
        _inspect(run, repo, "--task", "Second task.", "--json", "--previous", str(previous)).out
    )
    shared = data["previous"]
    assert shared["identical_messages"] == 1
    assert shared["first_difference"] == 1
    assert shared["bytes"] >= len(data["messages"][0]["content"].encode())
    assert 0.9 < shared["share"] < 1.0


def test_unknown_profile_names_the_choices_and_exits_2(run: Run, repo: Path) -> None:
    before = snapshot_tree(repo)
    result = run("inspect", "--profile", "nope", "--root", str(repo))
    assert result.code == 2
    assert "unknown profile 'nope'" in result.err and "demo" in result.err
    assert snapshot_tree(repo) == before


def test_a_previous_file_that_is_not_json_is_bad_input(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("not json")
    result = _inspect(run, repo, "--previous", str(bad))
    assert result.code == 2
    assert str(bad) in result.err and "not a JSON file" in result.err


def test_a_project_prompt_override_with_an_undeclared_variable_is_bad_input(
    run: Run, repo: Path
) -> None:
    override = repo / "config" / "prompts" / "agent" / "context.md"
    override.parent.mkdir(parents=True)
    override.write_text("---\nvariables: [date]\n---\n{{date}} {{weather}}\n")
    before = snapshot_tree(repo)
    result = _inspect(run, repo)
    assert result.code == 2
    assert str(override) in result.err and "{{weather}}" in result.err
    assert snapshot_tree(repo) == before


def test_a_project_prompt_override_replaces_the_packaged_text(run: Run, repo: Path) -> None:
    override = repo / "config" / "prompts" / "agent" / "identity.md"
    override.parent.mkdir(parents=True)
    override.write_text("You are the house agent.\n")
    data = json.loads(_inspect(run, repo, "--json").out)
    assert data["messages"][0]["content"].startswith("You are the house agent.\n\n## Behavior")


def test_history_file_adds_earlier_messages(run: Run, repo: Path, tmp_path: Path) -> None:
    history = tmp_path / "history.json"
    history.write_text(
        json.dumps([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    )
    data = json.loads(
        _inspect(run, repo, "--task", "next", "--history", str(history), "--json").out
    )
    assert [m["role"] for m in data["messages"]] == ["system", "user", "assistant", "user"]
    assert data["breakpoints"] == [0, 2]


def test_the_installed_command_runs_as_a_program(repo: Path) -> None:
    exe = Path(sys.executable).with_name("agentprompt")
    done = subprocess.run(
        [str(exe), "inspect", "--profile", "demo", "--root", str(repo), "--json", "--date", DATE],
        capture_output=True,
        text=True,
        env={**os.environ},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["profile"] == "demo"


def test_a_lone_surrogate_in_history_is_printed_not_a_crash(
    run: Run, repo: Path, tmp_path: Path
) -> None:
    history = tmp_path / "history.json"
    history.write_text('[{"role": "user", "content": "broken \\ud800 text"}]')
    for extra in ((), ("--json",), ("--format", "openai")):
        result = _inspect(run, repo, "--history", str(history), *extra)
        assert result.code == 0, result.err
        assert "broken \\" in result.out and "ud800 text" in result.out


def test_a_malformed_history_file_is_bad_input(run: Run, repo: Path, tmp_path: Path) -> None:
    history = tmp_path / "history.json"
    history.write_text('{"system": 5, "messages": []}')
    result = _inspect(run, repo, "--history", str(history))
    assert result.code == 2
    assert "system must be a string" in result.err


@pytest.mark.parametrize("profile", ["agent", "ally"])
def test_the_agent_profiles_read_instructions_down_to_the_working_directory(
    run: Run, repo: Path, monkeypatch: pytest.MonkeyPatch, profile: str
) -> None:
    # As agentprompt chat started there would: the prompt inspect shows is the one sent.
    (repo / "src" / "AGENTS.md").write_text("Source rule.\n")
    monkeypatch.chdir(repo / "src")
    result = run("inspect", "--profile", profile, "--date", DATE, "--json")
    assert result.code == 0, result.err
    assert "Source rule." in result.out
