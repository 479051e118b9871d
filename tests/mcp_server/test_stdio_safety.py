"""What the server refuses over standard input and output: paths out of the root, writes in
read-only mode, unusable calls, huge arguments and a root that vanished; each refusal is an
error result naming the input, nothing is written, and the server keeps serving."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.types import ProgressNotificationParams

from mcp_server.client import error_text, structured

pytestmark = pytest.mark.slow

ESCAPING_REPLY = """../outside.txt
<<<<<<< SEARCH
=======
escaped
>>>>>>> REPLACE
"""


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".agentprompt" not in p.parts
    }


def test_paths_out_of_the_root_are_refused(
    example: Path, tmp_path: Path, run_served: Callable[..., None]
) -> None:
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "notes.txt").write_text("private\n", encoding="utf-8")
    os.symlink(outside, example / "link")

    async def scenario(session: ClientSession) -> None:
        for arguments in (
            {"paths": ["../private/notes.txt"]},
            {"paths": [str(outside / "notes.txt")]},
            {"paths": ["link/notes.txt"]},
            {"paths": [".git/config"]},
        ):
            message = error_text(await session.call_tool("read_context", arguments))
            assert message.startswith('Error executing tool read_context: argument "paths"')
            assert "private\n" not in message
        message = error_text(await session.call_tool("repo_map", {"focus": ["../x.py"]}))
        assert 'argument "focus"' in message
        message = error_text(await session.call_tool("pack", {"task": "x", "files": ["/etc"]}))
        assert 'argument "files"' in message
        data = structured(await session.call_tool("apply_edits", {"reply": ESCAPING_REPLY}))
        assert not data["ok"] and not data["written"]
        assert "outside.txt" in data["failed"][0]["path"]

    run_served(example, scenario)
    assert not (example.parent / "outside.txt").exists()


def test_read_only_leaves_apply_edits_out(example: Path, run_served: Callable[..., None]) -> None:
    before = _snapshot(example)
    reply = "src/utils.ts\n<<<<<<< SEARCH\n=======\nnew\n>>>>>>> REPLACE\n"

    async def scenario(session: ClientSession) -> None:
        names = {t.name for t in (await session.list_tools()).tools}
        assert "apply_edits" not in names and "preview_edits" in names
        message = error_text(await session.call_tool("apply_edits", {"reply": reply}))
        assert "read-only" in message and "preview_edits" in message

    run_served(example, scenario, "--read-only")
    assert _snapshot(example) == before


def test_unusable_calls_are_refused_by_name_and_the_server_keeps_serving(
    example: Path, run_served: Callable[..., None]
) -> None:
    before = _snapshot(example)
    huge = "x" * (50 * 1024 * 1024)

    async def scenario(session: ClientSession) -> None:
        refusals = [
            ("no_such_tool", {}, 'there is no tool "no_such_tool"'),
            ("rank_files", {"task": "x", "depth": 3}, 'does not take the argument "depth"'),
            ("rank_files", {"task": 42}, 'argument "task" must be of type string'),
            ("count_tokens", {"text": None}, 'argument "text" must be of type string'),
            ("read_context", {"paths": "src"}, 'argument "paths" must be of type array'),
            ("repo_map", {"max_tokens": "many"}, 'argument "max_tokens" must be of type integer'),
            ("preview_edits", {"reply": "x", "dialect": "git"}, 'argument "dialect"'),
            ("apply_edits", {"reply": huge}, 'argument "reply" is 52,428,800 characters'),
            ("rank_files", {"task": huge}, 'argument "task" is 52,428,800 characters'),
        ]
        for tool, arguments, expected in refusals:
            message = error_text(await session.call_tool(tool, arguments))
            assert expected in message, message
        assert structured(await session.call_tool("count_tokens", {"text": "alive"}))["tokens"]

    run_served(example, scenario)
    assert _snapshot(example) == before


def test_a_vanished_root_is_an_error_naming_it(
    example: Path, tmp_path: Path, run_served: Callable[..., None]
) -> None:
    async def scenario(session: ClientSession) -> None:
        shutil.move(example, tmp_path / "moved")
        message = error_text(await session.call_tool("rank_files", {"task": "parse json"}))
        assert str(example) in message and "--root" in message
        message = error_text(await session.call_tool("apply_edits", {"reply": ESCAPING_REPLY}))
        assert "no longer exists" in message
        assert structured(await session.call_tool("count_tokens", {"text": "alive"}))

    run_served(example, scenario)
    assert not example.exists()


def test_a_long_call_reports_its_progress(example: Path, run_served: Callable[..., None]) -> None:
    package = example / "pkg"
    package.mkdir()
    for n in range(300):
        (package / f"mod{n}.py").write_text(
            f"from pkg.mod{(n + 1) % 300} import f{(n + 1) % 300}\n\n"
            f"def f{n}(x: int) -> int:\n    return x + {n}\n",
            encoding="utf-8",
        )
    seen: list[ProgressNotificationParams] = []

    async def scenario(session: ClientSession) -> None:
        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            seen.append(
                ProgressNotificationParams(
                    progress_token=0, progress=progress, total=total, message=message
                )
            )

        result = await session.call_tool(
            "rank_files", {"task": "f17 returns the wrong number"}, progress_callback=on_progress
        )
        assert structured(result)["total"] >= 300

    run_served(example, scenario)
    assert seen and seen[0].message == "rank_files: started"
    parsing = [p for p in seen if p.message == "rank_files: parsing files"]
    assert parsing and parsing[-1].progress == parsing[-1].total
