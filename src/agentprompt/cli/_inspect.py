"""``agentprompt inspect``: a profile's messages, tokens per section, and cache prefix."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from agentprompt.cli._options import format_option, json_option, make_root_option
from agentprompt.cli._output import (
    console,
    err_console,
    print_json,
    show_json,
    show_messages,
)
from agentprompt.composition import Composition
from agentprompt.errors import UsageError
from agentprompt.messages import Message
from agentprompt.profiles import PROFILES, InspectReport, InspectRequest, inspect_profile
from agentprompt.wire import from_anthropic, from_openai, to_anthropic, to_openai, to_text

__all__ = ["inspect_command", "read_messages_file", "report_json"]


def read_messages_file(path: Path) -> list[Message]:
    """Messages from a JSON file: ``inspect --json`` output, an OpenAI ``messages`` list, or
    an Anthropic request with ``system`` and ``messages``."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(
            f"{path} is not a JSON file ({exc}); give the output of "
            "'agentprompt inspect --json' or a list of chat messages"
        ) from None
    if isinstance(data, list):
        return from_openai(data)
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        if "system" in data or data.get("format") == "anthropic":
            return from_anthropic(data["messages"], data.get("system"))
        return from_openai(data["messages"])
    raise UsageError(
        f"{path} holds no messages: expected a JSON list of chat messages or an object with a "
        "'messages' list"
    )


def _markers(comp: Composition) -> list[dict[str, Any]]:
    """Where each message's cache markers are: inside it (at character offsets), at its end."""
    return [
        {"message": i, "inside_at": list(m.inner_breakpoints), "at_end": m.cache_breakpoint}
        for i, m in enumerate(comp.messages)
        if m.cache_breakpoint or m.inner_breakpoints
    ]


def _describe_markers(comp: Composition) -> str:
    words = []
    for mark in _markers(comp):
        where = []
        if mark["inside_at"]:
            where.append("after its static part")
        if mark["at_end"]:
            where.append("at its end")
        words.append(f"message {mark['message']} ({' and '.join(where)})")
    return "; ".join(words)


def report_json(report: InspectReport, fmt: str) -> dict[str, Any]:
    """What ``inspect --json`` prints for a report (also used by ``workflow compose``)."""
    comp = report.composition
    out: dict[str, Any] = {
        "profile": report.profile,
        "tokenizer": comp.tokenizer,
        "exact": comp.exact,
        "total_tokens": comp.total_tokens,
        "tool_tokens": comp.tool_tokens,
        "sections": [
            {
                "id": s.id,
                "kind": s.kind,
                "role": s.role,
                "stability": s.stability.name.lower(),
                "priority": s.priority,
                "tokens": s.tokens,
                "cache_tier": s.cache_tier,
                "messages": [s.first_message, s.last_message],
            }
            for s in comp.sections
        ],
        "message_tokens": list(comp.message_tokens),
        "breakpoints": list(comp.breakpoints),
        "cache_markers": _markers(comp),
        "messages": to_openai(comp.messages),
        "tools": [t.to_openai() for t in comp.tools],
    }
    if fmt == "anthropic":
        out["anthropic"] = to_anthropic(comp.messages)
    elif fmt == "text":
        out["text"] = to_text(comp.messages)
    if report.budget is not None:
        out["budget"] = report.budget
        out["cuts"] = [dataclasses.asdict(c) for c in report.cuts]
    if report.prefix is not None:
        out["previous"] = {**dataclasses.asdict(report.prefix), "share": report.prefix.share}
    return out


