"""Lines no JSON-RPC client sends, over standard input: each is answered as JSON-RPC says
(a parse error, id null), and the server keeps serving the next message."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from agentprompt.mcp_server._transport import line_error
from mcp_server.client import AGENTPROMPT, INITIALIZE

pytestmark = pytest.mark.slow


def _answer(process: subprocess.Popen[str], lines: queue.Queue[str], line: str) -> dict[str, Any]:
    """The server's answer to ``line`` (a missing answer fails, it does not hang)."""
    assert process.stdin is not None
    process.stdin.write(line + "\n")
    process.stdin.flush()
    try:
        answer: dict[str, Any] = json.loads(lines.get(timeout=30))
    except queue.Empty:
        pytest.fail(f"no answer to {line!r}")
    return answer


def test_malformed_lines_get_a_parse_error_and_the_server_goes_on(example: Path) -> None:
    process = subprocess.Popen(
        [AGENTPROMPT, "mcp", "--root", str(example)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=dict(os.environ),
    )
    lines: queue.Queue[str] = queue.Queue()
    out = process.stdout
    assert out is not None

    def read() -> None:
        for answer in out:
            lines.put(answer)

    threading.Thread(target=read, daemon=True).start()
    try:
        for line in (
            "{not json",
            '{"jsonrpc": "2.0", "id": 1e400, "method": "ping"}',
            '{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": "\\ud800"}}',
        ):
            answer = _answer(process, lines, line)
            assert answer["id"] is None, line
            assert answer["error"]["code"] == -32700, line
            assert answer["error"]["message"]
        assert _answer(process, lines, "[1, 2]")["error"]["code"] == -32600
        answer = _answer(process, lines, json.dumps(INITIALIZE))
        assert answer["id"] == 1 and "result" in answer
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=30)


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ('{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32700),
        ('{"jsonrpc": "2.0", "id": 3, "method": "ping"', -32700),
        ('"just a string"', -32600),
    ],
)
def test_each_kind_of_malformed_line_is_named(line: str, code: int) -> None:
    error = line_error(line)
    assert error is not None and error.id is None and error.error.code == code


def test_messages_and_blank_lines_are_passed_on() -> None:
    assert line_error(json.dumps(INITIALIZE)) is None
    assert line_error("\n") is None
