"""Discovery: git's view, .gitignore walks, .agentpromptignore, defaults, per-file checks."""

from __future__ import annotations

import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentprompt.errors import AgentPromptError, NotADirectory
from agentprompt.repo.discovery import (
    DiscoveryOptions,
    Exclusion,
    RepoFile,
    UnreadableFile,
    discover,
    explain,
    explain_in,
    is_generated_reason,
    read_text,
)
from agentprompt.repo.discovery import _git as gitcmd
from agentprompt.repo.discovery import _walk as walk_module
from agentprompt.repo.discovery._ignore import InvalidIgnorePattern

WALK = DiscoveryOptions(follow_git=False)


def write(root: Path, rel: str, text: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def git_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty git repository, with the user's global git config kept out."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def paths(root: Path, options: DiscoveryOptions | None = None) -> list[str]:
    return [f.path for f in discover(root, options).files]


def reasons(root: Path, options: DiscoveryOptions | None = None) -> dict[str, str]:
    return {e.path: e.reason for e in discover(root, options).excluded}


def test_git_view_lists_tracked_and_untracked_files_not_ignored(git_root: Path) -> None:
    write(git_root, "tracked.py")
    git(git_root, "add", ".")
    git(git_root, "commit", "-qm", "c")
    write(git_root, "new.py")
    write(git_root, "debug.log")
    write(git_root, ".gitignore", "*.log\n")
    found = discover(git_root)
    assert found.git
    assert [f.path for f in found.files] == [".gitignore", "new.py", "tracked.py"]


def test_git_view_applies_gitignore_files_at_every_depth(git_root: Path) -> None:
    write(git_root, "pkg/.gitignore", "secret_*.py\n")
    write(git_root, "pkg/secret_a.py")
    write(git_root, "secret_b.py")
    assert "pkg/secret_a.py" not in paths(git_root)
    assert "secret_b.py" in paths(git_root)


def test_git_view_applies_info_exclude(git_root: Path) -> None:
    write(git_root, ".git/info/exclude", "local.py\n")
    write(git_root, "local.py")
    write(git_root, "kept.py")
    assert paths(git_root) == ["kept.py"]


def test_git_view_applies_the_global_excludes_file(git_root: Path) -> None:
    write(git_root.parent / "home", ".config/git/ignore", "*.swp.py\n")
    write(git_root, "a.swp.py")
    write(git_root, "b.py")
    assert paths(git_root) == ["b.py"]


def test_tracked_file_deleted_from_the_work_tree_is_reported(git_root: Path) -> None:
    write(git_root, "gone.py").parent.joinpath("kept.py").write_text("k = 1\n")
    git(git_root, "add", ".")
    git(git_root, "commit", "-qm", "c")
    (git_root / "gone.py").unlink()
    assert paths(git_root) == ["kept.py"]
    assert reasons(git_root)["gone.py"] == "tracked by git but deleted from the work tree"


def test_outside_git_gitignore_files_apply_at_every_depth_with_negation(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "# logs\n*.log\n")
    write(tmp_path, "sub/.gitignore", "!keep.log\n")
    write(tmp_path, "a.log")
    write(tmp_path, "sub/keep.log")
    write(tmp_path, "sub/drop.log")
    found = discover(tmp_path, WALK)
    assert not found.git
    assert [f.path for f in found.files] == [".gitignore", "sub/.gitignore", "sub/keep.log"]
    assert reasons(tmp_path, WALK)["a.log"] == "ignored by .gitignore:2 (`*.log`)"


def test_outside_git_an_ignored_directory_is_reported_once(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "cache/\n")
    for i in range(3):
        write(tmp_path, f"cache/f{i}.py")
    assert reasons(tmp_path, WALK) == {"cache/": "ignored by .gitignore:1 (`cache/`)"}


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_agentpromptignore_applies_at_any_depth(git_root: Path, options: DiscoveryOptions) -> None:
    write(git_root, ".agentpromptignore", "*.csv\n")
    write(git_root, "data/.agentpromptignore", "raw/\n")
    write(git_root, "data/table.csv", "a,b\n")
    write(git_root, "data/raw/x.py")
    write(git_root, "data/keep.py")
    listed = paths(git_root, options)
    assert "data/keep.py" in listed
    assert "data/table.csv" not in listed
    assert "data/raw/x.py" not in listed
    assert explain(git_root, "data/table.csv", options) == Exclusion(
        path="data/table.csv", reason="excluded by .agentpromptignore:1 (`*.csv`)"
    )


def test_agentpromptignore_negation_reincludes_a_default_exclusion(tmp_path: Path) -> None:
    write(tmp_path, ".agentpromptignore", "!dist/\n")
    write(tmp_path, "dist/bundle.py")
    assert "dist/bundle.py" in paths(tmp_path, WALK)


@pytest.mark.parametrize(
    "rel",
    [
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "Cargo.lock",
        "uv.lock",
        "web/app.min.js",
        "web/app.min.css",
        "web/app.js.map",
        "node_modules/lib/index.js",
        ".venv/lib/site.py",
        "venv/lib/site.py",
        "pkg/__pycache__/m.py",
        "dist/out.py",
        "build/out.py",
        "target/out.rs",
        "out/main.js",
        ".tox/x.py",
        ".mypy_cache/x.json",
    ],
)
@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_default_exclusions_leave_out_what_a_user_expects(
    git_root: Path, rel: str, options: DiscoveryOptions
) -> None:
    write(git_root, rel, "x\n")
    write(git_root, "main.py")
    assert paths(git_root, options) == ["main.py"]
    why = explain(git_root, rel, options)
    assert isinstance(why, Exclusion)
    # Minified and generated names are default exclusions of their own kind
    # ("default exclusion of generated files"), which --include-generated lifts.
    assert why.reason.startswith("excluded by default exclusion")


def test_default_exclusions_can_be_turned_off(tmp_path: Path) -> None:
    write(tmp_path, "yarn.lock", "x\n")
    assert paths(tmp_path, DiscoveryOptions(follow_git=False, include_default_excludes=False)) == [
        "yarn.lock"
    ]


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_a_virtualenv_under_any_name_is_left_out(git_root: Path, options: DiscoveryOptions) -> None:
    write(git_root, "env/pyvenv.cfg", "home = /usr\n")
    write(git_root, "env/lib/site.py")
    write(git_root, "main.py")
    assert paths(git_root, options) == ["main.py"]
    assert reasons(git_root, options)["env/"] == "a Python virtual environment (has pyvenv.cfg)"


def test_extra_excludes_are_applied_and_named(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    write(tmp_path, "b.txt")
    options = DiscoveryOptions(follow_git=False, extra_excludes=("*.txt",))
    assert paths(tmp_path, options) == ["a.py"]
    assert reasons(tmp_path, options)["b.txt"] == "excluded by the exclude option (`*.txt`)"


def test_binary_content_is_detected_by_a_nul_byte(tmp_path: Path) -> None:
    write(tmp_path, "blob.dat2", b"abc\0def")
    assert reasons(tmp_path, WALK)["blob.dat2"] == "binary content (a NUL byte in the first 8 KiB)"


def test_binary_file_types_are_left_out_without_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "logo.png", b"\x89PNG")
    read: list[str] = []
    monkeypatch.setattr(walk_module, "sniff", lambda p: read.append(p))
    assert reasons(tmp_path, WALK)["logo.png"] == "binary file type (.png)"
    assert read == []


def test_text_that_is_not_utf8_is_left_out(tmp_path: Path) -> None:
    write(tmp_path, "latin.txt", "caf\xe9 au lait\n".encode("latin-1"))
    assert reasons(tmp_path, WALK)["latin.txt"] == "not UTF-8 text (invalid byte at offset 3)"


def test_a_multibyte_character_cut_at_8_kib_is_still_text(tmp_path: Path) -> None:
    # Short lines: a single 8 KiB line would read as generated.
    write(tmp_path, "wide.txt", ("a" * 99 + "\n") * 81 + "a" * 91 + "é" * 10)
    assert paths(tmp_path, WALK) == ["wide.txt"]


def test_generated_file_headers_are_left_out(tmp_path: Path) -> None:
    write(tmp_path, "api.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n")
    write(tmp_path, "schema.ts", "/* @generated */\nexport {};\n")
    found = reasons(tmp_path, WALK)
    assert found["api.go"] == "generated file (`Code generated ... DO NOT EDIT` header)"
    assert found["schema.ts"] == "generated file (`@generated` header)"


def test_files_over_the_size_cap_are_left_out(tmp_path: Path) -> None:
    write(tmp_path, "big.py", "x" * 101)
    write(tmp_path, "small.py", "x" * 100)
    options = DiscoveryOptions(follow_git=False, max_file_bytes=100)
    assert paths(tmp_path, options) == ["small.py"]
    assert reasons(tmp_path, options)["big.py"] == "over the 100-byte size cap (101 bytes)"


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_symlinks_out_of_the_root_are_never_followed(
    git_root: Path, options: DiscoveryOptions
) -> None:
    outside = write(git_root.parent, "outside/secret.py")
    (git_root / "link.py").symlink_to(outside)
    (git_root / "linkdir").symlink_to(outside.parent)
    write(git_root, "main.py")
    assert paths(git_root, options) == ["main.py"]
    found = reasons(git_root, options)
    assert found["link.py"] == "symlink pointing outside the root (not followed)"
    assert found["linkdir"] == "symlink pointing outside the root (not followed)"


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_symlinked_directories_inside_the_root_are_not_listed_twice(
    git_root: Path, options: DiscoveryOptions
) -> None:
    write(git_root, "real/a.py")
    (git_root / "alias").symlink_to(git_root / "real")
    (git_root / "b.py").symlink_to(git_root / "real" / "a.py")
    assert paths(git_root, options) == ["b.py", "real/a.py"]
    assert reasons(git_root, options)["alias"].startswith("symlink to a directory")


def test_unreadable_files_are_reported_once_and_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "locked.py")
    write(tmp_path, "open.py")
    real = walk_module.sniff
    monkeypatch.setattr(
        walk_module,
        "sniff",
        lambda p: "unreadable: Permission denied" if p.endswith("locked.py") else real(p),
    )
    found = discover(tmp_path, WALK)
    assert [f.path for f in found.files] == ["open.py"]
    assert found.problems == ("locked.py: cannot read (Permission denied)",)


