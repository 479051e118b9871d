"""Tool latency of ``agentprompt mcp`` over standard input and output, on the map corpus.

The server runs as a subprocess, driven by the official SDK's ``ClientSession`` as any MCP
client drives it. Measured: server start (spawn to the ``initialize`` answer, a fresh
process each run), and, in one session whose caches were warmed by an untimed call of each
tool, ``rank_files`` for a task, ``repo_map`` at its default 1024 tokens and ``preview_edits`` of a
20-block SEARCH/REPLACE reply against 20 corpus files. Each figure is the median of
``--runs`` calls, with min and max.

Run: ``.venv/bin/python bench/mcp_bench.py --runs 5`` (builds ``bench/.corpus/`` with
``bench/map_corpus.py`` when missing).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from map_corpus import build_corpus  # noqa: E402

AGENTPROMPT = Path(sys.executable).parent / "agentprompt"
TASK = "slugify turns unicode text into ASCII wrongly when allow_unicode is false"
"""A task a Django user might report (django/utils/text.py holds slugify)."""
BLOCKS = 20


def _params(root: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=str(AGENTPROMPT), args=["mcp", "--root", str(root)], env=dict(os.environ)
    )


def twenty_block_reply(root: Path) -> str:
    """A SEARCH/REPLACE reply changing one unique line in each of 20 Django modules."""
    blocks: list[str] = []
    base = root / "Django-5.0.6" / "Django-5.0.6" / "django" / "utils"
    for path in sorted(base.glob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        text = "\n".join(lines)
        unique = [
            line
            for line in lines
            if line.strip().startswith("def ") and text.count(line) == 1 and "\\" not in line
        ]
        if not unique:
            continue
        line = unique[0]
        name = path.relative_to(root).as_posix()
        blocks.append(
            f"{name}\n<<<<<<< SEARCH\n{line}\n=======\n{line}  # edited\n>>>>>>> REPLACE\n"
        )
        if len(blocks) == BLOCKS:
            break
    assert len(blocks) == BLOCKS, f"only {len(blocks)} blocks"
    return "\n".join(blocks)


async def _start(root: Path) -> float:
    """Seconds from spawning the server to its ``initialize`` answer."""
    began = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(_params(root), errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            return time.perf_counter() - began


async def _timed(call: Callable[[], Awaitable[Any]], runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        result = await call()
        times.append(time.perf_counter() - began)
        assert not result.is_error, result.content
    return times


async def _tools(root: Path, runs: int, reply: str) -> dict[str, list[float]]:
    with open(os.devnull, "w") as errlog:
        async with (
            stdio_client(_params(root), errlog=errlog) as (read, write),
            ClientSession(read, write, read_timeout_seconds=600) as session,
        ):
            await session.initialize()
            calls: dict[str, Callable[[], Awaitable[Any]]] = {
                "rank_files": lambda: session.call_tool("rank_files", {"task": TASK}),
                "repo_map": lambda: session.call_tool("repo_map", {}),
                "preview_edits": lambda: session.call_tool("preview_edits", {"reply": reply}),
            }
            for name, call in calls.items():  # warm: the symbol cache, tokenizer, imports
                result = await call()
                assert not result.is_error, (name, result.content)
                if name == "preview_edits":
                    data = result.structured_content or {}
                    assert data["ok"] and len(data["applied"]) == BLOCKS, data.get("feedback")
            return {name: await _timed(call, runs) for name, call in calls.items()}


def _row(name: str, times: list[float], target: float) -> str:
    median = statistics.median(times)
    verdict = "met" if median <= target else "**missed**"
    return (
        f"| {name} | {median:.3f} s | {min(times):.3f} s | {max(times):.3f} s "
        f"| ≤ {target:g} s: {verdict} |"
    )


def main() -> None:
    """Build the corpus, then time server start and the tools over stdio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    corpus = build_corpus()
    reply = twenty_block_reply(corpus)
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}, load average {os.getloadavg()[0]:.2f} at the start"
    )
    tools = anyio.run(_tools, corpus, args.runs, reply)
    starts = [anyio.run(_start, corpus) for _ in range(args.runs)]
    print("| measurement | median | min | max | target |")
    print("| --- | --- | --- | --- | --- |")
    print(_row("server start (spawn to initialize answer)", starts, 1.0))
    print(_row("rank_files, warm", tools["rank_files"], 1.5))
    print(_row("repo_map (default 1024 tokens), warm", tools["repo_map"], 1.2))
    print(_row(f"preview_edits, {BLOCKS}-block reply, warm", tools["preview_edits"], 0.3))
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
