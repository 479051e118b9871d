"""The resources (prompt files, instruction files, the map) and the prompts (commit message,
file selection) over standard input and output."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from mcp import ClientSession, MCPError
from mcp.types import TextResourceContents

from agentprompt.prompts.loader import PACKAGED_DIR

pytestmark = pytest.mark.slow


def test_prompt_files_instructions_and_the_map_are_resources(
    example: Path, run_served: Callable[..., None]
) -> None:
    (example / "AGENTS.md").write_text("Run the tests with npm test.\n", encoding="utf-8")

    async def scenario(session: ClientSession) -> None:
        uris = {str(r.uri) for r in (await session.list_resources()).resources}
        assert {"agentprompt://map", "agentprompt://instructions/AGENTS.md"} <= uris
        assert "agentprompt://prompts/commit_system" in uris
        assert "agentprompt://instructions/CLAUDE.md" not in uris

        async def text(uri: str) -> str:
            [content] = (await session.read_resource(uri)).contents
            assert isinstance(content, TextResourceContents)
            return content.text

        assert await text("agentprompt://instructions/AGENTS.md") == "Run the tests with npm test."
        assert "parseJSON" in await text("agentprompt://map")
        packaged = (PACKAGED_DIR / "commit_system.md").read_text(encoding="utf-8")
        assert await text("agentprompt://prompts/commit_system") == packaged
        with pytest.raises(MCPError):
            await session.read_resource("agentprompt://prompts/no/such/prompt")

    run_served(example, scenario)


def test_the_commit_and_file_selection_prompts_render(
    example: Path, run_served: Callable[..., None]
) -> None:
    diff = "diff --git a/src/utils.ts b/src/utils.ts\n+export const answer = 42;\n"

    async def scenario(session: ClientSession) -> None:
        names = {p.name for p in (await session.list_prompts()).prompts}
        assert names == {"commit_message", "file_selection"}
        commit = await session.get_prompt("commit_message", {"diff": diff})
        assert "export const answer = 42;" in commit.messages[-1].content.text  # type: ignore[union-attr]
        chosen = await session.get_prompt("file_selection", {"request": "fix the date format"})
        text = chosen.messages[0].content.text  # type: ignore[union-attr]
        assert "fix the date format" in text and "utils.ts" in text
        with pytest.raises(MCPError) as refused:
            await session.get_prompt("commit_message", {})
        assert "cannot read the staged diff" in str(refused.value)

    run_served(example, scenario)
