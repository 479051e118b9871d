"""The options several commands share are one definition: the same flag, help and choices
in every command that has it."""

from __future__ import annotations

import click
import pytest

from agentprompt.cli.main import COMMANDS, cli


def _option(command: str, flag: str) -> click.Option:
    name, _, sub = command.partition(" ")
    found = cli.get_command(click.Context(cli), name)
    if sub:
        assert isinstance(found, click.Group)
        found = found.get_command(click.Context(found), sub)
    assert found is not None
    (option,) = [p for p in found.params if isinstance(p, click.Option) and flag in p.opts]
    return option


def _shape(option: click.Option) -> tuple[object, ...]:
    choices = getattr(option.type, "choices", None)
    return (option.name, option.help, option.metavar, option.default, choices, option.multiple)


@pytest.mark.parametrize(
    ("flag", "commands"),
    [
        ("--no-cache", ("map", "rank")),
        ("--exclude", ("tree", "select")),
        ("--format", ("commit-msg", "inspect", "workflow compose")),
    ],
)
def test_a_shared_option_is_the_same_in_every_command(flag: str, commands: tuple[str, ...]) -> None:
    assert all(name.split()[0] in COMMANDS for name in commands)
    shapes = {_shape(_option(name, flag)) for name in commands}
    assert len(shapes) == 1, shapes


def test_dialect_lists_every_dialect_and_defaults_to_detecting_it() -> None:
    option = _option("parse", "--dialect")
    assert option.default == "auto" and option.metavar == "NAME"
    assert option.help is not None and "auto, bridge, searchreplace" in option.help
