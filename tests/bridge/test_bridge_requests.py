"""File requests that name folders, and the reasons a file cannot be shown in the prompt's
language."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.bridge._requests import FOLDER_CAP
from agentprompt.bridge.context import view_repository
from agentprompt.bridge.pack import build_prompt
from agentprompt.bridge.rounds import advance
from agentprompt.bridge.state import BridgeState
from agentprompt.edits.actions import SwitchMode
from agentprompt.edits.apply import ApplyReport


def _advance(root: Path, report: ApplyReport, lang: str = "en") -> BridgeState:
    return advance(BridgeState(task="t", lang=lang), report, view_repository(root), root)[0]


@pytest.mark.parametrize("folder", ["src/", "src", "./src/"])
def test_a_requested_folder_adds_the_files_under_it(example: Path, folder: str) -> None:
    state = _advance(example, ApplyReport(requests=(folder,)))
    assert (state.mode, state.files, state.missing) == (
        "edit",
        ("src/index.ts", "src/utils.ts"),
        (),
    )


@pytest.mark.parametrize("root", [".", "./", "/"])
def test_a_request_for_the_root_adds_every_file(example: Path, root: str) -> None:
    state = _advance(example, ApplyReport(requests=(root,)))
    assert state.files == view_repository(example).paths
    assert state.missing == ()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_huge_folder_adds_the_first_files_and_says_how_to_ask_for_the_rest(
    example: Path, lang: str
) -> None:
    (example / "pkg").mkdir()
    for n in range(FOLDER_CAP + 5):
        (example / "pkg" / f"m{n:02}.py").write_text(f"X{n} = {n}\n")
    state = _advance(example, ApplyReport(requests=("pkg/",)), lang)
    assert state.files == tuple(f"pkg/m{n:02}.py" for n in range(FOLDER_CAP))
    [(path, why)] = state.missing
    assert path == "pkg/"
    assert all(str(n) in why for n in (FOLDER_CAP + 5, FOLDER_CAP, 5))
    prompt = build_prompt(example, state).text
    assert f"- pkg/: {why}" in prompt


def test_a_switch_to_edit_naming_a_folder_takes_its_files(example: Path) -> None:
    switch = SwitchMode(dialect="bridge", mode="edit", paths=("scripts/",))
    assert _advance(example, ApplyReport(switch_mode=switch)).files == ("scripts/report.py",)


def test_a_folder_with_nothing_to_show_is_reported(example: Path) -> None:
    (example / "assets").mkdir()
    (example / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")
    state = _advance(example, ApplyReport(requests=("assets/",)))
    assert state.files == ()
    assert state.missing == (("assets/", "a folder with no file that can be shown"),)


REQUESTS = ("src/missing.ts", "../outside.txt", ".git/config", "secret.txt", "assets/")


def _unshowable(example: Path) -> None:
    (example / ".gitignore").write_text("secret.txt\n")
    (example / "secret.txt").write_text("x\n")
    (example / "assets").mkdir()
    (example / "assets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0")


def test_reasons_in_english_keep_discoverys_words(example: Path) -> None:
    _unshowable(example)
    reasons = dict(_advance(example, ApplyReport(requests=REQUESTS)).missing)
    assert reasons["src/missing.ts"] == "does not exist"
    assert reasons["../outside.txt"] == "outside the root"
    assert reasons[".git/config"] == "inside .git, git's own data (never listed)"
    assert reasons["secret.txt"].startswith("excluded by") or "ignored" in reasons["secret.txt"]


def test_reasons_in_japanese_prompts_are_japanese(example: Path) -> None:
    _unshowable(example)
    state = _advance(example, ApplyReport(requests=REQUESTS), "ja")
    reasons = dict(state.missing)
    assert reasons == {
        "src/missing.ts": "存在しません",
        "../outside.txt": "プロジェクトのルートの外にあります",
        ".git/config": "git の内部データ (.git) は提供しません",
        "secret.txt": f"除外されています ({reasons['secret.txt'][len('除外されています (') : -1]})",
        "assets/": "フォルダですが、提供できるファイルがその中にありません",
    }
    prompt = build_prompt(example, state).text
    section = prompt[prompt.index("## 提供できないファイル") :]
    for english in ("does not exist", "outside the root", "a directory", "git's own data"):
        assert english not in section