def test_files_carry_size_and_mtime(tmp_path: Path) -> None:
    path = write(tmp_path, "a.py", "abc")
    (found,) = discover(tmp_path, WALK).files
    assert found == RepoFile(path="a.py", size=3, mtime_ns=os.stat(path).st_mtime_ns)


def test_a_root_that_is_not_a_directory_is_refused(tmp_path: Path) -> None:
    file = write(tmp_path, "a.py")
    with pytest.raises(NotADirectory, match="is not a directory"):
        discover(file)
    with pytest.raises(NotADirectory):
        discover(tmp_path / "missing")


def test_explain_says_a_listed_file_is_in(tmp_path: Path) -> None:
    write(tmp_path, "a.py", "abc")
    assert isinstance(explain(tmp_path, "a.py", WALK), RepoFile)
    assert isinstance(explain(tmp_path, str(tmp_path / "a.py"), WALK), RepoFile)


def test_explain_names_the_git_ignore_file_and_line(git_root: Path) -> None:
    write(git_root, ".gitignore", "# generated\n\n*.log\n")
    write(git_root, "run.log")
    assert explain(git_root, "run.log") == Exclusion(
        path="run.log", reason="ignored by git: .gitignore:3 (`*.log`)"
    )


def test_explain_a_file_inside_an_ignored_directory(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "cache/\n")
    write(tmp_path, "cache/x.py")
    assert explain(tmp_path, "cache/x.py", WALK) == Exclusion(
        path="cache/x.py", reason="ignored by .gitignore:1 (`cache/`)"
    )