def _print_report(report: InspectReport, fmt: str) -> None:
    comp = report.composition
    kind = "exact" if comp.exact else "estimated"
    table = Table(title=f"Profile '{report.profile}' — tokens ({comp.tokenizer}, {kind})")
    tiered = any(s.cache_tier for s in comp.sections)
    columns = ("section", "role", "stability", "priority", "tokens", "message")
    for col in ("tier", *columns) if tiered else columns:
        table.add_column(col, justify="right" if col in ("tokens", "priority") else "left")
    for s in comp.sections:
        where = (
            str(s.first_message)
            if s.first_message == s.last_message
            else f"{s.first_message}–{s.last_message}"
        )
        if s.last_message < s.first_message:
            where = "—"
        priority = "required" if s.priority is None else str(s.priority)
        row = (s.id, s.role, s.stability.name.lower(), priority, str(s.tokens), where)
        table.add_row(*((s.cache_tier or "—", *row) if tiered else row))
    console.print(table)
    if tiered:
        per_tier: dict[str, int] = {}
        for s in comp.sections:
            per_tier[s.cache_tier or "uncached"] = per_tier.get(s.cache_tier or "uncached", 0) + (
                s.tokens
            )
        console.print(
            "Tokens per cache tier: " + ", ".join(f"{t} {n}" for t, n in per_tier.items())
        )
    framing = comp.total_tokens - sum(comp.message_tokens) - comp.tool_tokens
    console.print(
        f"Total input tokens: [bold]{comp.total_tokens}[/bold] "
        f"({len(comp.messages)} messages, {framing} of chat framing"
        + (f", {comp.tool_tokens} of tool definitions (estimate)" if comp.tools else "")
        + ")"
    )
    console.print(f"Cache breakpoints: {_describe_markers(comp) or 'none'}")
    if report.budget is not None:
        console.print(f"Budget: {report.budget} input tokens")
        for cut in report.cuts:
            console.print(
                f"  cut {cut.section}: {cut.detail} ({cut.tokens_before} → {cut.tokens_after}); "
                f"{cut.reason}"
            )
        if not report.cuts:
            console.print("  nothing had to be cut")
    if report.prefix is not None:
        p = report.prefix
        console.print(
            f"Shared with the previous render: {p.identical_messages} identical messages, "
            f"{p.bytes} bytes, ~{p.tokens} of {p.total_tokens} tokens ({p.share:.1%})"
        )
    console.rule("messages")
    if comp.tools and fmt == "openai":  # a request body: the messages and the tools beside them
        show_json(
            {"messages": to_openai(comp.messages), "tools": [t.to_openai() for t in comp.tools]}
        )
    elif comp.tools and fmt == "anthropic":
        show_json({**to_anthropic(comp.messages), "tools": [t.to_anthropic() for t in comp.tools]})
    else:
        show_messages(comp.messages, fmt)


@click.command("inspect")
@click.option("--profile", "profile_name", required=True, help=f"One of: {', '.join(PROFILES)}.")
@click.option("--task", default="", help="The user's request the prompt is built for.")
@make_root_option(
    "The repository the prompt is about (default: the one around the cwd).", find_repository=True
)
@click.option("--model", default=None, help="Count tokens for this model (default o200k_base).")
@click.option("--max-tokens", type=click.IntRange(min=1), default=None, help="Fit to a budget.")
@click.option(
    "--reserve-output", type=click.IntRange(min=0), default=0, help="Tokens kept for the reply."
)
@click.option(
    "--history",
    "history_file",
    type=click.Path(path_type=Path),
    default=None,
    help="A JSON file of earlier messages to include.",
)
@click.option(
    "--previous",
    "previous_file",
    type=click.Path(path_type=Path),
    default=None,
    help="An earlier 'inspect --json' output: report the byte-identical prefix shared with it.",
)
@click.option(
    "--date",
    "date",
    type=click.DateTime(formats=["%Y-%m-%dT%H:%M:%S", "%Y-%m-%d"]),
    default=None,
    help="State this date instead of now (makes the output byte-stable).",
)
@click.option("--once", is_flag=True, help="Single-response mode.")
@click.option(
    "--system-reminder",
    is_flag=True,
    help="Put the system reminder (the compact edit-format rules) before the latest user message.",
)
@format_option
@json_option()
def inspect_command(
    profile_name: str,
    task: str,
    root: Path,
    model: str | None,
    max_tokens: int | None,
    reserve_output: int,
    history_file: Path | None,
    previous_file: Path | None,
    date: dt.datetime | None,
    once: bool,
    system_reminder: bool,
    fmt: str,
    as_json: bool,
) -> None:
    """Show a profile's messages, the tokens of each section, and where caches break."""
    request = InspectRequest(
        root=root.resolve(),
        task=task,
        history=tuple(read_messages_file(history_file)) if history_file else (),
        now=date,
        once=once,
        system_reminder=system_reminder,
    )
    if profile_name in ("agent", "ally"):
        from agentprompt.agent.specialized import scan_agents

        for problem in scan_agents(request.root).problems:
            err_console.print(f"agentprompt: warning: skipped {problem}", markup=False)
    if profile_name == "ac":
        from agentprompt.tiers.persist import read_stored

        for warning in read_stored(request.root).warnings:
            err_console.print(f"agentprompt: warning: {warning}", markup=False)
    previous = read_messages_file(previous_file) if previous_file else None
    report = inspect_profile(
        profile_name,
        request,
        model=model,
        max_tokens=max_tokens,
        reserve_output=reserve_output,
        previous=previous,
    )
    if as_json:
        print_json(report_json(report, fmt))
    else:
        _print_report(report, fmt)
