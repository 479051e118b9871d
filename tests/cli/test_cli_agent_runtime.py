"""The agent runtime as a user meets it through ``chat``, ``run`` and ``inspect``: plans,
agent files, the tools the prompt counts on, slash commands and usage figures. Every model
is a ``script:FILE`` model; the requests it received are read back from it."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentprompt.llm.base import ModelRequest
from agentprompt.store import Store, default_store_path

from .conftest import Result

PLAN_TEXT = (
    "## Implementation Plan\n### Context\nx\n### Implementation Steps\n1. x\n"
    "### Considerations\nx\n### Files to Modify/Create\nx\n### Proposed Todos\nx"
)


def _script(tmp_path: Path, *answers: Any, name: str = "script.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(list(answers)))
    return f"script:{path}"


def _stored(root: Path) -> list[Any]:
    path = default_store_path(root)
    if not path.exists():
        return []
    with Store(path) as store:
        return store.list_sessions("agent")


@pytest.fixture(autouse=True)
def _no_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTPROMPT_MODEL", raising=False)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[ModelRequest]:
    """Every request the commands' script models receive, in order."""
    import agentprompt.llm._choice as choice

    requests: list[ModelRequest] = []
    make = choice.make_client

    class Recording:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def complete(self, request: ModelRequest) -> Any:
            requests.append(request)
            return self.inner.complete(request)

        def stream(self, request: ModelRequest) -> Any:
            requests.append(request)
            return self.inner.stream(request)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

    monkeypatch.setattr(choice, "make_client", lambda cfg, **kw: Recording(make(cfg, **kw)))
    return requests


def _chat(
    run: Callable[..., Result],
    monkeypatch: pytest.MonkeyPatch,
    lines: str,
    *args: str,
) -> Result:
    monkeypatch.setattr("sys.stdin", io.StringIO(lines))
    return run("chat", "--no-stream", *args)


def _plan_round(requirement: str, todo: str) -> list[Any]:
    """The main agent calls plan; the planner proposes ``todo`` and answers; the main agent
    shows the plan."""
    return [
        {"tool_calls": [{"name": "plan", "arguments": {"requirements": requirement}}]},
        {"tool_calls": [{"name": "todo_add", "arguments": {"todos": [{"content": todo}]}}]},
        PLAN_TEXT,
        f"Plan: {todo}. Shall I go ahead?",
    ]


