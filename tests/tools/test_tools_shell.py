"""The shell tool: off by default, runs in the root, stops at the timeout."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.tools import ToolContext, ToolPolicy, ToolRegistry, ToolResult

Call = Callable[..., ToolResult]


def shell_ctx(repo: Path, timeout: float = 10.0) -> ToolContext:
    return ToolContext(root=repo, policy=ToolPolicy(shell_enabled=True, shell_timeout=timeout))


def test_shell_is_off_by_default(call: Call, registry: ToolRegistry) -> None:
    assert "shell" not in [d.name for d in registry.definitions()]
    result = call("shell", command="echo hi")
    assert result.is_error and "is not available" in result.content


def test_shell_runs_in_the_root_when_enabled(call: Call, repo: Path) -> None:
    result = call("shell", shell_ctx(repo), command="ls README.md && echo err >&2")
    assert result == ToolResult(content="Exit code 0.\nREADME.md\nerr")


def test_failing_command_is_an_error_result(call: Call, repo: Path) -> None:
    result = call("shell", shell_ctx(repo), command="exit 3")
    assert result == ToolResult(content="Exit code 3.", is_error=True)


def test_command_is_stopped_at_the_timeout(call: Call, repo: Path) -> None:
    start = time.monotonic()
    result = call("shell", shell_ctx(repo, timeout=0.5), command="echo started; sleep 30")
    assert time.monotonic() - start < 10
    assert result.is_error
    assert result.content == "Command stopped after 0.5 seconds (timeout).\nstarted"


def test_ctrl_c_stops_the_command_and_what_it_started(call: Call, repo: Path) -> None:
    # The command runs in a session of its own, so the terminal's Ctrl-C reaches only the
    # agent; a command left running would go on changing files after the user stopped it.
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call("shell", shell_ctx(repo), command="(sleep 1.5; touch late) & sleep 30")
    finally:
        timer.cancel()
    time.sleep(2)
    assert not (repo / "late").exists()


def test_ctrl_c_during_a_batch_stops_its_shell_commands_at_once(call: Call, repo: Path) -> None:
    # Ctrl-C reaches only the main thread; the batch's shell commands run in worker threads.
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    slow = {"name": "shell", "arguments": {"command": "(sleep 1.5; touch late) & sleep 30"}}
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call("batch", shell_ctx(repo), tools=[slow, slow])
    finally:
        timer.cancel()
    # At once: long before the commands' 30 s sleep (the bound leaves room for a busy machine).
    assert time.monotonic() - start < 10
    time.sleep(2)
    assert not (repo / "late").exists()
