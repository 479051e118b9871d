"""A prompt that shows every file whole parses nothing: its tree carries no notes (the model
reads each file's text) and no summary is made, so a first whole-repository pack skips the
symbol extraction that only notes and summaries need."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import pytest

from agentprompt.bridge import pack_repository, view
from agentprompt.bridge.pack import session_view, shows_every_file_whole, starting_state
from agentprompt.bridge.state import BridgeState
from agentprompt.bridge.view import RepoView
from agentprompt.cli.main import main

TREE_WITH_NOTES = "  utils.ts (exports:"


def _no_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> object:
        raise AssertionError("the view parsed files")

    monkeypatch.setattr(view, "extract_repository", refuse)


def _tree(text: str) -> str:
    start = text.index("## File structure")
    return text[start : text.index("\n\n", start)]


def test_a_whole_repository_pack_parses_nothing_and_its_tree_has_no_notes(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_parse(monkeypatch)
    prompt = pack_repository(example, "Review it")
    tree = _tree(prompt.text)
    assert "src/\n  index.ts\n  utils.ts" in tree and "(" not in tree
    assert set(prompt.shown_in_full) >= {"src/index.ts", "src/utils.ts", "scripts/report.py"}


def test_a_signatures_pack_still_makes_notes_and_summaries(example: Path) -> None:
    prompt = pack_repository(example, "Review it", signatures=True)
    assert TREE_WITH_NOTES in _tree(prompt.text)


def test_only_edit_mode_over_every_file_without_a_budget_is_whole(example: Path) -> None:
    bare = RepoView(discovery=view.view_repository(example, summaries=False).discovery)
    every = bare.paths
    edit = BridgeState(task="t", mode="edit", files=every)
    assert shows_every_file_whole(edit, bare)
    assert not shows_every_file_whole(BridgeState(task="t", mode="browse", files=every), bare)
    assert not shows_every_file_whole(BridgeState(task="t", mode="edit", files=every[:-1]), bare)
    budget = BridgeState(task="t", mode="edit", files=every, max_tokens=10_000)
    assert not shows_every_file_whole(budget, bare)


def test_a_session_over_every_file_parses_nothing_in_later_rounds(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    every = view.view_repository(example, summaries=False).paths
    state = BridgeState(task="t", mode="edit", files=every)
    _no_parse(monkeypatch)
    assert session_view(example, state).notes == {}


def test_pack_of_every_file_in_edit_mode_from_the_command_line(
    example: Path, clipboard: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["pack", ".", "--root", str(example), "--task", "Review it", "--lang", "en"]
    assert main([*args, "--max-tokens", "none"]) in (0, None)
    assert TREE_WITH_NOTES not in _tree(capsys.readouterr().out)
    # With a budget a file may be cut to its summary: the view is parsed, notes and all.
    assert main([*args, "--new", "--max-tokens", "50000"]) in (0, None)
    assert TREE_WITH_NOTES in _tree(capsys.readouterr().out)


def test_a_new_session_resolves_its_files_and_parses_only_when_a_note_is_needed(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def make(mode: str) -> Callable[[tuple[str, ...]], BridgeState]:
        return partial(BridgeState.starting, "t", mode=mode, lang="en")

    browse, view = starting_state(example, ["src"], make("browse"))
    assert browse.focus == ("src/index.ts", "src/utils.ts") and view.notes
    _no_parse(monkeypatch)
    edit, bare = starting_state(example, ["."], make("edit"))
    assert set(edit.files) == set(bare.paths) and bare.notes == {}
    with pytest.raises(AssertionError, match="parsed"):
        starting_state(example, ["src"], make("edit"))  # the others need their notes