def test_explain_a_missing_path_and_a_path_outside_the_root(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    root = tmp_path / "root"
    assert explain(root, "nope.py", WALK) == Exclusion(path="nope.py", reason="does not exist")
    assert explain(root, "../x.py", WALK) == Exclusion(path="../x.py", reason="outside the root")


def test_git_view_of_a_subfolder_lists_paths_relative_to_it(git_root: Path) -> None:
    write(git_root, "pkg/mod.py")
    write(git_root, "top.py")
    assert paths(git_root / "pkg") == ["mod.py"]


def test_a_root_ignored_by_the_enclosing_repository_is_walked(git_root: Path) -> None:
    write(git_root, ".gitignore", "vendored/\n")
    write(git_root, "vendored/lib/code.py")
    found = discover(git_root / "vendored")
    assert (found.git, [f.path for f in found.files]) == (False, ["lib/code.py"])


_PATTERNS = [
    "*",
    "!*/",
    "!*.py",
    "*.log",
    "!logs/",
    "!keep.log",
    "a/",
    "!a/",
    "/a",
    "a/**",
    "!a/b",
    "**/b",
    "b/",
    "!b/",
    "a/*",
    "c/**/d",
    "**/d/",
    "?.py",
    "[ab].md",
    "[!a]*.md",
    "**/*.py",
    "!**/keep*",
    "logs",
]
_DIRS = ["a", "b", "c", "d", "logs"]
_FILES = ["a.txt", "x.py", "m.md", "keep.log", "run.log", "b"]


def _git_lists(root: Path) -> list[str]:
    done = subprocess.run(
        ["git", "-c", "core.excludesFile=/dev/null", "ls-files", "-z", "-o", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    )
    return sorted(n for n in os.fsdecode(done.stdout).split("\0") if n)


@settings(max_examples=80, deadline=None)
@given(
    top=st.lists(st.sampled_from(_PATTERNS), min_size=1, max_size=5),
    nested=st.lists(st.sampled_from(_PATTERNS), max_size=3),
    files=st.lists(
        st.tuples(st.lists(st.sampled_from(_DIRS), max_size=3), st.sampled_from(_FILES)).map(
            lambda t: "/".join([*t[0], t[1]])
        ),
        min_size=4,
        max_size=16,
    ),
)
def test_gitignore_rules_decide_as_git_ls_files_does(
    tmp_path_factory: pytest.TempPathFactory, top: list[str], nested: list[str], files: list[str]
) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    made = []
    for rel in files:
        path = root / rel
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("1\n")
        except (FileExistsError, NotADirectoryError, IsADirectoryError):
            continue
        made.append(rel)
    (root / ".gitignore").write_text("\n".join(top) + "\n")
    folder = next((rel.rpartition("/")[0] for rel in made if "/" in rel), "")
    if nested and folder:
        (root / folder / ".gitignore").write_text("\n".join(nested) + "\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True, capture_output=True)
    expected = _git_lists(root)
    ours = [
        f.path
        for f in discover(
            root, DiscoveryOptions(follow_git=False, include_default_excludes=False)
        ).files
    ]
    assert ours == expected


def test_a_generated_marker_outside_a_comment_is_ordinary_code(tmp_path: Path) -> None:
    write(tmp_path, "macros.jl", "@generated function f(x)\n    return :(x)\nend\n")
    write(tmp_path, "gen.cs", "// <auto-generated>\nclass A {}\n")
    found = reasons(tmp_path, WALK)
    assert "macros.jl" not in found
    assert found["gen.cs"] == "generated file (`<auto-generated` header)"


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_a_folder_left_out_by_a_folder_pattern_is_reported_once(
    git_root: Path, options: DiscoveryOptions
) -> None:
    for i in range(3):
        write(git_root, f"web/dist/chunk{i}.js")
    write(git_root, "web/app.js")
    assert reasons(git_root, options) == {"web/dist/": "excluded by default exclusion (`dist/`)"}
    assert explain(git_root, "web/dist/chunk1.js", options) == Exclusion(
        path="web/dist/chunk1.js", reason="excluded by default exclusion (`dist/`)"
    )


def test_a_nested_git_repository_is_reported_not_listed(git_root: Path) -> None:
    inner = git_root / "vendor_repo"
    inner.mkdir()
    git(inner, "init", "-q")
    write(inner, "lib.py")
    write(git_root, "main.py")
    assert paths(git_root) == ["main.py"]
    assert reasons(git_root)["vendor_repo/"] == "a nested git repository (its files are not listed)"


def test_explain_names_the_info_exclude_and_global_excludes_files(git_root: Path) -> None:
    write(git_root, ".git/info/exclude", "# local\nlocal.py\n")
    write(git_root.parent / "home", ".config/git/ignore", "*.swp.py\n")
    write(git_root, "local.py")
    write(git_root, "a.swp.py")
    local = explain(git_root, "local.py")
    assert isinstance(local, Exclusion)
    assert local.reason == "ignored by git: .git/info/exclude:2 (`local.py`)"
    swap = explain(git_root, "a.swp.py")
    assert isinstance(swap, Exclusion)
    assert swap.reason.startswith("ignored by git: ")
    assert swap.reason.endswith(".config/git/ignore:1 (`*.swp.py`)")


def test_a_repository_whose_files_are_all_ignored_lists_nothing(git_root: Path) -> None:
    write(git_root, ".git/info/exclude", "*\n")
    write(git_root, "secret_notes.py")
    found = discover(git_root)
    assert (found.git, found.files) == (True, ())


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_an_invalid_pattern_in_an_ignore_file_is_skipped_and_reported(
    git_root: Path, options: DiscoveryOptions
) -> None:
    write(git_root, ".agentpromptignore", "[abc\n*.csv\n")
    write(git_root, "t.csv", "a\n")
    write(git_root, "main.py")
    found = discover(git_root, options)
    assert [f.path for f in found.files] == [".agentpromptignore", "main.py"]
    assert len(found.problems) == 1
    assert found.problems[0].startswith(".agentpromptignore:1: `[abc` is not a valid gitignore")


def test_an_invalid_exclude_option_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InvalidIgnorePattern, match="option exclude: `a\\\\` is not a valid"):
        discover(tmp_path, DiscoveryOptions(follow_git=False, extra_excludes=("a\\",)))


def commit_all(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", "c")


def test_a_tracked_file_under_a_folder_swapped_for_an_outside_symlink_is_left_out(
    git_root: Path,
) -> None:
    write(git_root, "lib/x.py", "inside = 1\n")
    write(git_root, "main.py")
    commit_all(git_root)
    outside = write(git_root.parent, "outside/x.py", "OUTSIDE = 1\n").parent
    for item in (git_root / "lib").iterdir():
        item.unlink()
    (git_root / "lib").rmdir()
    (git_root / "lib").symlink_to(outside)
    found = discover(git_root)
    assert [f.path for f in found.files] == ["main.py"]
    assert {e.path: e.reason for e in found.excluded}["lib/"] == (
        "a symlinked folder pointing outside the root (not followed)"
    )


def test_read_text_refuses_a_path_that_now_resolves_outside_the_root(tmp_path: Path) -> None:
    root = tmp_path / "root"
    write(root, "lib/x.py")
    write(tmp_path, "outside/x.py", "OUTSIDE = 1\n")
    assert read_text(root, "lib/x.py") == "x = 1\n"
    (root / "lib" / "x.py").unlink()
    (root / "lib").rmdir()
    (root / "lib").symlink_to(tmp_path / "outside")
    with pytest.raises(UnreadableFile, match="resolves outside the repository root"):
        read_text(root, "lib/x.py")


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_a_symlink_to_an_ignored_file_is_left_out(
    git_root: Path, options: DiscoveryOptions
) -> None:
    write(git_root, ".gitignore", ".env\n")
    write(git_root, ".env", "DB_PASSWORD=hunter2\n")
    (git_root / "env-link.txt").symlink_to(".env")
    write(git_root, "main.py")
    (git_root / "main-link.py").symlink_to("main.py")
    assert paths(git_root, options) == [".gitignore", "main-link.py", "main.py"]
    assert reasons(git_root, options)["env-link.txt"] == (
        "symlink to .env, which is not included itself (see why .env is left out)"
    )


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_a_symlink_into_dot_git_is_never_followed(
    git_root: Path, options: DiscoveryOptions
) -> None:
    (git_root / "gitcfg-link").symlink_to(".git/config")
    write(git_root, "main.py")
    assert paths(git_root, options) == ["main.py"]
    assert reasons(git_root, options)["gitcfg-link"] == "symlink into .git (never followed)"


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ("*\n!*/\n!*.py\n", ["src/a.py"]),
        ("*.log\n!logs/\n", [".gitignore", "a.py"]),
        ("a/**\n!a/b\n", [".gitignore", "a.py", "a/b"]),
    ],
    ids=["star-then-folders-then-py", "folder-reinclude-not-its-files", "contents-of"],
)
def test_ignore_rules_follow_git_for_files_under_reincluded_folders(
    tmp_path: Path, rules: str, expected: list[str]
) -> None:
    write(tmp_path, ".gitignore", rules)
    for rel in ("src/a.py", "src/b.txt", "logs/a.log", "a.py", "a/b", "a/c/d"):
        if rel.startswith(("src/", "a/")) and rules.startswith("*.log"):
            continue
        if rel.startswith(("src/", "logs/")) and rules.startswith("a/**"):
            continue
        if rel in ("a.py", "a/b", "a/c/d", "logs/a.log") and rules.startswith("*\n"):
            continue
        write(tmp_path, rel)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, capture_output=True)
    assert _git_lists(tmp_path) == expected
    (tmp_path / ".git").rename(tmp_path.parent / f"{tmp_path.name}-git")
    options = DiscoveryOptions(follow_git=False, include_default_excludes=False)
    assert paths(tmp_path, options) == expected


