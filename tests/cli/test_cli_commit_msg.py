"""``agentprompt commit-msg``: the staged diff, --print-prompt with no model, scripted models."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import Result


@pytest.fixture
def staged(repo: Path) -> Path:
    (repo / "src" / "app" / "core.py").write_text("VALUE = 2\n")
    subprocess.run(["git", "add", "."], cwd=repo, check=True)
    return repo


def script(tmp_path: Path, *replies: str) -> str:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(list(replies)))
    return f"script:{path}"


def test_print_prompt_shows_the_request_without_a_model(
    run: Callable[..., Result], staged: Path
) -> None:
    result = run("commit-msg", "--root", str(staged), "--print-prompt")
    assert result.code == 0
    assert "git commit messages" in result.out and "+VALUE = 2" in result.out


def test_print_prompt_json_gives_the_messages(run: Callable[..., Result], staged: Path) -> None:
    result = run("commit-msg", "--root", str(staged), "--print-prompt", "--json")
    messages = json.loads(result.out)["messages"]
    assert [m["role"] for m in messages] == ["system", "user"]


def test_scripted_model_message_is_printed(
    run: Callable[..., Result], staged: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, "fix: raise the value\n\nThe old value was too low.")
    result = run("commit-msg", "--root", str(staged), "--model", model)
    assert result.code == 0
    assert result.out == "fix: raise the value\n\nThe old value was too low.\n"
    assert result.err == ""


def test_cleanup_is_said_on_stderr(
    run: Callable[..., Result], staged: Path, tmp_path: Path
) -> None:
    result = run("commit-msg", "--root", str(staged), "--model", script(tmp_path, "Fix: raise it."))
    assert result.out == "fix: raise it\n"
    assert "cleaned up" in result.err and "full stop" in result.err


def test_reask_is_said_and_json_reports_it(
    run: Callable[..., Result], staged: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, "I changed the value", "chore: bump value")
    result = run("commit-msg", "--root", str(staged), "--model", model, "--json")
    data = json.loads(result.out)
    assert (data["action"], data["message"]) == ("reasked", "chore: bump value")


def test_still_broken_message_exits_1_with_the_problems(
    run: Callable[..., Result], staged: Path, tmp_path: Path
) -> None:
    result = run("commit-msg", "--root", str(staged), "--model", script(tmp_path, "x", "y"))
    assert result.code == 1 and "problem:" in result.err


def test_no_model_is_bad_usage(
    run: Callable[..., Result], staged: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTPROMPT_MODEL", raising=False)
    result = run("commit-msg", "--root", str(staged))
    assert result.code == 2 and "--print-prompt" in result.err and "Traceback" not in result.err


def test_nothing_staged_is_bad_input(run: Callable[..., Result], repo: Path) -> None:
    result = run("commit-msg", "--root", str(repo), "--print-prompt")
    assert result.code == 2 and "git add" in result.err


def test_not_a_git_repository_is_bad_input(run: Callable[..., Result], tmp_path: Path) -> None:
    result = run("commit-msg", "--root", str(tmp_path), "--print-prompt")
    assert result.code == 2 and "staged diff" in result.err
    # one clear line, not git's --no-index usage text
    assert "not inside a git work tree" in result.err and "usage:" not in result.err
    assert len(result.err.strip().splitlines()) == 1 and result.out == ""


def test_a_script_that_is_not_a_list_of_strings_is_bad_usage(
    run: Callable[..., Result], staged: Path, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    result = run("commit-msg", "--root", str(staged), "--model", f"script:{bad}")
    assert result.code == 2 and "must hold a JSON list of answers" in result.err


def test_a_real_model_without_a_key_names_the_variable_to_set(
    run: Callable[..., Result], staged: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    result = run("commit-msg", "--root", str(staged), "--model", "openai:gpt-4o")
    assert result.code == 2 and "OPENAI_API_KEY" in result.err


def test_a_past_tense_capitalised_subject_is_asked_again(
    run: Callable[..., Result], staged: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, "fix: Changed return value", "fix: change the return value")
    result = run("commit-msg", "--root", str(staged), "--model", model, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["message"] == "fix: change the return value"
    assert data["action"] == "reasked"
    assert data["replies"] == ["fix: Changed return value", "fix: change the return value"]


def test_a_subject_still_not_imperative_after_asking_again_fails(
    run: Callable[..., Result], staged: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, "feat: Adds a flag", "feat: adding a flag")
    result = run("commit-msg", "--root", str(staged), "--model", model)
    assert result.code == 1
    assert "imperative mood" in result.err and "'adding'" in result.err


@pytest.mark.parametrize(
    "subject",
    ["docs: update README", "feat: add JSON output", "fix: README typo", "refactor: TodoList ids",
     "perf: speed up the scan", "fix: embed the legend", "chore: bring back the flag"],
)  # fmt: skip
def test_imperative_subjects_and_names_are_accepted(subject: str) -> None:
    from agentprompt.commitmsg._style import subject_style_problems

    assert subject_style_problems(subject) == []


@pytest.mark.parametrize(
    ("subject", "count"),
    [("fix: Changed return value", 2), ("fix: fixes the parser", 1), ("feat: adding it", 1),
     ("docs: wrote the guide", 1), ("fix: Raise the limit", 1), ("fix: applies patches", 1)],
)  # fmt: skip
def test_other_moods_and_capitals_are_problems(subject: str, count: int) -> None:
    from agentprompt.commitmsg._style import subject_style_problems

    assert len(subject_style_problems(subject)) == count
