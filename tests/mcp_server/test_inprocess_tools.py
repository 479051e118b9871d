"""The packing, reading and edit tools as an MCP client sees them, served in-process: they
use the command line's pattern engine and the bridge session service, and their errors name
the tool's arguments, never a command-line flag."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

from agentprompt.bridge.state import find_session
from agentprompt.edits.journal import locked
from agentprompt.mcp_server import ServerConfig, create_server
from mcp_server.client import EXAMPLE

Scenario = Callable[[Client], Awaitable[None]]


def _served(root: Path, scenario: Scenario) -> None:
    async def main() -> None:
        async with Client(create_server(ServerConfig(root=root))) as client:
            await scenario(client)

    anyio.run(main)


async def _data(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def _error(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    text = result.content[0]
    assert text.type == "text"
    assert "--" not in text.text, text.text
    return text.text


def test_pack_shows_the_files_argument_in_full_and_starts_no_session(example: Path) -> None:
    async def scenario(client: Client) -> None:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == "pack"]
        assert {"files", "exclude"} <= set(tool.input_schema["properties"])
        assert "include" not in tool.input_schema["properties"]
        data = await _data(client, "pack", {"task": "fix parseJSON", "files": ["src/utils.ts"]})
        assert data["mode"] == "edit" and data["in_full"] == ["src/utils.ts"]

    _served(example, scenario)
    assert find_session(example) is None


def test_pack_fits_a_chat_preset_and_max_tokens_wins_over_it(example: Path) -> None:
    for n in range(40):
        body = "".join(
            f"def handler_{n}_{i}(event):\n    return event * {i}\n\n" for i in range(60)
        )
        (example / "scripts" / f"module_{n}.py").write_text(body)

    async def scenario(client: Client) -> None:
        [tool] = [t for t in (await client.list_tools()).tools if t.name == "pack"]
        assert "small (6000 tokens)" in tool.input_schema["properties"]["chat"]["description"]
        small = await _data(client, "pack", {"task": "tour", "chat": "small"})
        assert 0 < small["tokens"] <= 6_000 and small["left_out"]
        wide = await _data(client, "pack", {"task": "tour", "chat": "small", "max_tokens": 9_000})
        assert 6_000 < wide["tokens"] <= 9_000

    _served(example, scenario)


def test_pack_refuses_an_exclude_pattern_matching_no_file(example: Path) -> None:
    async def scenario(client: Client) -> None:
        message = await _error(client, "pack", {"task": "tour", "exclude": ["nothing/"]})
        assert "argument \"exclude\" 'nothing/' matches no file of the repository" in message
        message = await _error(client, "pack", {"task": "tour", "exclude": ["[abc"]})
        assert 'argument "exclude": `[abc` is not a valid gitignore pattern' in message
        data = await _data(client, "pack", {"task": "tour", "exclude": ["scripts/"]})
        assert "report.py" not in data["text"]

    _served(example, scenario)


def test_pack_errors_name_its_arguments(example: Path) -> None:
    async def scenario(client: Client) -> None:
        message = await _error(client, "pack", {"task": "x", "files": ["nowhere.py"]})
        assert 'argument "files": cannot put nowhere.py in the prompt' in message
        message = await _error(client, "pack", {"task": "  "})
        assert 'argument "task" is empty' in message
        message = await _error(client, "pack", {"task": "tour", "max_tokens": 5})
        assert 'argument "max_tokens" 5 is too small' in message
        assert "takes 1," in message  # the smallest budget that can work
        message = await _error(client, "pack", {"task": "tour", "chat": "nope"})
        assert 'argument "chat": there is no chat preset' in message
        assert "claude (50,000)" in message

    _served(example, scenario)


def test_read_context_globs_select_as_the_command_line_patterns_do(example: Path) -> None:
    async def scenario(client: Client) -> None:
        data = await _data(
            client, "read_context", {"globs": ["scripts/", "*.ts", "nope/*.py"], "mode": "full"}
        )
        shown = [f["path"] for f in data["files"]]
        assert shown == ["scripts/report.py", "src/index.ts", "src/utils.ts"]
        assert data["unmatched"] == ["nope/*.py"]
        message = await _error(client, "read_context", {"globs": ["[abc"]})
        assert 'argument "globs": `[abc` is not a valid gitignore pattern' in message

    _served(example, scenario)


def test_an_empty_reply_names_the_reply_and_dialect_arguments(example: Path) -> None:
    async def scenario(client: Client) -> None:
        message = await _error(client, "preview_edits", {"reply": "just prose"})
        assert message.count('argument "reply" holds no edit blocks') == 1
        assert 'argument "dialect"' in message

    _served(example, scenario)


def test_apply_edits_waits_for_the_roots_apply_lock(example: Path) -> None:
    reply = (EXAMPLE / "reply.md").read_text(encoding="utf-8")
    before = (example / "src" / "utils.ts").read_text(encoding="utf-8")
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with locked(example):
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(10)

    async def scenario(client: Client) -> None:
        threading.Timer(0.5, release.set).start()
        began = time.monotonic()
        data = await _data(client, "apply_edits", {"reply": reply})
        assert time.monotonic() - began >= 0.4
        assert data["ok"] and data["written"]

    try:
        _served(example, scenario)
    finally:
        release.set()
        holder.join()
    assert (example / "src" / "utils.ts").read_text(encoding="utf-8") != before
    assert find_session(example) is None


def test_preview_edits_reports_a_loose_placement_and_strict_refuses_it(example: Path) -> None:
    first = (example / "src" / "utils.ts").read_text(encoding="utf-8").splitlines()[0]
    reply = (
        "src/utils.ts\n<<<<<<< SEARCH\n"
        f"{first.replace(' ', '  ', 1)}\n=======\n{first} // changed\n>>>>>>> REPLACE\n"
    )

    async def scenario(client: Client) -> None:
        loose = await _data(client, "preview_edits", {"reply": reply})
        (placement,) = loose["applied"][0]["placements"]
        assert placement["stage"] == "whitespace" and placement["lines"] == [1, 1]
        strict = await _data(client, "preview_edits", {"reply": reply, "strict": True})
        assert strict["ok"] is False
        assert "only exact matches" in strict["failed"][0]["reason"]

    _served(example, scenario)
