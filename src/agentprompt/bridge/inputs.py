"""What the user adds to a bridge session's next prompt besides files: a note in their own
words, and a command's output (a test run, say), the way a chat user types a remark or
pastes what their terminal printed.

Each is held in the session's state until a prompt holding it is made, and stays there
(so printing that prompt again gives the same text) until a reply to it comes back.

A command runs in the repository root without a shell (unless the user runs one), with a
time limit after which it is killed; its output (stdout and stderr together) is trimmed to
a token budget, keeping its head and its tail, and screened for secrets line by line
before it is kept or shown.

Errors (each a :class:`~agentprompt.errors.UsageError` naming the input at fault)::

    UsageError
    ├── BadNote             an empty, whitespace-only or binary note
    └── CommandNotStarted   a command that cannot be started (not found, not executable)
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentprompt.bridge._screening import screen_prompt_texts
from agentprompt.bridge.text import render_prompt
from agentprompt.errors import UsageError, literal
from agentprompt.tokens import shared_counter

__all__ = [
    "DEFAULT_OUTPUT_TOKENS",
    "DEFAULT_RUN_TIMEOUT",
    "BadNote",
    "CommandNotStarted",
    "CommandRun",
    "UserNote",
    "check_note",
    "run_command",
    "trim_output",
]

DEFAULT_RUN_TIMEOUT = 120.0
"""Seconds a command may run before it is killed: a test suite of a few minutes' work
fits, a command waiting for input (or a server left running) does not hold the session."""

DEFAULT_OUTPUT_TOKENS = 4000
"""Tokens of a command's output a prompt shows at most: the head and the tail of a long
test run (its first failure, its summary) in about a tenth of a small chat's window."""

_READ_BYTES = 1 << 20
"""Bytes read from each end of a command's output (a runaway command may print gigabytes;
only the head and the tail are ever shown)."""

_OUTPUT_LABEL = "command output"
"""The name the output is screened under (and its findings name)."""


class BadNote(UsageError):
    """A note that says nothing (empty, only whitespace) or is not text (NUL bytes, bytes
    that are not UTF-8)."""

    def __init__(self, problem: str) -> None:
        super().__init__(
            "{note} " + problem, input="note", fix="give the words to add to the next prompt"
        )


class CommandNotStarted(UsageError):
    """A command that could not be started at all (one that ran and failed is no error:
    its output and status are what the next prompt shows)."""

    def __init__(self, command: str, reason: str) -> None:
        self.command = command
        """The program that could not be started."""
        super().__init__(
            f"{{command}} {literal(command)} cannot be started ({reason})",
            input="command",
            fix="check the program's name and that it is installed (to use shell syntax, run "
            "a shell: sh -c 'CMD')",
        )


@dataclass(frozen=True, kw_only=True)
class UserNote:
    """The user's own words for the model, for the next prompt."""

    text: str
    """The note as the user gave it (checked by :func:`check_note`)."""
    in_prompt: bool = False
    """A prompt holding it was made: it leaves the session once a reply to that comes back."""

    def to_json(self) -> dict[str, Any]:
        """The note as JSON-ready data (what the store keeps)."""
        return {"text": self.text, "in_prompt": self.in_prompt}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> UserNote:
        """The note stored as ``data``."""
        return cls(text=str(data["text"]), in_prompt=bool(data.get("in_prompt", False)))


