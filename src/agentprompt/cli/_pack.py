"""``agentprompt pack``: start a bridge session, or print the current prompt of the one in
progress (never advancing it), split, copied, written to a file or in an API's wire form;
then a size report on stderr."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from agentprompt.bridge import BridgePrompt, BridgeState
from agentprompt.bridge.sizes import SizeReport
from agentprompt.bridge.split import DEFAULT_SPLIT_CHARS
from agentprompt.bridge.text import LANGS
from agentprompt.cli._bridge import deliver, part_command, print_part
from agentprompt.cli._options import (
    chat_option,
    exclude_option,
    include_generated_option,
    include_option,
    make_format_option,
    prompt_budget_option,
    root_option,
    verbose_option,
)
from agentprompt.cli._output import err_console, print_json
from agentprompt.cli._tree import left_out_counts, left_out_lines
from agentprompt.errors import UsageError
from agentprompt.repo.discovery import Discovery, Exclusion, left_out_kind
from agentprompt.services import (
    BridgeSessions,
    PromptChoices,
    StartRequest,
    Workspace,
    parse_budget,
)
from agentprompt.wire import to_anthropic, to_openai

__all__ = ["pack_command", "write_output"]


def write_output(target: Path, prompt: BridgePrompt) -> None:
    """Write the whole prompt to ``target`` piece by piece (a whole repository's prompt is
    never held whole); a :class:`UsageError` naming it when it cannot be written, and no
    file left half written."""
    if target.is_dir():
        raise UsageError(f"--output {target} is a directory; give a file name")
    try:
        with target.open("w", encoding="utf-8", newline="") as stream:
            prompt.write(stream)
    except OSError as exc:
        _remove(target)
        raise UsageError(
            f"cannot write --output {target}: {exc.strerror or exc}; give a writable file"
        ) from None
    except BaseException:
        _remove(target)
        raise


def _remove(target: Path) -> None:
    """Remove a half-written ``target`` (nothing when it was never made)."""
    with contextlib.suppress(OSError):
        target.unlink(missing_ok=True)


def _say(text: str) -> None:
    err_console.print(text, markup=False, highlight=False)


@click.command("pack")
@click.argument("paths", nargs=-1)
@root_option
@click.option(
    "--task",
    help="Start a new session with this task (its PATHS, mode, language and limits are kept "
    "for its later prompts); without it, print the current prompt of the session in progress.",
)
@click.option(
    "--new",
    is_flag=True,
    help="With --task: replace the session in progress (without it, --task refuses once a "
    "reply has been applied in the session).",
)
@click.option(
    "--commit-rounds",
    is_flag=True,
    help="With --task: commit the files each applied round changes, and only them (one git "
    "commit per round, as apply --commit does).",
)
@click.option(
    "--full",
    is_flag=True,
    help="Send everything again (system part, task, structure, files in context), for a new "
    "chat; without it, prompts after the first send only what is new.",
)
@click.option("--mode", type=click.Choice(["browse", "edit"]), help="Browse or edit mode.")
@click.option("--lang", type=click.Choice(LANGS), help="The prompt's language (default: locale).")
@prompt_budget_option
@chat_option
@include_option
@exclude_option
@click.option(
    "--split-chars",
    type=click.IntRange(min=1),
    metavar="N",
    help=f"Split into parts of at most N characters, header included (default "
    f"{DEFAULT_SPLIT_CHARS}; with a token budget and no split limit, one part).",
)
@click.option(
    "--split-tokens",
    type=click.IntRange(min=1),
    metavar="N",
    help="Split into parts of at most N tokens, header included.",
)
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="Write the whole prompt, unsplit, to FILE (to attach it to the chat) instead of "
    "printing it.",
)
@click.option(
    "--warn-tokens",
    type=click.IntRange(min=1),
    metavar="N",
    help="Warn when the prompt is over N tokens (default 100000, or AGENTPROMPT_WARN_TOKENS); "
    "kept for the session.",
)
@click.option(
    "--restate-tokens",
    type=click.IntRange(min=0),
    metavar="N",
    help="State the task again in a follow-up once the chat has read N tokens since it last "
    "read it (default 12000; 0: every follow-up); else the follow-up refers to it in one "
    "line. Kept for the session.",
)
@click.option("--copy", is_flag=True, help="Copy the part (default 1) to the clipboard.")
@click.option("--part", type=int, metavar="K", help="Print (or with --copy, copy) only part K.")
@make_format_option(
    "Pasteable text, JSON, or OpenAI/Anthropic messages.",
    choices=("text", "json", "openai", "anthropic"),
)
@include_generated_option
@click.option(
    "--report",
    "report_sections",
    is_flag=True,
    help="Also report the prompt's tokens per section (the frame, then each file shown in "
    "full or as a summary) and what the budget cut, on stderr (in json: sections, cuts).",
)
@verbose_option
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
def pack_command(
    paths: tuple[str, ...],
    root: Path,
    task: str | None,
    new: bool,
    commit_rounds: bool,
    full: bool,
    mode: str | None,
    lang: str | None,
    max_tokens: str | None,
    chat: str | None,
    includes: tuple[str, ...],
    excludes: tuple[str, ...],
    split_chars: int | None,
    split_tokens: int | None,
    output: Path | None,
    warn_tokens: int | None,
    restate_tokens: int | None,
    copy: bool,
    part: int | None,
    fmt: str,
    include_generated: bool,
    report_sections: bool,
    verbose: bool,
    as_json: bool,
) -> None:
    """Pack the repository into a prompt for a web chat model (PATHS: files or folders to
    show in full, in edit mode).

    The first prompt of a session holds everything; after a reply is applied, each prompt
    holds only what the chat does not have yet (results of failed changes, files asked for,
    files changed on disk, your notes and commands' output, the task again when the chat may
    have lost it). --full sends everything again, for a new chat.

    A session's prompts fit a token budget: by default one paste into the common web
    chats (see --max-tokens), or --chat NAME's; --max-tokens none sends the whole
    repository.

    On a session in progress, --lang, --max-tokens, --chat, --split-chars/--split-tokens,
    --warn-tokens, --restate-tokens and --include-generated given here are stored for the
    session: the next apply's prompt uses them too. The round does not move, so running
    pack twice prints the same prompt."""
    sessions = BridgeSessions(Workspace(root))
    if split_chars is not None and split_tokens is not None:
        raise UsageError("give --split-chars or --split-tokens, not both")
    if as_json:
        fmt = "json"
    if fmt != "text" and (copy or part is not None):
        raise UsageError(
            f"--copy and --part take one part of the pasteable text; --format {fmt} prints "
            "the whole prompt (its parts included in json); drop one of them"
        )
    if output is not None and (copy or part is not None or fmt != "text"):
        raise UsageError(
            "--output writes the whole pasteable prompt to a file; drop --copy, --part and "
            "--format with it"
        )
    choices = PromptChoices(
        lang=lang,
        max_tokens=parse_budget(max_tokens) if max_tokens is not None else None,
        chat=chat,
        split_chars=split_chars,
        split_tokens=split_tokens,
        warn_tokens=warn_tokens,
        include_generated=include_generated,
        restate_tokens=restate_tokens,
    )

    def before_save(prompt: BridgePrompt, _state: object) -> None:
        # A part out of range, or a file that cannot be written, changes nothing.
        if part is not None and not 1 <= part <= prompt.part_count:
            raise UsageError(
                f"--part {part} is out of range: this prompt has {prompt.part_count} part(s)"
            )
        if output is not None:
            write_output(output, prompt)

    # Written to a file, the prompt is not split: it is then never held whole.
    split = output is None
    if task is not None:
        request = StartRequest(
            task=task,
            paths=paths,
            mode=mode,
            includes=includes,
            excludes=excludes,
            new=new,
            commit_rounds=commit_rounds,
            choices=choices,
        )
        packed = sessions.start(
            request, report=report_sections, split=split, before_save=before_save
        )
    else:
        if commit_rounds:
            raise UsageError(
                "--commit-rounds is kept for a new session; give --task too (or use "
                "agentprompt apply --commit to commit one round)"
            )
        if paths or mode or new or includes or excludes:
            raise UsageError(
                "PATHS, --mode, --new, --include and --exclude start a new session; give "
                "--task too (without --task, pack prints the current prompt of the session "
                "in progress)"
            )
        packed = sessions.current(
            choices, full=full, report=report_sections, split=split, before_save=before_save
        )
    prompt = packed.prompt
    report = packed.size
    if fmt == "json":
        print_json({**prompt.to_json(), "size": report.to_json()})
    elif fmt == "openai":
        print_json(to_openai(prompt.messages()))
    elif fmt == "anthropic":
        print_json(to_anthropic(prompt.messages()))
    elif output is not None:
        _say(f"The whole prompt ({prompt.tokens} tokens) is in {output}: attach it to the chat.")
    elif copy or part is not None:
        deliver(prompt, root, part=part or 1, copy=copy)
    else:
        for text in prompt.each_part():
            print_part(text)
        if prompt.part_count > 1:
            _say(
                f"The prompt is in {prompt.part_count} parts, printed one after the other; "
                f"paste them in order, one at a time: {part_command(root, 1)}, then --part "
                "2... (or write it whole to a file to attach with --output FILE)"
            )
    _summary(packed.state, prompt, packed.view.discovery, size_lines(report), verbose=verbose)
    for line in budget_lines(prompt, sections=report_sections):
        _say(line)


def size_lines(report: SizeReport) -> list[str]:
    """A prompt's size as lines for people: tokens and parts, the largest files, and past
    the threshold, how to start again leaving them out."""
    out = [f"{report.tokens:,} tokens in {report.parts} part(s)"]
    if report.largest:
        named = ", ".join(f"{p} ({n:,})" for p, n in report.largest)
        out.append(f"largest files: {named}")
    if report.over:
        advice = " ".join(f"--exclude {_quote(p)}" for p in report.exclude)
        leave = (
            f", or leave out the largest folders the task does not need: "
            f"agentprompt pack --new --task ... {advice}"
            if advice
            else ""
        )
        out.append(
            f"warning: the prompt is over {report.threshold:,} tokens; a web chat may refuse or "
            f"forget part of it. To send less, give it a token budget (--max-tokens N keeps "
            f"what the task needs most){leave}"
        )
    return out


def _quote(pattern: str) -> str:
    return f"'{pattern}'" if any(c in pattern for c in " *?[]!#$&;|<>()") else pattern


CUTS_SHOWN = 5
"""How many of the budget's cuts a pack names without ``--report`` (the largest ones)."""