def test_accepting_a_revised_plan_activates_only_the_revision(
    run: Callable[..., Result], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _script(
        tmp_path,
        *_plan_round("add a cache", "cache in memory"),
        *_plan_round("add a cache on disk instead", "cache on disk"),
        "Starting on it.",
    )
    result = _chat(
        run,
        monkeypatch,
        "add a cache\nno, on disk please\nyes\n",
        "--model",
        model,
        "--root",
        str(repo),
    )
    assert result.code == 0, result.err
    (stored,) = _stored(repo)
    todos = stored.state["todos"]["todos"]
    assert [(t["content"], t["status"]) for t in todos] == [("cache on disk", "in_progress")]


def _bad_agent(repo: Path) -> Path:
    agents = repo / ".agentprompt" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.md").write_text("---\ndescription: Reviews code\n---\nYou review.\n")
    bad = agents / "bad-agent.md"
    bad.write_text("---\nname: bad agent\ndescription: Broken\n---\nYou are broken.\n")
    return bad


def test_a_malformed_agent_file_is_skipped_with_one_warning_naming_file_and_field(
    run: Callable[..., Result],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sent: list[ModelRequest],
) -> None:
    bad = _bad_agent(repo)
    model = _script(tmp_path, "One.", "Two.")
    result = _chat(run, monkeypatch, "first\nsecond\n", "--model", model, "--root", str(repo))
    assert result.code == 0, result.err
    assert result.out.splitlines() == ["One.", "Two."]
    warnings = [line for line in result.err.splitlines() if "warning" in line]
    assert len(warnings) == 1, result.err
    assert str(bad) in warnings[0] and "'name'" in warnings[0]
    system = sent[0].messages[0].text
    assert "- reviewer: Reviews code" in system and "Broken" not in system
    inspected = run("inspect", "--profile", "agent", "--root", str(repo))
    assert inspected.code == 0, inspected.err
    assert str(bad) in inspected.err and "- reviewer: Reviews code" in inspected.out


def test_naming_a_malformed_agent_is_bad_input_and_leaves_no_stored_session(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    bad = _bad_agent(repo)
    model = _script(tmp_path, "never")
    result = run("run", "--once", "@bad-agent check it", "--model", model, "--root", str(repo))
    assert result.code == 2
    assert str(bad) in result.err and "'name'" in result.err
    assert _stored(repo) == []


def test_a_failed_first_turn_leaves_no_empty_stored_session(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    model = _script(tmp_path, {"error": "http", "status": 500})
    result = run("run", "--once", "hello", "--model", model, "--root", str(repo))
    assert result.code == 1
    assert _stored(repo) == []


SEED_EXECUTION = "- **Direct execution**: Use tools yourself, never ask users to run commands"
SEED_VERIFY = "- **Always verify**: Test/lint code after changes, if applicable"


def test_without_the_shell_the_prompt_asks_the_user_to_run_commands_and_chat_says_so(
    run: Callable[..., Result], repo: Path, tmp_path: Path, sent: list[ModelRequest]
) -> None:
    result = run("run", "--once", "hi", "--model", _script(tmp_path, "A."), "--root", str(repo))
    assert result.code == 0, result.err
    system = sent[0].messages[0].text
    assert SEED_EXECUTION not in system and SEED_VERIFY not in system
    assert "ask the user to run it" in system and "paste the result" in system
    assert "shell" not in {t.name for t in sent[0].tools}
    assert "tools: read," in result.err and "no shell" in result.err


def test_with_the_shell_the_prompt_says_to_run_and_verify_yourself(
    run: Callable[..., Result], repo: Path, tmp_path: Path, sent: list[ModelRequest]
) -> None:
    model = _script(tmp_path, "A.")
    result = run("run", "--once", "hi", "--shell", "--model", model, "--root", str(repo))
    assert result.code == 0, result.err
    system = sent[0].messages[0].text
    assert SEED_EXECUTION in system and SEED_VERIFY in system
    assert "shell" in {t.name for t in sent[0].tools}
    assert "shell" in result.err.split("tools: ")[1].splitlines()[0]
    assert "no shell" not in result.err


def _usage_line(text: str) -> tuple[int, int]:
    import re

    found = re.search(r"- Context Usage: (\d+)% \(~(\d+) tool calls remaining\)", text)
    assert found, text[-600:]
    return int(found.group(1)), int(found.group(2))


@pytest.mark.parametrize("profile", ["agent", "ally"])
def test_the_first_call_of_a_session_states_its_context_usage(
    run: Callable[..., Result],
    repo: Path,
    tmp_path: Path,
    sent: list[ModelRequest],
    profile: str,
) -> None:
    model = _script(tmp_path, "A.")
    result = run(
        "run", "--once", "hi", "--profile", profile, "--context-size", "20000",
        "--model", model, "--root", str(repo),
    )  # fmt: skip
    assert result.code == 0, result.err
    text = "\n".join(m.text for m in sent[0].messages if m.role == "system")
    percent, calls = _usage_line(text)
    assert 5 <= percent <= 60
    assert 0 < calls <= 20000 // 500


def test_usage_after_an_agent_mention_counts_the_whole_request(
    run: Callable[..., Result], repo: Path, tmp_path: Path, sent: list[ModelRequest]
) -> None:
    _bad_agent(repo)
    model = _script(tmp_path, "Looks fine.", "The reviewer found nothing.")
    result = run(
        "run", "--once", "@reviewer check src", "--context-size", "20000",
        "--model", model, "--root", str(repo),
    )  # fmt: skip
    assert result.code == 0, result.err
    main_call = sent[1]
    assert [m.name for m in main_call.messages if m.role == "tool"] == ["agent"]
    percent, calls = _usage_line(
        "\n".join(m.text for m in main_call.messages if m.role == "system")
    )
    assert percent >= 5, "the usage line must count the system prompt and tool definitions"
    assert calls < 200


def test_inspect_states_usage_and_shows_the_tool_definitions(
    run: Callable[..., Result], repo: Path
) -> None:
    ally = run("inspect", "--profile", "ally", "--root", str(repo), "--task", "hi")
    assert ally.code == 0, ally.err
    _usage_line(ally.out)
    report = run("inspect", "--profile", "agent", "--root", str(repo), "--task", "hi", "--json")
    data = json.loads(report.out)
    assert data["tool_tokens"] > 1000
    assert "read" in {t["function"]["name"] for t in data["tools"]}
    shown = run("inspect", "--profile", "agent", "--root", str(repo), "--format", "openai")
    body = json.loads(shown.out[shown.out.index("\n{") :])
    assert {"messages", "tools"} <= set(body) and len(body["tools"]) == len(data["tools"])


def _compacting_chat(
    run: Callable[..., Result], repo: Path, tmp_path: Path, mp: pytest.MonkeyPatch, *args: str
) -> list[dict[str, Any]]:
    model = _script(tmp_path, "a", "b", "c", "d", "e", "SUMMARY", "f", "g", "h")
    lines = "one\ntwo\nthree\nfour\nfive\nsix\n"
    result = _chat(
        run, mp, lines, "--json", "--context-size", "10000", "--model", model,
        "--root", str(repo), *args,
    )  # fmt: skip
    assert result.code == 0, result.err
    decoder, text, turns = json.JSONDecoder(), result.out.strip(), []
    while text:
        turn, end = decoder.raw_decode(text)
        turns.append(turn)
        text = text[end:].strip()
    return turns


def test_compact_threshold_comes_from_the_config_file_and_the_flag(
    run: Callable[..., Result],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    user_config_dir: Path,
) -> None:
    default = _compacting_chat(run, repo, tmp_path, monkeypatch)
    assert not any(turn["compacted"] for turn in default)
    (user_config_dir / "config.toml").write_text("[agent]\ncompact_threshold = 10\n")
    configured = _compacting_chat(run, repo, tmp_path, monkeypatch)
    assert any(turn["compacted"] for turn in configured)
    (user_config_dir / "config.toml").unlink()
    flagged = _compacting_chat(run, repo, tmp_path, monkeypatch, "--compact-threshold", "10")
    assert any(turn["compacted"] for turn in flagged)


def test_a_malformed_config_key_names_the_key_and_the_expected_type(
    run: Callable[..., Result], repo: Path, tmp_path: Path, user_config_dir: Path
) -> None:
    config = user_config_dir / "config.toml"
    config.write_text('[agent]\ncompact_threshold = "high"\n')
    before = config.read_bytes()
    result = run("run", "--once", "hi", "--model", _script(tmp_path, "A."), "--root", str(repo))
    assert result.code == 2
    assert "compact_threshold must be a number of percent from 1 to 100" in result.err
    assert "'high'" in result.err and config.read_bytes() == before
    assert _stored(repo) == []


def test_consecutive_assistant_texts_are_printed_apart(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    model = _script(
        tmp_path,
        {"text": "I wrote the helper.", "tool_calls": [{"name": "ls", "arguments": {}}]},
        "I documented it.",
    )
    result = run("run", "--once", "go", "--model", model, "--root", str(repo))
    assert result.code == 0, result.err
    assert result.out == "I wrote the helper.\nI documented it.\n"


def test_slash_commands_act_on_the_session_without_a_model_call(
    run: Callable[..., Result],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sent: list[ModelRequest],
) -> None:
    (repo / "ALLY.md").write_text("Use tabs.\n")
    model = _script(
        tmp_path,
        {"tool_calls": [{"name": "todo_add", "arguments": {"todos": [{"content": "fix it"}]}}]},
        "Added.",
    )
    lines = (
        "/help\nplan it\n/todos\n/tools\n/agents\n/context\n/project show\n/nonsense\n"
        "/clear\n/todos\n"
    )
    result = _chat(run, monkeypatch, lines, "--model", model, "--root", str(repo))
    assert result.code == 0, result.err
    assert len(sent) == 2  # only "plan it" reached the model
    out = result.out
    for command in ("/project init|show|edit", "/todos", "/agents", "/context", "/compact"):
        assert command in out
    assert "[→] t1: fix it" in out
    assert "tools: read," in out
    assert "@general:" in out
    assert "Context Usage: " in out and "next request:" in out and "history" in out
    assert "Use tabs." in out
    assert "unknown command '/nonsense'; /help lists the commands" in out
    assert out.rstrip().endswith("The todo list is empty.")
    (stored,) = _stored(repo)
    assert stored.state["history"] == [] and stored.state["todos"]["todos"] == []


def test_compact_command_summarises_the_older_history(
    run: Callable[..., Result],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sent: list[ModelRequest],
) -> None:
    model = _script(tmp_path, "a", "b", "c", "SUMMARY")
    result = _chat(
        run, monkeypatch, "one\ntwo\nthree\n/compact\n", "--model", model, "--root", str(repo)
    )
    assert result.code == 0, result.err
    assert "compacted " in result.out and len(sent) == 4
    (stored,) = _stored(repo)
    assert any("SUMMARY" in (m.get("content") or "") for m in stored.state["history"])
    assert len(stored.state["history"]) < 6


def test_a_message_starting_with_a_slash_is_sent_with_two(
    run: Callable[..., Result],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    sent: list[ModelRequest],
) -> None:
    model = _script(tmp_path, "It is the root.")
    result = _chat(run, monkeypatch, "//usr is what?\n", "--model", model, "--root", str(repo))
    assert result.code == 0, result.err
    assert [m.text for m in sent[0].messages if m.role == "user"] == ["/usr is what?"]


def test_an_empty_extra_prompt_override_adds_nothing_and_loads_as_none(repo: Path) -> None:
    from agentprompt.prompts import build_system_prompt, load_extra_prompt, load_system_prompt

    assert load_extra_prompt(repo) is not None  # the packaged extra instructions
    prompts = repo / "config" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "system_extra.md").write_text("\n")
    assert load_extra_prompt(repo) is None
    assert build_system_prompt(repo) == load_system_prompt(repo)


def test_inspect_injects_the_system_reminder_before_the_latest_user_message(
    run: Callable[..., Result], repo: Path
) -> None:
    from agentprompt.prompts.system_reminder import SYSTEM_REMINDER

    assert SYSTEM_REMINDER.startswith("<system-reminder>\nEDIT/REPL format")
    for profile in ("ac", "agent"):
        plain = run("inspect", "--profile", profile, "--root", str(repo), "--task", "fix", "--json")
        shown = run(
            "inspect", "--profile", profile, "--root", str(repo), "--task", "fix", "--json",
            "--system-reminder",
        )  # fmt: skip
        assert shown.code == 0, shown.err
        users = [m for m in json.loads(shown.out)["messages"] if m["role"] == "user"]
        assert users[-1]["content"] == f"{SYSTEM_REMINDER}\n\nfix"
        assert SYSTEM_REMINDER not in plain.out


def test_a_frozen_build_finds_its_prompts_under_meipass(tmp_path: Path, repo: Path) -> None:
    import subprocess
    import sys

    bundle = tmp_path / "bundle" / "agentprompt" / "prompts"
    bundle.mkdir(parents=True)
    (bundle / "system.md").write_text("Bundled system prompt.\n")
    code = (
        "import sys; sys.frozen = True; sys._MEIPASS = sys.argv[1]\n"
        "from agentprompt.prompts import build_system_prompt\n"
        "print(build_system_prompt(__import__('pathlib').Path(sys.argv[2])))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "bundle"), str(repo)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Bundled system prompt.\n"
