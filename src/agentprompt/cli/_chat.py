"""``agentprompt chat`` and ``agentprompt run --once``: the reference agent loop.

``chat`` reads one message per line from stdin (``/exit`` or end of input ends it) and
answers each with a turn of the agent session, except the slash commands
(:mod:`agentprompt.cli._chat_commands`: ``/help``, ``/project``, ``/todos``, ``/context``, ...),
which act on the session without the model; ``--once TEXT`` answers one message in
single-response mode and exits, as ``run --once TEXT`` does (an empty message is refused
with exit status 2; an interrupted one ends with 130). Every turn is saved in the
project's state database, so ``--resume ID`` continues a session. Ctrl-C during a turn
interrupts it (the next turn is told so); at the prompt it ends the chat.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from agentprompt.cli._model import model_options
from agentprompt.cli._options import json_option, make_root_option
from agentprompt.cli._output import EXIT_FAILED, console, err_console, print_json, printable

if TYPE_CHECKING:
    from agentprompt.agent.session.values import SessionEvent
    from agentprompt.llm import ModelSpec

__all__ = ["chat_command", "run_command"]

_EXIT_WORDS = ("/exit", "/quit")

EXIT_INTERRUPTED = 130
"""Exit status of ``--once`` when the user interrupted it (as for an abort)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Options:
    """The flags ``chat`` and ``run`` share."""

    root: Path
    db: Path | None
    profile: str | None
    context_size: int | None
    stream: bool
    shell: bool
    max_tool_rounds: int
    compact_threshold: float | None
    as_json: bool


