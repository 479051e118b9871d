"""The shell tool: run a command in the repository root, off unless the policy enables it.

The command runs in its own process group with no input; when it outlives the policy's
timeout the whole group is killed and the model is told so, with what it printed so far;
when the user interrupts the turn (Ctrl-C, also inside a batch) the group is killed as well.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

from agentprompt.tools.context import ToolContext, ToolFailure, ToolResult

__all__ = ["POLL_SECONDS", "shell"]

POLL_SECONDS = 0.2
"""How often a running command checks whether its turn was interrupted."""


def shell(ctx: ToolContext, command: str, timeout: float | None = None) -> ToolResult:
    """Run a shell command in the repository root; returns its exit code and output.

    Args:
        command: The command line, run by /bin/sh.
        timeout: Seconds to allow (at most the configured limit).
    """
    if not command.strip():
        raise ToolFailure("command is empty; give the command line to run")
    limit = ctx.policy.shell_timeout
    seconds = limit if timeout is None else max(0.1, min(timeout, limit))
    proc = subprocess.Popen(
        command,
        shell=True,
        cwd=ctx.root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out = _wait(ctx, proc, seconds)
        if out is None:
            _kill(proc)
            text = proc.communicate()[0].decode("utf-8", "replace")
            return ToolResult(
                content=f"Command stopped after {seconds:g} seconds (timeout).\n{text}".rstrip(),
                is_error=True,
            )
    except BaseException:
        # Ctrl-C stops the turn, so it stops the command too: the command runs in its own
        # session (the terminal's Ctrl-C does not reach it) and would go on changing files.
        _kill(proc)
        proc.wait()
        raise
    text = out.decode("utf-8", "replace")
    return ToolResult(
        content=f"Exit code {proc.returncode}.\n{text}".rstrip(), is_error=proc.returncode != 0
    )


def _wait(ctx: ToolContext, proc: subprocess.Popen[bytes], seconds: float) -> bytes | None:
    """The command's output once it ends; None when ``seconds`` pass first. Raises
    KeyboardInterrupt when ``ctx.stop`` is set meanwhile (a batch running it was
    interrupted)."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        try:
            out: bytes = proc.communicate(timeout=max(0.0, min(left, POLL_SECONDS)))[0]
            return out
        except subprocess.TimeoutExpired:
            if ctx.stop is not None and ctx.stop.is_set():
                raise KeyboardInterrupt from None
            if left <= POLL_SECONDS:
                return None


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill the command and everything it started (its process group)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
