"""agentprompt chat and run --once, driven by script:FILE models."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentprompt.store import Store, default_store_path

from .conftest import Result


def _script(tmp_path: Path, *answers: Any) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(list(answers)))
    return f"script:{path}"


def _sessions(root: Path) -> list[Any]:
    path = default_store_path(root)
    if not path.exists():
        return []
    with Store(path) as store:
        return store.list_sessions("agent")


@pytest.fixture(autouse=True)
def _no_default_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTPROMPT_MODEL", raising=False)


def test_run_once_prints_the_answer_and_stores_the_session(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    model = _script(
        tmp_path,
        {"tool_calls": [{"name": "read", "arguments": {"path": "README.md"}}]},
        "The README has a title.",
    )
    result = run("run", "--once", "what is in the README?", "--model", model, "--root", str(repo))
    assert result.code == 0, result.err
    assert result.out.strip() == "The README has a title."
    assert "→ read" in result.err
    (stored,) = _sessions(repo)
    assert [m["role"] for m in stored.state["history"]] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_run_once_json_reports_the_turn(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    model = _script(tmp_path, "Hi.")
    result = run("run", "--once", "hello", "--model", model, "--root", str(repo), "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["text"] == "Hi." and data["requests"] == 1 and data["tool_calls"] == 0
    assert data["session"] == _sessions(repo)[0].id


def test_chat_answers_each_line_until_exit(
    run: Callable[..., Result],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("first\n\nsecond\n/exit\nnever\n"))
    model = _script(tmp_path, "One.", "Two.")
    result = run("chat", "--model", model, "--root", str(repo), "--no-stream")
    assert result.code == 0, result.err
    assert result.out.splitlines() == ["One.", "Two."]
    (stored,) = _sessions(repo)
    assert len(stored.state["history"]) == 4


def test_chat_resume_continues_the_stored_session(
    run: Callable[..., Result],
    repo: Path,
    tmp_path: Path,
) -> None:
    first = run("run", "--once", "one", "--model", _script(tmp_path, "A."), "--root", str(repo))
    assert first.code == 0, first.err
    (stored,) = _sessions(repo)
    again = tmp_path / "again"
    again.mkdir()
    second = run(
        "chat",
        "--resume",
        stored.id,
        "--once",
        "two",
        "--model",
        _script(again, "B."),
        "--root",
        str(repo),
    )
    assert second.code == 0, second.err
    (resumed,) = _sessions(repo)
    assert resumed.id == stored.id
    assert [m["content"] for m in resumed.state["history"]] == ["one", "A.", "two", "B."]


def test_resuming_an_unknown_session_is_bad_input_and_stores_nothing_new(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    result = run(
        "chat",
        "--resume",
        "nope",
        "--once",
        "x",
        "--model",
        _script(tmp_path, "A."),
        "--root",
        str(repo),
    )
    assert result.code == 2
    assert "no session 'nope'" in result.err
    assert "Traceback" not in result.err
    assert not default_store_path(repo).exists()


def test_a_model_failure_is_reported_with_exit_status_1(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    model = _script(tmp_path, {"error": "connection", "message": "refused"})
    result = run("run", "--once", "x", "--model", model, "--root", str(repo))
    assert result.code == 1
    assert "agentprompt: error:" in result.err and "Traceback" not in result.err
    assert _sessions(repo) == []  # nothing was said: no empty session is left behind


def test_no_model_configured_is_bad_usage(run: Callable[..., Result], repo: Path) -> None:
    result = run("run", "--once", "x", "--root", str(repo))
    assert result.code == 2
    assert "agentprompt: error:" in result.err and "Traceback" not in result.err
    assert _sessions(repo) == []


def test_a_missing_script_file_is_bad_input(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "missing.json"
    result = run("run", "--once", "x", "--model", f"script:{missing}", "--root", str(repo))
    assert result.code == 2
    assert "Traceback" not in result.err


def test_resuming_an_unknown_id_in_an_existing_database_stores_nothing_new(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    first = run("run", "--once", "one", "--model", _script(tmp_path, "A."), "--root", str(repo))
    assert first.code == 0, first.err
    result = run(
        "run",
        "--once",
        "x",
        "--resume",
        "nope",
        "--model",
        _script(tmp_path, "B."),
        "--root",
        str(repo),
    )
    assert result.code == 2 and "no session 'nope'" in result.err
    assert len(_sessions(repo)) == 1


def test_streamed_answers_end_with_a_newline(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    result = run(
        "run", "--once", "x", "--model", _script(tmp_path, "Streamed."), "--root", str(repo)
    )
    assert result.code == 0, result.err
    assert result.out == "Streamed.\n"


def test_a_resumed_session_keeps_its_profile(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    first = run(
        "run",
        "--once",
        "one",
        "--profile",
        "ally",
        "--model",
        _script(tmp_path, "A."),
        "--root",
        str(repo),
    )
    assert first.code == 0, first.err
    (stored,) = _sessions(repo)
    assert stored.state["profile"] == "ally"
    again = tmp_path / "again"
    again.mkdir()
    second = run(
        "chat",
        "--resume",
        stored.id,
        "--once",
        "two",
        "--model",
        _script(again, "B."),
        "--root",
        str(repo),
    )
    assert second.code == 0, second.err
    assert _sessions(repo)[0].state["profile"] == "ally"


def test_an_invalid_agent_definition_is_a_warning_unless_the_agent_is_named(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    agents = repo / ".agentprompt" / "agents"
    agents.mkdir(parents=True)
    (agents / "broken.md").write_text("---\nname: [not, a, name]\n---\nbody\n")
    result = run("run", "--once", "x", "--model", _script(tmp_path, "A."), "--root", str(repo))
    assert result.code == 0, result.err
    assert "agentprompt: warning:" in result.err and "broken.md: 'name'" in result.err
    named = run(
        "run", "--once", "@broken x", "--model", _script(tmp_path, "A."), "--root", str(repo)
    )
    assert named.code == 2
    assert "agentprompt: error:" in named.err and "Traceback" not in named.err


@pytest.mark.parametrize("command", ["run", "chat"])
def test_an_empty_once_message_is_bad_input_and_stores_nothing(
    run: Callable[..., Result], repo: Path, tmp_path: Path, command: str
) -> None:
    model = _script(tmp_path, "A.")
    result = run(command, "--once", "  ", "--model", model, "--root", str(repo))
    assert result.code == 2
    assert "the message is empty" in result.err and "Traceback" not in result.err
    assert not default_store_path(repo).exists()


def test_an_interrupted_once_run_ends_with_status_130_and_is_stored(
    run: Callable[..., Result], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def ctrl_c(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr("agentprompt.agent.session.driver.call_model", ctrl_c)
    model = _script(tmp_path, "A.")
    result = run("run", "--once", "hello", "--model", model, "--root", str(repo), "--json")
    assert result.code == 130
    assert json.loads(result.out)["interrupted"] is True
    (stored,) = _sessions(repo)
    assert stored.state["interrupted"] is True
    assert stored.state["history"] == [{"role": "user", "content": "hello"}]


def test_chat_from_a_subdirectory_reads_the_instruction_files_down_to_it(
    run: Callable[..., Result], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentprompt.agent import runtime

    (repo / "AGENTS.md").write_text("Root rule.\n")
    (repo / "src" / "AGENTS.md").write_text("Source rule.\n")
    (repo / "ALLY.md").write_text("Ally rule.\n")  # where project init writes it
    sessions: list[Any] = []
    create = runtime.create_session

    def spy(**kwargs: Any) -> Any:
        sessions.append(create(**kwargs))
        return sessions[-1]

    monkeypatch.setattr(runtime, "create_session", spy)
    monkeypatch.chdir(repo / "src")
    result = run("run", "--once", "hi", "--model", _script(tmp_path, "A."))
    assert result.code == 0, result.err
    system = sessions[0].last_request.messages[0].text
    assert "Root rule." in system and "Source rule." in system and "Ally rule." in system


def test_a_model_error_in_chat_is_reported_and_the_chat_goes_on(
    run: Callable[..., Result], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("first\nsecond\n"))
    model = _script(tmp_path, {"error": "rate_limited", "message": "slow down"}, "Two.")
    result = run("chat", "--model", model, "--root", str(repo), "--no-stream")
    assert result.code == 1
    assert "slow down" in result.err and "Traceback" not in result.err
    assert result.out.splitlines() == ["Two."]
    (stored,) = _sessions(repo)
    assert [m["content"] for m in stored.state["history"]] == ["second", "Two."]


def test_a_line_that_is_not_utf8_is_refused_and_the_chat_goes_on(
    run: Callable[..., Result], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = io.TextIOWrapper(io.BytesIO(b"\xff\xfe hi\nsecond\n"), errors="surrogateescape")
    monkeypatch.setattr("sys.stdin", raw)
    model = _script(tmp_path, "Two.")
    result = run("chat", "--model", model, "--root", str(repo), "--no-stream")
    assert result.code == 0, result.err
    assert "the line is not UTF-8 text" in result.err
    (stored,) = _sessions(repo)
    assert [m["content"] for m in stored.state["history"]] == ["second", "Two."]


def test_a_once_message_that_is_not_utf8_is_bad_input(
    run: Callable[..., Result], repo: Path, tmp_path: Path
) -> None:
    message = b"\xff hi".decode("utf-8", "surrogateescape")  # as argv gives it
    result = run("run", "--once", message, "--model", _script(tmp_path, "A."), "--root", str(repo))
    assert result.code == 2 and "not UTF-8 text" in result.err
    assert not default_store_path(repo).exists()