@dataclass(frozen=True, kw_only=True)
class CommandRun:
    """A command the user ran in the repository, and what the next prompt shows of it."""

    command: str
    """The command line as run (its arguments quoted as a shell would need), or a line
    saying it was held back for holding a likely secret."""
    status: int | None
    """Its exit status (negative: killed by that signal); None when it was stopped at the
    time limit."""
    timeout: float
    """The time limit it ran under, in seconds."""
    output: str
    """What it printed, stdout and stderr together, trimmed to the token budget and
    screened (lines that look like secrets replaced by a line saying so)."""
    cut_lines: int = 0
    """Lines cut from the middle to fit the budget."""
    cut_tokens: int = 0
    """The tokens those lines held."""
    held: tuple[str, ...] = ()
    """The kinds of likely secret held back from the output."""
    seconds: float = 0.0
    """How long it ran."""
    in_prompt: bool = False
    """A prompt holding it was made: it leaves the session once a reply to that comes back."""

    @property
    def timed_out(self) -> bool:
        """It was stopped at the time limit."""
        return self.status is None

    def to_json(self) -> dict[str, Any]:
        """The run as JSON-ready data (what the store keeps)."""
        return {
            "command": self.command,
            "status": self.status,
            "timed_out": self.timed_out,
            "timeout": self.timeout,
            "output": self.output,
            "cut_lines": self.cut_lines,
            "cut_tokens": self.cut_tokens,
            "held": list(self.held),
            "seconds": self.seconds,
            "in_prompt": self.in_prompt,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CommandRun:
        """The run stored as ``data``."""
        status = data.get("status")
        return cls(
            command=str(data["command"]),
            status=None if status is None else int(status),
            timeout=float(data.get("timeout", DEFAULT_RUN_TIMEOUT)),
            output=str(data.get("output", "")),
            cut_lines=int(data.get("cut_lines", 0)),
            cut_tokens=int(data.get("cut_tokens", 0)),
            held=tuple(str(k) for k in data.get("held", ())),
            seconds=float(data.get("seconds", 0.0)),
            in_prompt=bool(data.get("in_prompt", False)),
        )


def check_note(text: str) -> str:
    """``text`` as a note, with its surrounding blank lines removed; :class:`BadNote` when
    it is empty, only whitespace, or not text."""
    if "\0" in text:
        raise BadNote("holds NUL bytes: it is binary, not text")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise BadNote("is not UTF-8 text") from None
    if not text.strip():
        raise BadNote("is empty" if not text else "holds only whitespace")
    return text.strip("\r\n").rstrip()


def run_command(
    root: Path,
    argv: Sequence[str],
    *,
    timeout: float = DEFAULT_RUN_TIMEOUT,
    max_tokens: int = DEFAULT_OUTPUT_TOKENS,
    lang: str = "en",
    cache_path: Path | None = None,
) -> CommandRun:
    """Run ``argv`` in ``root`` (no shell) with stdin closed, and what the next prompt shows
    of it: the exit status, or that it was killed at ``timeout`` seconds, and its output
    trimmed to ``max_tokens`` (:func:`trim_output`) and screened for secrets (markers
    worded in ``lang``). A command that cannot be started is :class:`CommandNotStarted`."""
    if not argv or not argv[0]:
        raise UsageError("{command} is empty", input="command", fix="give the command to run")
    started = time.monotonic()
    with tempfile.TemporaryFile() as sink:
        try:
            process = subprocess.Popen(
                list(argv),
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except (FileNotFoundError, PermissionError, NotADirectoryError) as exc:
            raise CommandNotStarted(argv[0], exc.strerror or type(exc).__name__) from None
        except OSError as exc:
            raise CommandNotStarted(argv[0], exc.strerror or str(exc)) from None
        status: int | None
        try:
            status = process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            status = None
        seconds = round(time.monotonic() - started, 2)
        raw = _ends(sink)
    # Bytes that are not text (a binary written to the terminal) show as U+FFFD.
    text = raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\0", "\ufffd")
    output, held = _screened(text, lang, root, cache_path)
    kept, lines, tokens = trim_output(output, max_tokens, lang=lang, root=root)
    command, command_held = _screened_command(shlex.join(argv), lang, root, cache_path)
    return CommandRun(
        command=command,
        status=status,
        timeout=timeout,
        output=kept,
        cut_lines=lines,
        cut_tokens=tokens,
        held=tuple(dict.fromkeys((*command_held, *held))),
        seconds=seconds,
    )


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the command and whatever it started (it leads its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (AttributeError, OSError):  # no process groups (Windows), or already gone
        process.kill()
    process.wait()


def _ends(sink: Any) -> bytes:
    """The output's first and last :data:`_READ_BYTES` (all of it when shorter), with the
    bytes between left unread; the cut falls at line breaks."""
    size = sink.seek(0, os.SEEK_END)
    sink.seek(0)
    if size <= 2 * _READ_BYTES:
        data: bytes = sink.read()
        return data
    head: bytes = sink.read(_READ_BYTES)
    sink.seek(size - _READ_BYTES)
    tail: bytes = sink.read()
    head = head[: head.rfind(b"\n") + 1] or head
    tail = tail[tail.find(b"\n") + 1 :] or tail
    return head + b"\n" + tail


def _screened(
    text: str, lang: str, root: Path | None, cache_path: Path | None
) -> tuple[str, tuple[str, ...]]:
    """``text`` with each line that looks like a secret replaced by a line saying so, and
    the kinds found. A private key (whose body lines a line scan does not flag), or a
    secret still found once the lines are replaced, holds back the whole output."""
    findings = _findings(text, cache_path)
    if not findings:
        return text, ()
    kinds = tuple(dict.fromkeys(kind for _, kind in findings))
    lines = text.split("\n")
    if not any("private key" in kind.lower() for kind in kinds):
        for number, kind in findings:
            if 0 < number <= len(lines):
                lines[number - 1] = render_prompt("run_held", lang, root, kind=kind)
        redacted = "\n".join(lines)
        if not _findings(redacted, cache_path):
            return redacted, kinds
    return render_prompt("run_withheld", lang, root, kinds=", ".join(kinds)), kinds


def _findings(text: str, cache_path: Path | None) -> list[tuple[int, str]]:
    """Where the bridge's secret screening finds likely secrets in ``text`` (line, kind)."""
    screen = screen_prompt_texts([(_OUTPUT_LABEL, text)], workers=1, cache_path=cache_path)
    return [(f.line, f.kind) for f in screen.findings]


def _screened_command(
    command: str, lang: str, root: Path | None, cache_path: Path | None
) -> tuple[str, tuple[str, ...]]:
    """The command line, or the line saying it was held back when it holds a secret."""
    findings = _findings(command, cache_path)
    if not findings:
        return command, ()
    kinds = tuple(dict.fromkeys(kind for _, kind in findings))
    return render_prompt("run_command_held", lang, root, kinds=", ".join(kinds)), kinds


def trim_output(
    text: str, max_tokens: int, *, lang: str = "en", root: Path | None = None
) -> tuple[str, int, int]:
    """``text`` cut to about ``max_tokens`` tokens (counted by the project's token counter)
    by whole lines from the middle: a third of the budget for the head, the rest for the
    tail (where a test run's failures and summary are), and a line saying how many lines
    and tokens were cut. Returns the text, the lines cut and the tokens they held."""
    counter = shared_counter()
    if counter.count(text) <= max_tokens:
        return text, 0, 0
    lines = text.split("\n")
    sizes = [counter.count(line + "\n") for line in lines]
    head_budget = max_tokens // 3
    tail_budget = max_tokens - head_budget
    head = 0
    used = 0
    while head < len(lines) and used + sizes[head] <= head_budget:
        used += sizes[head]
        head += 1
    tail = len(lines)
    used = 0
    while tail > head and used + sizes[tail - 1] <= tail_budget:
        used += sizes[tail - 1]
        tail -= 1
    cut = tail - head
    tokens = sum(sizes[head:tail])
    marker = render_prompt("run_cut", lang, root, lines=cut, tokens=tokens)
    return "\n".join([*lines[:head], marker, *lines[tail:]]), cut, tokens
