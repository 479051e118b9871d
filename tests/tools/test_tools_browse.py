"""ls, tree, glob and grep: discovery-aware, capped, and inside the root."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from agentprompt.tools import ToolContext, ToolPolicy, ToolResult

Call = Callable[..., ToolResult]


def test_ls_lists_directories_first_with_slash(call: Call) -> None:
    assert call("ls").content == "build/\nsrc/\n.gitignore\nREADME.md"
    assert call("ls", path="src/app").content == "main.py\nutil.py"


def test_ls_of_a_file_or_outside_root_is_an_error(call: Call) -> None:
    assert "not a directory" in call("ls", path="README.md").content
    assert call("ls", path="..").is_error


def test_tree_leaves_ignored_files_out(call: Call) -> None:
    assert call("tree").content == ("src/\n  app/\n    main.py\n    util.py\n.gitignore\nREADME.md")


def test_tree_depth_and_subdirectory(call: Call) -> None:
    assert call("tree", depth=1).content == "src/\n.gitignore\nREADME.md"
    assert call("tree", path="src").content == "app/\n  main.py\n  util.py"


def test_tree_is_capped_by_policy(call: Call, repo: Path) -> None:
    ctx = ToolContext(root=repo, policy=ToolPolicy(max_tree_entries=2))
    assert call("tree", ctx).content.endswith("[4 more entries not shown; narrow it]")


def test_glob_matches_gitignore_style_patterns(call: Call) -> None:
    assert call("glob", pattern="*.py").content == "src/app/main.py\nsrc/app/util.py"
    assert call("glob", pattern="app/m*.py", path="src").content == "src/app/main.py"
    assert "No files match" in call("glob", pattern="*.rs").content


def test_grep_lists_path_line_text(call: Call) -> None:
    assert call("grep", pattern=r"def \w+").content == (
        "src/app/main.py:4: def main():\nsrc/app/util.py:1: def helper(x):"
    )


def test_grep_include_and_ignore_case(call: Call) -> None:
    assert call("grep", pattern="RUN", ignore_case=True).content == "README.md:3: Run main."
    assert "No matches" in call("grep", pattern="def", include="*.md").content


def test_grep_invalid_regex_is_an_error(call: Call) -> None:
    result = call("grep", pattern="(")
    assert result.is_error and "not a valid regular expression" in result.content


def test_grep_stops_at_max_matches(call: Call, repo: Path) -> None:
    (repo / "many.txt").write_text("hit\n" * 10)
    ctx = ToolContext(root=repo, policy=ToolPolicy(max_matches=3))
    lines = call("grep", ctx, pattern="hit").content.splitlines()
    assert len(lines) == 4 and lines[-1].startswith("[stopped after 3 matches")


def test_glob_matcher_follows_gitignore_rules() -> None:
    from agentprompt.tools._browse import glob_matcher

    assert glob_matcher("*.py")("a/b/c.py")
    assert not glob_matcher("src/*.py")("src/a/b.py")
    assert glob_matcher("src/**/*.py")("src/a/b.py")
    assert glob_matcher("src/**/*.py")("src/b.py")
    assert glob_matcher("te?t_[a-c].py")("x/test_b.py")
    assert not glob_matcher("test_[!a].py")("test_a.py")
    assert glob_matcher("docs")("docs/index.md")
    assert not glob_matcher("*.py")("a.pyc")


@pytest.mark.parametrize("tool", ["ls", "tree", "glob", "grep"])
def test_an_absolute_directory_is_refused_like_the_file_tools_refuse_it(
    call: Call, repo: Path, tool: str
) -> None:
    # "/src" used to be read as "src", and "/etc" as a missing "etc" under the root.
    args = {"pattern": "x"} if tool in ("glob", "grep") else {}
    for path in ("/src", str(repo / "src")):
        result = call(tool, path=path, **args)
        assert result.is_error and "absolute paths are not allowed" in result.content