def _shared(fn: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.option(
            "--resume", "resume_id", default=None, metavar="ID", help="Continue a stored session."
        ),
        make_root_option(
            "The repository the agent works in (default: the one around the cwd).",
            find_repository=True,
        ),
        click.option(
            "--db",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="The state database (default: ROOT/.agentprompt/state.db).",
        ),
        click.option(
            "--profile",
            type=click.Choice(["agent", "ally"]),
            default=None,
            help="agent: cache-stable prompt (default); ally: the whole prompt regenerated "
            "into messages[0] before every call.",
        ),
        click.option(
            "--context-size",
            type=click.IntRange(min=1000),
            default=None,
            help="The model's context window in tokens (default: configured, else 128000).",
        ),
        click.option(
            "--stream/--no-stream", default=True, help="Show the reply as it is generated."
        ),
        click.option("--shell", is_flag=True, help="Offer the shell tool (off by default)."),
        click.option(
            "--max-tool-rounds",
            type=click.IntRange(min=1),
            default=30,
            help="Model calls with tool calls per turn before a text response is required.",
        ),
        click.option(
            "--compact-threshold",
            type=click.FloatRange(min=1, max=100),
            default=None,
            metavar="PERCENT",
            help="Context usage at which the history is summarised (default: [agent] "
            "compact_threshold in the config file, else 80).",
        ),
        json_option("Print each turn's result as JSON."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


class _Output:
    """Whether the reply text on stdout stopped mid-line: the next reply's text (after
    tool calls, say) must start on a line of its own, not glued to the last one."""

    mid_line = False

    @classmethod
    def write(cls, text: str) -> None:
        if text:
            sys.stdout.write(text)
            sys.stdout.flush()
            cls.mid_line = not text.endswith("\n")

    @classmethod
    def end_line(cls) -> None:
        if cls.mid_line:
            cls.write("\n")


def _show_event(event: SessionEvent) -> None:
    indent = "  " * event.depth
    if event.kind == "text_delta" and event.depth == 0:
        _Output.write(printable(event.text))
        return
    _Output.end_line()
    if event.kind == "text" and event.depth == 0:
        console.print(printable(event.text), markup=False)
    elif event.kind == "tool_call":
        err_console.print(f"{indent}→ {event.name}({event.text})", markup=False, style="dim")
    elif event.kind == "tool_result":
        first = event.text.splitlines()[0] if event.text else ""
        mark = "✗" if event.is_error else "←"
        err_console.print(f"{indent}{mark} {first[:160]}", markup=False, style="dim")
    elif event.kind == "delegation":
        err_console.print(f"{indent}@{event.name}: {event.text}", markup=False, style="dim")
    elif event.kind in ("compaction", "retry"):
        err_console.print(f"{indent}[{event.kind}] {event.text[:300]}", markup=False)
    elif event.kind == "warning":
        _show_warning(event)


def _show_warning(event: SessionEvent) -> None:
    """Warnings reach the user in every output mode (``--json`` prints nothing else)."""
    if event.kind == "warning":
        err_console.print(f"agentprompt: warning: {event.text}", markup=False)


def _run(model_opts: ModelSpec, opts: _Options, resume_id: str | None, once: str | None) -> None:
    from agentprompt.agent.compaction import CompactionPolicy
    from agentprompt.agent.runtime import open_chat
    from agentprompt.agent.session.values import SessionConfig
    from agentprompt.cli._chat_commands import run_slash_command, tools_line
    from agentprompt.llm import model_from_environment
    from agentprompt.llm.config import default_config_file, read_config_file
    from agentprompt.llm.errors import ModelError
    from agentprompt.tools.policy import ToolPolicy

    if once is not None and not _is_text(once):
        raise click.BadParameter(_NOT_UTF8.format(what="the message"), param_hint="'--once'")
    if once is not None and not once.strip():
        raise click.BadParameter(
            "the message is empty; give the request to answer, e.g. --once 'explain src/'",
            param_hint="'--once'",
        )
    _Output.mid_line = False
    chosen = model_from_environment(model_opts, os.environ)
    model_config = chosen.config
    threshold = opts.compact_threshold
    if threshold is None:
        threshold = read_config_file(default_config_file()).agent.compact_threshold
    config = SessionConfig(
        profile="ally" if opts.profile == "ally" else "agent",
        once=once is not None,
        stream=opts.stream and not opts.as_json,
        model=None if model_config.provider == "script" else model_config.model,
        context_size=opts.context_size or model_config.context_window or 128_000,
        policy=ToolPolicy(shell_enabled=opts.shell),
        max_tool_rounds=opts.max_tool_rounds,
        compaction=CompactionPolicy()
        if threshold is None
        else CompactionPolicy(threshold=threshold),
    )
    chat = open_chat(
        client=chosen.client,
        root=opts.root,
        config=config,
        db=opts.db,
        resume_id=resume_id,
        profile_given=opts.profile is not None,
        on_event=_show_warning if opts.as_json else _show_event,
        cwd=Path.cwd(),
    )
    with chat:
        if not opts.as_json:
            err_console.print(
                f"session {chat.session_id} (resume with: agentprompt chat --resume "
                f"{chat.session_id})",
                markup=False,
                style="dim",
            )
            err_console.print(tools_line(chat.session), markup=False, style="dim")
        messages = [once] if once is not None else None
        failed = False
        for text in messages if messages is not None else _read_messages(opts.as_json):
            if messages is None and text.startswith("/") and not text.startswith("//"):
                _Output.end_line()
                shown = run_slash_command(chat, text)
                if opts.as_json:
                    print_json({"session": chat.session_id, "command": text, "output": shown})
                elif shown:
                    console.print(printable(shown), markup=False)
                continue
            if messages is None and text.startswith("//"):
                text = text[1:]
            try:
                result = chat.turn(text)
            except ModelError as exc:
                # The session is saved; a chat goes on with the next message (the model may
                # answer it), and ends with status 1 because a turn failed.
                _Output.end_line()
                err_console.print(f"agentprompt: error: {exc}", markup=False)
                failed = True
                continue
            if opts.as_json:
                print_json({"session": chat.session_id, **dataclasses.asdict(result)})
            elif result.interrupted:
                err_console.print("\n[interrupted]", markup=False)
            elif config.stream:
                _Output.end_line()
            if result.interrupted and once is not None:
                sys.exit(EXIT_INTERRUPTED)  # the one answer asked for was not given
        if failed:
            sys.exit(EXIT_FAILED)


def _read_messages(quiet: bool) -> Iterator[str]:
    interactive = sys.stdin.isatty()
    while True:
        if interactive and not quiet:
            err_console.print("> ", end="", markup=False)
        try:
            line = sys.stdin.readline()
        except KeyboardInterrupt:
            return
        if not line:
            return
        text = line.strip()
        if text in _EXIT_WORDS:
            return
        if not _is_text(text):
            err_console.print(_NOT_UTF8.format(what="the line"), markup=False)
            continue
        if text:
            yield text


_NOT_UTF8 = "agentprompt: error: {what} is not UTF-8 text; send it again as UTF-8"


def _is_text(text: str) -> bool:
    """Whether ``text`` decoded cleanly: undecodable input bytes arrive as lone surrogates,
    which no model API accepts and no tokenizer counts."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _options(**kw: Any) -> _Options:
    root = kw["root"].resolve()
    return _Options(
        root=root,
        db=kw["db"],
        profile=kw["profile"],
        context_size=kw["context_size"],
        stream=kw["stream"],
        shell=kw["shell"],
        max_tool_rounds=kw["max_tool_rounds"],
        compact_threshold=kw["compact_threshold"],
        as_json=kw["as_json"],
    )


@click.command("chat")
@click.option("--once", "once", default=None, metavar="TEXT", help="Answer one message and exit.")
@_shared
@model_options
def chat_command(model_opts: ModelSpec, once: str | None, resume_id: str | None, **kw: Any) -> None:
    """Talk with the agent: one message per line, /help for the commands, /exit or end of
    input to stop."""
    _run(model_opts, _options(**kw), resume_id, once)


@click.command("run")
@click.option("--once", "once", required=True, metavar="TEXT", help="The message to answer.")
@_shared
@model_options
def run_command(model_opts: ModelSpec, once: str, resume_id: str | None, **kw: Any) -> None:
    """Answer one message in single-response mode and exit."""
    _run(model_opts, _options(**kw), resume_id, once)
