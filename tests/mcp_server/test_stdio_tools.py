"""Each tool called over standard input and output with the SDK's own client, on a copy of
the bridge example repository: structured results, errors as error results, and a server
that keeps serving."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import ClientSession

from agentprompt.bridge.state import find_session
from agentprompt.tokens import shared_counter
from mcp_server.client import EXAMPLE, error_text, structured

pytestmark = pytest.mark.slow

TOOLS = {
    "rank_files",
    "rank_symbols",
    "repo_map",
    "read_context",
    "pack",
    "preview_edits",
    "apply_edits",
    "count_tokens",
}

FAILING_REPLY = """src/utils.ts
<<<<<<< SEARCH
this line is not in the file
=======
replacement
>>>>>>> REPLACE
"""

AWS_KEY_FILE = 'AWS_ACCESS_KEY_ID = "AKIAIOSFODNN7EXAMPLE"\n'


def test_every_tool_is_listed_with_its_schemas_and_a_description(
    example: Path, run_served: Callable[..., None]
) -> None:
    async def scenario(session: ClientSession) -> None:
        listed = (await session.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        for tool in listed:
            assert tool.description and len(tool.description) > 80, tool.name
            assert "seed" not in tool.description.lower()
            assert tool.input_schema["type"] == "object"
            assert tool.output_schema is not None, tool.name
        writes = {t.name for t in listed if not (t.annotations and t.annotations.read_only_hint)}
        assert writes == {"apply_edits"}

    run_served(example, scenario)


def test_rank_files_puts_the_file_the_task_names_first(
    example: Path, run_served: Callable[..., None]
) -> None:
    async def scenario(session: ClientSession) -> None:
        result = await session.call_tool(
            "rank_files", {"task": "parseJSON throws on invalid input", "top": 2}
        )
        data = structured(result)
        assert [f["path"] for f in data["files"]] == ["src/utils.ts", "src/index.ts"]
        assert data["files"][0]["reasons"]

    run_served(example, scenario)


def test_repo_map_fits_its_budget_and_leaves_out_files_in_context(
    example: Path, run_served: Callable[..., None]
) -> None:
    async def scenario(session: ClientSession) -> None:
        data = structured(
            await session.call_tool(
                "repo_map", {"max_tokens": 400, "in_context": ["scripts/report.py"]}
            )
        )
        assert 0 < data["tokens"] <= 400
        assert "parseJSON" in data["text"]
        assert "scripts/report.py" not in {f["path"] for f in data["files"]}

    run_served(example, scenario)


def test_read_context_counts_exactly_and_withholds_secrets(
    example: Path, run_served: Callable[..., None]
) -> None:
    (example / "settings.py").write_text(AWS_KEY_FILE, encoding="utf-8")

    async def scenario(session: ClientSession) -> None:
        data = structured(
            await session.call_tool("read_context", {"paths": ["src/utils.ts", "settings.py"]})
        )
        [shown] = data["files"]
        text = (example / "src" / "utils.ts").read_text(encoding="utf-8")
        assert shown == {
            "path": "src/utils.ts",
            "shown": "full",
            "tokens": shared_counter().count(text),
            "text": text,
        }
        assert data["cut"] == [
            {"path": "settings.py", "kept": "path", "reason": "holds a likely secret"}
        ]
        assert [w["path"] for w in data["withheld"]] == ["settings.py"]
        assert "AKIA" not in str(data)

    run_served(example, scenario)


def test_read_context_cuts_to_signatures_then_paths_and_says_so(
    example: Path, run_served: Callable[..., None]
) -> None:
    async def scenario(session: ClientSession) -> None:
        data = structured(
            await session.call_tool(
                "read_context", {"globs": ["src/*.ts", "*.py"], "max_tokens": 90}
            )
        )
        assert data["tokens"] <= 90
        assert data["tokens"] == sum(f["tokens"] for f in data["files"])
        kept = {c["path"]: c["kept"] for c in data["cut"]}
        assert kept, data
        assert all("budget of 90 tokens" in c["reason"] for c in data["cut"])
        shown = {f["path"]: f["shown"] for f in data["files"]}
        assert set(shown) | set(kept) == {"src/index.ts", "src/utils.ts", "scripts/report.py"}

    run_served(example, scenario)


def test_pack_returns_the_prompt_without_starting_a_session(
    example: Path, run_served: Callable[..., None]
) -> None:
    async def scenario(session: ClientSession) -> None:
        data = structured(
            await session.call_tool(
                "pack",
                {"task": "make parseJSON return null", "files": ["src/utils.ts"]},
            )
        )
        assert data["mode"] == "edit"
        assert data["in_full"] == ["src/utils.ts"]
        assert "make parseJSON return null" in data["text"]
        assert data["tokens"] == shared_counter().count(data["text"])
        browse = structured(
            await session.call_tool("pack", {"task": "tour", "exclude": ["scripts/"]})
        )
        assert browse["mode"] == "browse" and "report.py" not in browse["text"]

    run_served(example, scenario)
    assert find_session(example) is None


def test_preview_edits_shows_the_diff_and_writes_nothing(
    example: Path, run_served: Callable[..., None]
) -> None:
    before = (example / "src" / "utils.ts").read_bytes()
    reply = (EXAMPLE / "reply.md").read_text(encoding="utf-8")

    async def scenario(session: ClientSession) -> None:
        data = structured(await session.call_tool("preview_edits", {"reply": reply}))
        assert data["ok"] and data["dry_run"] and not data["written"]
        assert "+++ b/src/utils.ts" in data["diff"]
        assert data["requests"] == ["scripts/report.py"]

    run_served(example, scenario)
    assert (example / "src" / "utils.ts").read_bytes() == before


def test_apply_edits_writes_the_reply(example: Path, run_served: Callable[..., None]) -> None:
    reply = (EXAMPLE / "reply.md").read_text(encoding="utf-8")

    async def scenario(session: ClientSession) -> None:
        data = structured(await session.call_tool("apply_edits", {"reply": reply}))
        assert data["ok"] and data["written"]

    before = (example / "src" / "utils.ts").read_text(encoding="utf-8")
    run_served(example, scenario)
    assert (example / "src" / "utils.ts").read_text(encoding="utf-8") != before


def test_a_failed_edit_gives_feedback_and_writes_nothing(
    example: Path, run_served: Callable[..., None]
) -> None:
    before = (example / "src" / "utils.ts").read_bytes()

    async def scenario(session: ClientSession) -> None:
        data = structured(await session.call_tool("apply_edits", {"reply": FAILING_REPLY}))
        assert not data["ok"] and not data["written"]
        assert data["failed"][0]["path"] == "src/utils.ts"
        assert "src/utils.ts" in data["feedback"] and "Nothing was written" in data["feedback"]

    run_served(example, scenario)
    assert (example / "src" / "utils.ts").read_bytes() == before


def test_count_tokens_is_exact(example: Path, run_served: Callable[..., None]) -> None:
    async def scenario(session: ClientSession) -> None:
        data = structured(await session.call_tool("count_tokens", {"text": "hello world"}))
        assert data == {"tokens": 2, "tokenizer": "o200k_base", "exact": True}
        estimate = structured(
            await session.call_tool("count_tokens", {"text": "hello", "model": "claude-x"})
        )
        assert estimate["exact"] is False

    run_served(example, scenario)


def test_an_engine_error_is_an_error_result_naming_the_argument(
    example: Path, run_served: Callable[..., None]
) -> None:
    async def scenario(session: ClientSession) -> None:
        message = error_text(await session.call_tool("preview_edits", {"reply": "just prose"}))
        assert 'argument "reply"' in message and "no edit blocks" in message
        message = error_text(await session.call_tool("rank_files", {"task": "   "}))
        assert 'argument "task"' in message
        message = error_text(
            await session.call_tool("pack", {"task": "x", "files": ["nowhere.py"]})
        )
        assert 'argument "files"' in message
        assert structured(await session.call_tool("count_tokens", {"text": "still here"}))

    run_served(example, scenario)