@pytest.mark.parametrize("rel", ["coverage/__init__.py", "pkg/build/steps.py", "cmd/out/writer.go"])
def test_tracked_source_in_build_named_folders_is_kept(git_root: Path, rel: str) -> None:
    write(git_root, rel)
    commit_all(git_root)
    write(git_root, "build/lib/copy.py")
    assert paths(git_root) == [rel]
    assert reasons(git_root)["build/"] == "excluded by default exclusion (`build/`)"


def test_tracked_dependencies_and_lock_files_are_still_left_out(git_root: Path) -> None:
    write(git_root, "node_modules/lib/index.js")
    write(git_root, "yarn.lock")
    write(git_root, "main.py")
    commit_all(git_root)
    assert paths(git_root) == ["main.py"]


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_explain_gives_distinct_reasons_for_dot_git_and_symlinked_folders(
    git_root: Path, options: DiscoveryOptions
) -> None:
    write(git_root, "src/a.py")
    (git_root / "srclink").symlink_to("src")
    assert explain(git_root, ".git/config", options) == Exclusion(
        path=".git/config", reason="inside .git, git's own data (never listed)"
    )
    why = explain(git_root, "srclink/a.py", options)
    assert isinstance(why, Exclusion)
    assert why.reason == (
        "inside srclink/, a symlinked folder to src/ inside the root "
        "(not followed; its target is listed)"
    )


