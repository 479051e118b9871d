"""Benchmark of the agent session (issue #6): cache-prefix reuse and compose time per call.

Run: ``make bench`` or ``.venv/bin/python bench/agent_bench.py [--runs N] [--turns N]``.

A scripted session of ``--turns`` turns (default 50) runs on the reference runtime
(:func:`agentprompt.agent.runtime.create_session`, the real built-in tools) over a copy of
this repository's ``src/`` tree. Every turn the scripted model reads one or two source files
(real files, so the tool results have realistic sizes), on every third turn it also greps,
and then answers in a sentence. The same script runs under both placements:

1. Prefix reuse. For every request after the first, the tokens of its byte-identical
   prefix shared with the previous request (:func:`agentprompt.prefix.shared_prefix`), summed
   over the session and divided by the summed input tokens of those requests. ``ally`` is
   seed 001's own placement (per-turn facts regenerated into messages[0]); ``agent`` is the
   default (messages[0] stable, per-turn facts after the history). Target for ``agent``:
   >= 95%.
2. Compose time. The time ``AgentSession.build_request`` takes before each call (the system
   prompt regenerated from current facts, reminders, placement, exact token counts of every
   message) against tokenizing that request's whole text once with the raw encoder, per call
   and summed over the session, for the default placement.

The clock advances one second per call, as a real session's would (the date line is part of
the per-turn facts). The context window is set large enough that compaction never runs, so
the share measures placement alone. Every figure is the median of ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.agent.placement import PlacedRequest, ProfileName
from agentprompt.agent.runtime import create_session
from agentprompt.agent.session.values import SessionConfig
from agentprompt.llm._testing import ScriptedModel
from agentprompt.llm.base import ModelReply, ModelRequest
from agentprompt.messages import ToolCall
from agentprompt.prefix import shared_prefix
from agentprompt.tokens import get_tokenizer, shared_counter
from compose_bench import machine
from peers_report import plot_shares

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class RunResult:
    """One session under one placement."""

    share: float
    shared_tokens: int
    total_tokens: int
    requests: int
    last_request_tokens: int
    compose_seconds: float
    tokenize_seconds: float


def copy_corpus(target: Path) -> list[str]:
    """Copy ``src/`` into ``target`` and return the Python files' paths, largest last."""
    shutil.copytree(ROOT / "src", target / "src", ignore=shutil.ignore_patterns("__pycache__"))
    files = sorted(
        (p for p in (target / "src").rglob("*.py") if p.stat().st_size > 500),
        key=lambda p: p.as_posix(),
    )
    return [p.relative_to(target).as_posix() for p in files]


def script(files: list[str], turns: int) -> tuple[list[str], list[ModelReply | str]]:
    """The user messages and the model's replies of a ``turns``-turn session."""
    users: list[str] = []
    replies: list[ModelReply | str] = []
    for turn in range(turns):
        path = files[(turn * 7) % len(files)]
        users.append(f"Turn {turn + 1}: explain what {path} does and how it is used.")
        calls = [ToolCall(id=f"r{turn}", name="read", arguments=json.dumps({"path": path}))]
        if turn % 2:
            other = files[(turn * 7 + 3) % len(files)]
            calls.append(
                ToolCall(id=f"s{turn}", name="read", arguments=json.dumps({"path": other}))
            )
        replies.append(ModelReply(tool_calls=tuple(calls)))
        if turn % 3 == 0:
            stem = Path(path).stem
            grep = json.dumps({"pattern": f"import.*{stem}", "path": "src"})
            replies.append(
                ModelReply(tool_calls=(ToolCall(id=f"g{turn}", name="grep", arguments=grep),))
            )
        replies.append(
            f"{path} defines the pieces named in its docstring; it is imported where the "
            f"grep showed. (turn {turn + 1})"
        )
    return users, replies


