"""The page's methods for the user's input between rounds: ``bridge_note``,
``bridge_run``, ``apply_reply`` with a ``note`` and a reply that is the model's answer."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentprompt.bridge.state import find_session

Rpc = Callable[..., dict[str, Any]]

ANSWER = "It is done. Anything else?"


def test_bridge_note_is_in_the_next_prompt(rpc: Rpc) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts"])
    result = rpc("bridge_note", note="Keep it short.")["result"]
    assert result["state"]["notes"] == [{"text": "Keep it short.", "in_prompt": False}]
    prompt = rpc("build_prompt")["result"]
    assert "## Note from the user\nKeep it short.\n" in prompt["text"]


def test_bridge_run_puts_the_output_and_status_in_the_next_prompt(rpc: Rpc) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts"])
    code = "import sys; print('2 failed'); sys.exit(1)"
    result = rpc("bridge_run", command=[sys.executable, "-c", code], timeout=30)["result"]
    assert result["run"]["status"] == 1 and result["run"]["output"] == "2 failed\n"
    assert "Exit status 1.\n```\n2 failed\n```\n" in rpc("build_prompt")["result"]["text"]


@pytest.mark.parametrize(
    ("method", "params", "said"),
    [
        ("bridge_note", {"note": "  "}, 'param "note" holds only whitespace'),
        ("bridge_note", {"note": "a\u0000b"}, "NUL"),
        ("bridge_run", {"command": []}, '"command" is empty'),
        ("bridge_run", {"command": ["no-such-program"]}, "cannot be started"),
        ("bridge_run", {"command": ["true"], "timeout": 0}, '"timeout"'),
        ("apply_reply", {"reply": "  "}, "holds no edit blocks"),
        ("apply_reply", {"reply": ANSWER, "note": ""}, "is empty"),
    ],
    ids=["whitespace-note", "binary-note", "no-command", "missing", "timeout", "empty", "note"],
)
def test_bad_input_changes_nothing(
    rpc: Rpc, repo: Path, method: str, params: dict[str, Any], said: str
) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts"])
    before = find_session(repo)
    error = rpc(method, **params)["error"]
    assert error["code"] == -32602 and said in error["message"], error
    assert find_session(repo) == before


def test_a_prose_reply_is_the_answer_and_waits_for_the_users_input(rpc: Rpc) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts"])
    result = rpc("apply_reply", reply=ANSWER)["result"]
    assert result["answer"] == ANSWER and result["bridge"]["prompt"] is None
    assert result["bridge"]["state"]["answer"] == ANSWER
    noted = rpc("apply_reply", reply=ANSWER, note="Yes: add tests.")["result"]
    assert "Yes: add tests." in noted["bridge"]["prompt"]["text"]


def test_preview_of_a_prose_reply_saves_nothing(rpc: Rpc, repo: Path) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts"])
    before = find_session(repo)
    result = rpc("preview_reply", reply=ANSWER)["result"]
    assert result["answer"] == ANSWER and result["bridge"]["saved"] is False
    assert find_session(repo) == before