def test_explain_in_walk_mode_never_blames_git(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    found = discover(tmp_path, WALK)
    (tmp_path / "late.py").write_text("x = 1\n")
    why = explain_in(found, "late.py")
    assert isinstance(why, Exclusion)
    assert "git" not in why.reason


def test_a_git_call_that_hangs_is_a_clear_error(
    git_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def hang(*args: object, **kwargs: object) -> object:
        raise subprocess.TimeoutExpired(cmd="git", timeout=60)

    monkeypatch.setattr(gitcmd.subprocess, "run", hang)
    with pytest.raises(AgentPromptError, match=r"did not finish within 60 s.*pass no_git"):
        discover(git_root)


def test_a_script_with_very_long_lines_is_left_out_as_minified(tmp_path: Path) -> None:
    write(tmp_path, "bundle.js", "var a=1;" * 1000)
    write(tmp_path, "app.js", "const a = 1;\n" * 300)
    # Prose with long unwrapped paragraphs is kept (a one-line 10 KB file of any type is
    # not: see test_a_one_line_file_of_any_type_is_left_out_as_generated).
    write(tmp_path, "notes.md", ("word " * 600 + "\n\n") * 4)
    assert paths(tmp_path, WALK) == ["app.js", "notes.md"]
    assert reasons(tmp_path, WALK)["bundle.js"] == (
        "minified (average line length 8000 characters in the first 8 KiB, over 300)"
    )


def test_a_one_line_file_of_any_type_is_left_out_as_generated(tmp_path: Path) -> None:
    write(tmp_path, "logo.svg", '<?xml version="1.0"?>\n<svg>' + '<path d="M0 0L1 1"/>' * 2000)
    write(tmp_path, "bundle.json", '{"k":[' + "1," * 5000 + "1]}")
    write(tmp_path, "icon.svg", '<svg>\n  <path d="M0 0L1 1"/>\n</svg>\n')
    write(tmp_path, "data.py", "X = 1\n" * 40 + "BLOB = '" + "x" * 6000 + "'\n")
    assert paths(tmp_path, WALK) == ["data.py", "icon.svg"]
    found = reasons(tmp_path, WALK)
    assert found["logo.svg"].startswith("minified or generated (a line of ")
    assert found["bundle.json"].startswith("minified or generated (a line of ")


def test_common_generator_headers_are_left_out(tmp_path: Path) -> None:
    write(tmp_path, "table.c", "/* This file is automatically generated. Do not edit. */\n")
    write(tmp_path, "migration.py", "# Generated by Django 4.2 on 2023-05-01\nx = 1\n")
    assert paths(tmp_path, WALK) == ["migration.py"]
    assert reasons(tmp_path, WALK)["table.c"] == (
        "generated file (`generated ... do not edit` header)"
    )


@pytest.mark.parametrize("options", [DiscoveryOptions(), WALK], ids=["git", "walk"])
def test_generated_files_are_kept_on_request(git_root: Path, options: DiscoveryOptions) -> None:
    write(git_root, "main.py")
    write(git_root, "web/app.min.js", "x\n")
    write(git_root, "web/app.js.map", "{}\n")
    write(git_root, "logo.svg", "<svg>" + "<g/>" * 3000)
    write(git_root, "api.go", "// Code generated by gen. DO NOT EDIT.\npackage api\n")
    left_out = discover(git_root, options)
    assert [f.path for f in left_out.files] == ["main.py"]
    assert all(is_generated_reason(e.reason) for e in left_out.excluded if e.path != ".git/")
    kept = discover(git_root, replace(options, include_generated=True))
    assert [f.path for f in kept.files] == [
        "api.go",
        "logo.svg",
        "main.py",
        "web/app.js.map",
        "web/app.min.js",
    ]