def kept_line(prompt: BridgePrompt) -> str:
    """What a prompt the budget cut keeps, in one line: files in full, summaries (the
    best ranked named), definitions in full, and how many files are left at their path."""
    kept = []
    if prompt.shown_in_full:
        kept.append(f"{len(prompt.shown_in_full):,} file(s) in full")
    if prompt.summarised:
        best = ", ".join(prompt.summarised[:CUTS_SHOWN])
        more = ", ..." if len(prompt.summarised) > CUTS_SHOWN else ""
        kept.append(f"{len(prompt.summarised):,} summaries ({best}{more})")
    if prompt.relevant_code:
        kept.append(f"{len(prompt.relevant_code)} relevant definition(s) in full")
    paths = sum(1 for _p, level in prompt.left_out if level == "path")
    rest = f"; {paths:,} file(s) by path only" if paths else ""
    return (
        f"kept to fit --max-tokens, best ranked first: {', '.join(kept) or 'paths only'}{rest} "
        f"(--report lists every cut)"
    )


def budget_lines(prompt: BridgePrompt, *, sections: bool) -> list[str]:
    """What the budget kept when it cut something (one line; every cut with
    ``sections``) and, with ``sections``, the tokens of each of the prompt's sections,
    largest first, as lines for people."""
    if not prompt.left_out and not sections:
        lines: list[str] = []
    elif sections:
        lines = [
            f"cut to fit --max-tokens: {c.section} {c.detail} ({c.tokens_before:,} -> "
            f"{c.tokens_after:,} tokens)"
            for c in prompt.cuts
        ]
    else:
        lines = [kept_line(prompt)]
    if sections and prompt.sections:
        lines.append(f"tokens per section ({len(prompt.sections)}, largest first):")
        ranked = sorted(prompt.sections, key=lambda s: (-s.tokens, s.id))
        lines += [f"  {s.tokens:>9,}  {s.id}" for s in ranked]
    return lines


def _left_out(discovery: Discovery) -> tuple[Exclusion, ...]:
    """The files discovery left out for what they hold: generated, binary or data."""
    return tuple(e for e in discovery.excluded if left_out_kind(e.reason) is not None)


def _summary(
    state: BridgeState,
    prompt: BridgePrompt,
    discovery: Discovery,
    lines: list[str],
    *,
    verbose: bool,
) -> None:
    kind = "follow-up" if prompt.followup else "continuation" if prompt.continuation else "whole"
    head = f"{state.mode} mode, {kind} prompt, {lines[0]} ({prompt.tokenizer})"
    left_out = _left_out(discovery)
    if left_out:
        head += f"; left out: {left_out_counts(left_out, hint=True)}"
        if not verbose:
            head += "; --verbose lists them"
    _say(head)
    for line in lines[1:]:
        _say(line)
    if verbose:
        for line in left_out_lines(left_out, verbose=True):
            _say(line)
