"""One vocabulary for flags and errors across the commands: --max-tokens is the budget (old
spellings kept, hidden), --include/--exclude are gitignore patterns, bad input is one
``agentprompt: error:`` line with exit 2, and the help texts list choices and name no
internal documents."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from agentprompt.cli.main import cli

from .conftest import Result

Run = Callable[..., Result]


def _helps() -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []

    def walk(command: click.Command, path: list[str], parent: click.Context | None) -> None:
        ctx = click.Context(command, info_name=path[-1], parent=parent)
        found.append((" ".join(path), command.get_help(ctx)))
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                walk(sub, [*path, name], ctx)

    walk(cli, ["agentprompt"], None)
    return found


def test_no_help_text_names_seeds_the_spec_or_issue_numbers() -> None:
    helps = _helps()
    assert len(helps) > 20
    for name, text in helps:
        assert not re.search(r"\bseeds?\b|SPEC\.md|\bissue\b|#\d", text, re.IGNORECASE), name


def test_max_tokens_is_the_budget_and_old_spellings_are_hidden_aliases(
    run: Run, repo: Path
) -> None:
    helps = dict(_helps())
    for command in ("agentprompt map", "agentprompt pack", "agentprompt select"):
        assert "--max-tokens N" in helps[command], command
    assert "--tokens" not in helps["agentprompt map"]
    assert "--show-tokens" in helps["agentprompt tree"]
    assert "--tokens " not in helps["agentprompt tree"]
    new = run("map", "--root", str(repo), "--max-tokens", "200", "--no-cache")
    old = run("map", "--root", str(repo), "--tokens", "200", "--no-cache")
    assert new.code == old.code == 0
    assert new.out == old.out and "of 200 tokens" in old.err
    clash = run("map", "--root", str(repo), "--tokens", "200", "--max-tokens", "300")
    assert clash.code == 2 and "give the budget once" in clash.err
    assert (
        run("tree", "--root", str(repo), "--tokens").out
        == run("tree", "--root", str(repo), "--show-tokens").out
    )


def test_include_and_exclude_are_gitignore_patterns_in_every_command() -> None:
    helps = dict(_helps())
    for command in ("agentprompt pack", "agentprompt select", "agentprompt tree"):
        text = " ".join(helps[command].split())
        assert "--exclude PATTERN" in text and "gitignore" in text, command
    for command in ("agentprompt pack", "agentprompt select"):
        assert "--include PATTERN" in helps[command], command


def test_choices_are_listed_in_help() -> None:
    helps = {k: " ".join(v.split()) for k, v in _helps()}
    assert "auto, bridge, searchreplace" in helps["agentprompt apply"]
    assert "auto, bridge, searchreplace" in helps["agentprompt parse"]
    assert "One of: agent, ally" in helps["agentprompt inspect"]
    assert "[agent|ally]" in helps["agentprompt chat"]


@pytest.mark.parametrize(
    "args",
    [
        ("tree",),
        ("map",),
        ("rank", "--task", "t"),
        ("pack", "--task", "t"),
        ("bridge", "status"),
        ("bridge", "drop", "a.py"),
        ("bridge", "add", "a.py"),
        ("bridge", "reset"),
        ("apply", "-"),
        ("inspect", "--profile", "agent"),
        ("snippets",),
        ("tiers",),
        ("commit-msg",),
        ("select", "--task", "t"),
        ("ui",),
    ],
)
def test_a_bad_root_is_one_error_line_with_exit_2(
    run: Run, tmp_path: Path, args: tuple[str, ...]
) -> None:
    missing = tmp_path / "nope"
    result = run(*args, "--root", str(missing))
    assert result.code == 2, result.out + result.err
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("agentprompt: error: ") and str(missing) in lines[0]
    assert "Usage:" not in result.err and "Try " not in result.err


def test_an_unknown_option_is_one_error_line(run: Run) -> None:
    result = run("pack", "--qqq")
    assert result.code == 2
    assert result.err.strip() == "agentprompt: error: No such option '--qqq'."
