"""Other spellings of a mount's path never reach the model: NFD, letter case, ``.`` and
``..`` segments, doubled slashes, percent and HTML-entity escapes, look-alike slashes,
invisible characters, and other symbolic links to the project."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from agentprompt.workflow import Mounts
from agentprompt.workflow._aliases import HIDDEN_PATH, alias_text


@pytest.fixture
def mounts(tmp_path: Path) -> Mounts:
    base = tmp_path / "home" / "usér"
    project = base / "prøject"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("x = 1\n")
    package = tmp_path / "pkg"
    package.mkdir()
    state = project / ".agentprompt" / "state"
    state.mkdir(parents=True)
    return Mounts(project=project, package=package, state=state)


def _leaks(text: str, mounts: Mounts) -> list[str]:
    """Every spelling of a root still readable in ``text`` once normalised."""
    seen = unicodedata.normalize("NFC", text).casefold()
    found = []
    for root in (mounts.project, mounts.package, mounts.state):
        for spelling in (str(root), str(root.resolve())):
            for part in spelling.strip("/").split("/")[-2:]:
                if unicodedata.normalize("NFC", part).casefold() in seen and len(part) > 3:
                    found.append(part)
    return found


def _spellings(project: str) -> dict[str, str]:
    head, name = project.rsplit("/", 1)
    nfd = unicodedata.normalize("NFD", project)
    return {
        "dot": f"{head}/./{name}/src/app.py",
        "dotdot": f"{head}/x/../{name}/src/app.py",
        "double": project.replace("/", "//") + "/src/app.py",
        "nfd": nfd + "/src/app.py",
        "upper": project.upper() + "/SRC/APP.PY",
        "percent": project.replace("/", "%2F") + "%2Fsrc%2Fapp.py",
        "percent-all": "".join(f"%{b:02X}" for b in project.encode()) + "/src",
        "entity": project.replace("/", "&#47;") + "&#47;src",
        "entity-hex": project.replace("/", "&#x2F;") + "&sol;src",
        "fullwidth": project.replace("/", "\uff0f") + "\uff0fsrc",
        "division": project.replace("/", "\u2215") + "/src",
        "zero-width": project[:-3] + "\u200b" + project[-3:] + "/src/app.py",
        "bidi": project[:-2] + "\u202e" + project[-2:] + "/src",
        "mixed": unicodedata.normalize("NFD", f"{head}//./{name}").replace("/", "%2f", 1),
    }


@pytest.mark.parametrize(
    "kind",
    sorted(_spellings("/a/b").keys()),
)
def test_no_spelling_of_the_project_leaks(mounts: Mounts, kind: str) -> None:
    spelled = _spellings(str(mounts.project))[kind]
    text = f"please look at {spelled} and tell me"
    out = alias_text(text, mounts)
    assert not _leaks(out, mounts), out
    assert out.startswith("please look at ") and out.endswith(" and tell me")
    assert "@project" in out or HIDDEN_PATH in out


def test_clean_spellings_are_aliased_not_hidden(mounts: Mounts) -> None:
    spelled = _spellings(str(mounts.project))
    for kind in ("dot", "dotdot", "nfd", "percent", "entity", "fullwidth", "zero-width"):
        out = alias_text(f"see {spelled[kind]}", mounts)
        assert out.startswith("see @project/src"), (kind, out)


def test_another_symlink_to_the_project_is_aliased(mounts: Mounts, tmp_path: Path) -> None:
    link = tmp_path / "elsewhere"
    link.symlink_to(mounts.project)
    parent_link = tmp_path / "parent"
    parent_link.symlink_to(mounts.project.parent)
    text = f"a {link}/src/app.py b {parent_link}/{mounts.project.name}/src c {link}"
    out = alias_text(text, mounts)
    assert out == "a @project/src/app.py b @project/src c @project"
    state = alias_text(f"{link}/.agentprompt/state/run.json", mounts)
    assert state == "@state/run.json"


def test_ordinary_text_is_left_alone(mounts: Mounts) -> None:
    for text in (
        "100% done &amp; more /usr/bin/env python3",
        "a URL https://example.com/a%20b?x=1&y=2",
        "caf\u00e9 and cafe\u0301 and \uff0f alone",
        "zero\u200bwidth",
    ):
        assert alias_text(text, mounts) == text


def test_step_files_and_variables_go_through_the_same_aliasing(mounts: Mounts) -> None:
    # The layers alias every text the same way; a variable holding an encoded path too.
    variable = str(mounts.project).replace("/", "%2F")
    assert "@project" in alias_text(variable, mounts)
    assert os.sep == "/"