def run_session(root: Path, files: list[str], turns: int, profile: ProfileName) -> RunResult:
    """Run the scripted session under ``profile`` and measure it."""
    users, replies = script(files, turns)
    model = ScriptedModel(replies)
    start = dt.datetime(2026, 1, 2, 9, 0, 0)
    ticks = iter(range(1_000_000))

    def clock() -> dt.datetime:
        return start + dt.timedelta(seconds=next(ticks))

    session = create_session(
        client=model,
        root=root,
        config=SessionConfig(profile=profile, context_size=2_000_000, max_tool_rounds=10),
        clock=clock,
    )
    compose: list[float] = []
    build = session.build_request

    def timed(*args: Any, **kwargs: Any) -> PlacedRequest:
        begin = time.perf_counter()
        placed = build(*args, **kwargs)
        compose.append(time.perf_counter() - begin)
        return placed

    session.build_request = timed  # type: ignore[method-assign]
    for text in users:
        session.run_turn(text)
    if model.remaining:
        raise SystemExit(f"the script was not used up ({model.remaining} replies left)")
    counter = shared_counter(None)
    shared = total = 0
    for before, after in zip(model.requests, model.requests[1:], strict=False):
        prefix = shared_prefix(before.messages, after.messages, counter=counter)
        shared += prefix.tokens
        total += prefix.total_tokens
    raw = get_tokenizer("o200k_base")
    tokenize = 0.0
    for request in model.requests:
        text = _request_text(request)
        begin = time.perf_counter()
        raw.count(text)
        tokenize += time.perf_counter() - begin
    last = shared_prefix((), model.requests[-1].messages, counter=counter).total_tokens
    return RunResult(
        share=shared / total,
        shared_tokens=shared,
        total_tokens=total,
        requests=len(model.requests),
        last_request_tokens=last,
        compose_seconds=sum(compose),
        tokenize_seconds=tokenize,
    )


def _request_text(request: ModelRequest) -> str:
    parts = [m.text for m in request.messages]
    parts.extend(c.arguments for m in request.messages for c in m.tool_calls)
    parts.extend(t.wire_json for t in request.tools)
    return "\n".join(parts)


def _stats(values: list[float], fmt: Callable[[float], str]) -> str:
    return (
        f"median {fmt(statistics.median(values))}, min {fmt(min(values))}, max {fmt(max(values))}"
    )


def main() -> None:
    """Run the benchmark and print the figures (and, with --json, a JSON summary)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="Runs per placement (default 5).")
    parser.add_argument("--turns", type=int, default=50, help="Turns per session (default 50).")
    parser.add_argument("--json", action="store_true", help="Also print a JSON summary.")
    args = parser.parse_args()
    results: dict[str, list[RunResult]] = {"agent": [], "ally": []}
    with tempfile.TemporaryDirectory(prefix="agent-bench-") as tmp:
        root = Path(tmp)
        files = copy_corpus(root)
        for _ in range(args.runs):
            for profile in ("agent", "ally"):
                results[profile].append(run_session(root, files, args.turns, profile))
    print(f"Machine: {machine()}")
    first = results["agent"][0]
    print(
        f"Session: {args.turns} turns, {first.requests} requests, last request "
        f"{first.last_request_tokens} input tokens; {args.runs} runs per placement"
    )
    for profile in ("agent", "ally"):
        shares = [r.share * 100 for r in results[profile]]
        print(f"prefix share, {profile:5}: {_stats(shares, lambda v: f'{v:.2f}%')}")
    ratios = [a.share / b.share for a, b in zip(results["agent"], results["ally"], strict=True)]
    print(f"share ratio agent/ally (per run): {_stats(ratios, lambda v: f'{v:.2f}x')}")
    plot_shares(
        "agent-prefix",
        f"Agent session, {args.turns} turns: byte-identical prefix share (median of {args.runs})",
        ["byte-identical prefix with the previous request"],
        {p: [statistics.median(r.share for r in results[p])] for p in ("agent", "ally")},
    )
    for profile in ("agent", "ally"):
        compose = [r.compose_seconds * 1000 / r.requests for r in results[profile]]
        tokenize = [r.tokenize_seconds * 1000 / r.requests for r in results[profile]]
        ratio = [r.compose_seconds / r.tokenize_seconds for r in results[profile]]
        per_turn = [r.compose_seconds * 1000 / args.turns for r in results[profile]]
        print(f"{profile}: compose per turn: {_stats(per_turn, lambda v: f'{v:.2f} ms')}")
        print(f"{profile}: compose per call: {_stats(compose, lambda v: f'{v:.2f} ms')}")
        print(f"{profile}: raw tokenize per call: {_stats(tokenize, lambda v: f'{v:.2f} ms')}")
        print(f"{profile}: compose / tokenize (per run): {_stats(ratio, lambda v: f'{v:.3f}')}")
    if args.json:
        print(
            json.dumps(
                {p: [r.__dict__ for r in rs] for p, rs in results.items()}, indent=2, default=str
            )
        )


if __name__ == "__main__":
    main()
