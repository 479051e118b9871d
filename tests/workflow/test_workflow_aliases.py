"""Path aliasing: no real mount path reaches the model; model paths are de-aliased safely."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentprompt.prompts.loader import PromptLibrary
from agentprompt.workflow import (
    ComposeInput,
    Mounts,
    UnsafeModelPath,
    compose_workflow,
    dealias,
)
from agentprompt.workflow._aliases import HIDDEN_PATH, alias_path, alias_text, mount_overlap
from agentprompt.workflow._graph import Artifact

MakeInput = Callable[..., ComposeInput]

NESTED = Mounts(
    project=Path("/x/proj"), package=Path("/x/proj2"), state=Path("/x/proj/.agentprompt/state")
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("open /x/proj/src/app.py", "open @project/src/app.py"),
        ("the graph /x/proj2/workflow.graph.json", "the graph @pkg/workflow.graph.json"),
        ("state in /x/proj/.agentprompt/state/run.json", "state in @state/run.json"),
        ("(/x/proj) and '/x/proj2'.", "(@project) and '@pkg'."),
        ("root=/x/proj/", "root=@project/"),
        ("/x/proj3/other is hidden", "[hidden path] is hidden"),
        ("/x/proj.bak is another file", "[hidden path] is another file"),
        ("at /x/proj.", "at @project."),
        ("doubled /x//proj/src and ///x/proj2//a", "doubled @project/src and @pkg//a"),
        ("prefix glued: a/x/proj/b", "prefix glued: [hidden path]"),
        ("two: /x/proj-c /x/proj/ok", "two: [hidden path] @project/ok"),
    ],
)
def test_alias_text_replaces_each_root_with_its_mount(text: str, expected: str) -> None:
    assert alias_text(text, NESTED) == expected


def test_alias_path_names_the_innermost_mount() -> None:
    assert alias_path("/x/proj/.agentprompt/state/run.json", NESTED) == "@state/run.json"
    assert alias_path(Path("/x/proj"), NESTED) == "@project"


def test_alias_path_refuses_a_path_outside_every_mount() -> None:
    with pytest.raises(UnsafeModelPath, match="inside no mount"):
        alias_path("/etc/passwd", NESTED)


@pytest.fixture
def mounts(tmp_path: Path) -> Mounts:
    project = tmp_path / "proj"
    package = tmp_path / "proj2"
    for d in (project / "src", package / "steps", project / ".state"):
        d.mkdir(parents=True)
    return Mounts(project=project, package=package, state=project / ".state")


def test_dealias_resolves_each_mount(mounts: Mounts) -> None:
    assert dealias("@project/src/app.py", mounts) == mounts.project / "src" / "app.py"
    assert dealias("@pkg/steps/01.md", mounts) == mounts.package / "steps" / "01.md"
    assert dealias("@state/run.json", mounts, write=True) == mounts.state / "run.json"
    assert dealias("@project", mounts) == mounts.project


def test_a_path_without_a_mount_is_relative_to_the_project(mounts: Mounts) -> None:
    assert dealias("src/./app.py", mounts) == mounts.project / "src" / "app.py"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("@project/../secret", "'..' may not appear"),
        ("@project/src/../../x", "'..' may not appear"),
        ("..\\outside", "'..' may not appear"),
        ("/etc/passwd", "absolute paths are not accepted"),
        ("@pkgx/file", "@pkgx is not a mount"),
        ("@home/file", "@home is not a mount"),
        ("", "it is empty"),
        ("a\0b", "NUL"),
        ("[hidden path]/x", "stands for a path outside every mount"),
    ],
)
def test_dealias_refuses_traversal_absolute_paths_and_unknown_mounts(
    mounts: Mounts, path: str, reason: str
) -> None:
    with pytest.raises(UnsafeModelPath, match=reason):
        dealias(path, mounts)


def test_pkg_is_write_protected(mounts: Mounts) -> None:
    assert dealias("@pkg/steps/01.md", mounts, write=False) == mounts.package / "steps" / "01.md"
    with pytest.raises(UnsafeModelPath, match="read-only"):
        dealias("@pkg/steps/01.md", mounts, write=True)


def test_a_package_inside_the_project_is_write_protected_through_project_too(
    tmp_path: Path,
) -> None:
    project = tmp_path / "proj"
    (project / "pkg").mkdir(parents=True)
    inner = Mounts(project=project, package=project / "pkg", state=tmp_path / "state")
    with pytest.raises(UnsafeModelPath):
        dealias("@project/pkg/agents.json", inner, write=True)


def test_a_symbolic_link_out_of_its_mount_is_refused(mounts: Mounts, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, mounts.project / "link")
    with pytest.raises(UnsafeModelPath, match="symbolic link leads it outside @project"):
        dealias("@project/link/file", mounts)


@pytest.mark.parametrize("write", [False, True])
def test_the_state_dir_cannot_be_reached_through_the_project(mounts: Mounts, write: bool) -> None:
    with pytest.raises(UnsafeModelPath, match="name the file as @state/"):
        dealias("@project/.state/run.json", mounts, write=write)
    with pytest.raises(UnsafeModelPath, match="hidden state directory"):
        dealias(".state", mounts, write=write)


def test_a_sibling_of_a_root_is_hidden_not_shown_or_aliased() -> None:
    mounts = Mounts(project=Path("/tmp/lk/a"), package=Path("/p/pkg"), state=Path("/s/st"))
    text = alias_text("see /tmp/lk/a.txt, /tmp/lk/ab/x and /tmp/lk/a/src", mounts)
    assert text == f"see {HIDDEN_PATH}, {HIDDEN_PATH} and @project/src"


def test_a_symlinked_mount_is_aliased_in_both_spellings(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    mounts = Mounts(project=link, package=tmp_path / "pkg", state=tmp_path / "st")
    text = f"{link}/src/x.py and {real}/src/y.py"
    assert alias_text(text, mounts) == "@project/src/x.py and @project/src/y.py"
    assert alias_path(real / "a.md", mounts) == "@project/a.md"


@pytest.mark.parametrize(
    ("project", "package", "state", "message"),
    [
        ("/w/a", "/w/a", "/w/s", "@project and @pkg are the same directory"),
        ("/w/a", "/w/p", "/w/a", "@project and @state are the same directory"),
        ("/w/p/proj", "/w/p", "/w/s", "the project lies inside the package"),
        ("/w/a", "/w/p", "/w/p/state", "the state directory lies inside the package"),
    ],
)
def test_overlapping_mounts_are_refused(
    project: str, package: str, state: str, message: str
) -> None:
    overlap = mount_overlap(Mounts(project=Path(project), package=Path(package), state=Path(state)))
    assert overlap is not None and message in overlap


def test_a_package_or_state_inside_the_project_is_allowed() -> None:
    assert mount_overlap(NESTED) is None
    inner = Mounts(project=Path("/w/a"), package=Path("/w/a/pkg"), state=Path("/w/a/.st"))
    assert mount_overlap(inner) is None


def test_mounts_that_are_one_directory_through_a_symlink_are_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    mounts = Mounts(project=tmp_path / "link", package=tmp_path / "real", state=tmp_path / "s")
    assert "the same directory" in (mount_overlap(mounts) or "")


# Directory names use letters that no prompt text contains, so a plain substring test
# proves a root is absent.
SEGMENT = st.text(alphabet="жюяёщ019_-.", min_size=1, max_size=5).filter(
    lambda s: s not in (".", "..")
)
SEPARATORS = st.sampled_from([" ", "\n", "'", '"', "(", ")", "=", ": ", ", ", "`", "<", ">"])
# What may be glued before a root (a relative prefix, a mount name) and after it (a sibling's
# tail, a file extension, an option's dash), besides separators and path tails.
BEFORE = st.sampled_from(["", "a", "@pkg", "x-", "~", "."])
TAILS = st.sampled_from(
    ["", "/", "/a.md", "/docs/b.txt", "/.hidden", ".txt", "-c", "b/x", ".", "//c", "2"]
)


@st.composite
def _mounts(draw: st.DrawFn) -> Mounts:
    base = "/" + "/".join(draw(st.lists(SEGMENT, min_size=1, max_size=3)))
    project = base + "/" + draw(SEGMENT)
    package = draw(
        st.sampled_from(
            [project + draw(SEGMENT), project + "/" + draw(SEGMENT), base + "/" + draw(SEGMENT)]
        )
    )
    state = draw(
        st.sampled_from(
            [project + "/" + draw(SEGMENT), package + draw(SEGMENT), base + "/" + draw(SEGMENT)]
        )
    )
    assume(len({project, package, state}) == 3)
    return Mounts(project=Path(project), package=Path(package), state=Path(state))


def _resolved(mounts: Mounts) -> list[str]:
    return [str(p.resolve()) for p in (mounts.project, mounts.package, mounts.state)]


@st.composite
def _mentions(draw: st.DrawFn, mounts: Mounts) -> str:
    roots = [str(mounts.project), str(mounts.package), str(mounts.state), *_resolved(mounts)]
    pieces = []
    for _ in range(draw(st.integers(1, 6))):
        root = draw(st.sampled_from(roots))
        if draw(st.booleans()):
            root = root.replace("/", "//", 1)
        pieces.append(draw(SEPARATORS) + draw(BEFORE) + root + draw(TAILS) + draw(SEPARATORS))
    return draw(st.sampled_from(["", "see"])) + "".join(pieces)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_no_real_mount_path_appears_in_any_composed_message(
    make_input: MakeInput, prompts: PromptLibrary, data: st.DataObject
) -> None:
    mounts = data.draw(_mounts())
    if not data.draw(st.booleans()):
        _assert_no_root_in_messages(make_input, prompts, data, mounts)
        return
    # The project is a symbolic link: text may name it by the link or by its real path.
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        real = base / ("r" + data.draw(SEGMENT))
        real.mkdir()
        link = base / ("l" + data.draw(SEGMENT))
        link.symlink_to(real)
        inner = data.draw(SEGMENT)
        linked = Mounts(project=link, package=base / "pkg", state=link / ("s" + inner))
        _assert_no_root_in_messages(make_input, prompts, data, linked)


def _assert_no_root_in_messages(
    make_input: MakeInput, prompts: PromptLibrary, data: st.DataObject, mounts: Mounts
) -> None:
    def mention() -> str:
        return data.draw(_mentions(mounts))

    mode = data.draw(st.sampled_from(["run", "run-completed", "agent", "chat"]))
    base = make_input(
        "run" if mode.startswith("run") else mode,
        agent=data.draw(st.sampled_from(["analyst", "reviewer"])),
        completed=mode == "run-completed",
        variables={"out": mention(), "nested": [mention()], mention(): 1},
        user_input=mention(),
    )
    agent = base.agent_definition
    agent = replace(
        agent,
        name=mention(),
        title=mention(),
        persona=replace(
            agent.persona,
            role=mention(),
            identity=mention(),
            communication_style=mention(),
            principles=(mention(), mention()),
        ),
        system_prompt=data.draw(st.none() | _mentions(mounts)),
        user_template=data.draw(st.none() | _mentions(mounts).map(lambda t: t + " {{input}}")),
    )
    brief = base.node_brief
    if brief is not None:
        edge = replace(brief.transitions[0], label=mention(), condition=mention())
        artifact = Artifact(name="a", description=mention(), path=mention())
        brief = replace(
            brief,
            title=mention(),
            step_content=mention(),
            inputs=(artifact,),
            outputs=(artifact,),
            validation=(mention(),),
            transitions=(edge,),
        )
    composed = replace(
        base,
        project_root=mounts.project,
        package_root=mounts.package,
        state_dir=mounts.state,
        agent_definition=agent,
        node_brief=brief,
    )
    text = "\n".join(m.text for m in compose_workflow(composed, prompts=prompts).messages)
    for root in (mounts.project, mounts.package, mounts.state, *map(Path, _resolved(mounts))):
        assert str(root) not in text


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(mounts=_mounts())
def test_every_mounts_files_alias_to_that_mount(mounts: Mounts) -> None:
    for name, root in (
        ("@project", mounts.project),
        ("@pkg", mounts.package),
        ("@state", mounts.state),
    ):
        assert alias_text(f"{root}/file.txt", mounts) == f"{name}/file.txt"
        assert alias_path(root / "file.txt", mounts) == f"{name}/file.txt"
