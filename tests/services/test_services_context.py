"""The repository context service: ranking, the map, the tree and reading files, for every
front door."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.errors import UsageError
from agentprompt.mcp_server import _tools as mcp_tools
from agentprompt.mcp_server._server import _worded as mcp_worded
from agentprompt.repo.discovery import Exclusion, RepoFile, discover
from agentprompt.repo.map import build_tree
from agentprompt.repo.rank import InvalidTask
from agentprompt.services import FileTree, ReadFiles, RepositoryContext, Workspace
from agentprompt.web._context_methods import rank_files_method, rank_symbols_method


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src" / "app").mkdir(parents=True)
    (root / "src" / "app" / "parse.py").write_text(
        "def parse_json(text):\n    return loads(text)\n\n\ndef loads(text):\n    return text\n"
    )
    (root / "src" / "app" / "cli.py").write_text(
        "from app.parse import parse_json\n\n\ndef main():\n    return parse_json('{}')\n\n\n"
        "if __name__ == '__main__':\n    main()\n"
    )
    (root / "src" / "app" / "util.py").write_text("def helper():\n    return 1\n")
    (root / "README.md").write_text("# app\n\nParses JSON.\n")
    (root / "debug.log").write_text("noise\n")
    (root / ".gitignore").write_text("*.log\n")
    return root


def _context(root: Path) -> RepositoryContext:
    return RepositoryContext(Workspace(root))


def test_a_ranking_gives_the_top_files_and_counts_them_all(repo: Path) -> None:
    ranked = _context(repo).rank("parse_json fails on invalid input", 1)
    assert [f.path for f in ranked.files] == ["src/app/parse.py"]
    assert ranked.total == 5  # every file discovery keeps is ranked
    data = ranked.to_json()
    assert data["files"][0]["rank"] == 1 and data["files"][0]["path"] == "src/app/parse.py"
    assert {r["signal"] for r in data["files"][0]["reasons"]} >= {"definition"}
    assert (data["total"], data["about_tests"], data["parsed"]) == (5, False, 3)


def test_every_door_gives_the_ranking_in_one_shape(repo: Path) -> None:
    task = "parse_json fails on invalid input"
    first = _context(repo).rank(task, 2).to_json()
    assert first["parsed"] == 3
    # Once the symbol cache holds every file, each door's answer is the same, to the byte.
    service = _context(repo).rank(task, 2).to_json()
    assert {**first, "parsed": 0} == service
    assert rank_files_method(Workspace(repo), {"task": task, "top": 2}) == service
    assert mcp_tools.rank_files(Workspace(repo), task, 2, None) == service


def test_a_task_that_cannot_be_ranked_for_is_refused_before_reading(repo: Path) -> None:
    with pytest.raises(InvalidTask, match="empty"):
        _context(repo).rank("   ")
    assert not (repo / ".agentprompt").exists()


def test_ranked_symbols_give_each_definition_its_lines_and_reasons(repo: Path) -> None:
    ranked = _context(repo).rank_symbols("parse_json fails on invalid input", 2, files=1)
    assert [(s.path, s.name) for s in ranked.symbols][:1] == [("src/app/parse.py", "parse_json")]
    data = ranked.to_json()
    first = data["symbols"][0]
    assert first["rank"] == 1 and first["kind"] == "function"
    assert (first["start"], first["end"]) == (1, 2)
    assert {r["signal"] for r in first["reasons"]} >= {"name"}
    assert data["files"] == 1 and len(data["symbols"]) <= 2


def test_every_door_gives_the_ranked_symbols_in_one_shape(repo: Path) -> None:
    task = "parse_json fails on invalid input"
    service = _context(repo).rank_symbols(task, 3).to_json()
    assert rank_symbols_method(Workspace(repo), {"task": task, "top": 3}) == service
    assert mcp_tools.rank_symbols(Workspace(repo), task, 3, None) == service


def test_ranking_symbols_for_an_empty_task_is_refused(repo: Path) -> None:
    with pytest.raises(InvalidTask):
        _context(repo).rank_symbols(" \n")


def test_the_map_is_fitted_and_its_json_lists_what_it_shows(repo: Path) -> None:
    fitted = _context(repo).map(max_tokens=2000, task="parse json")
    assert fitted.map.budget == 2000 and fitted.map.tokens <= 2000
    data = fitted.to_json()
    assert {f["path"] for f in data["files"]} == {f.path for f in fitted.map.files}
    assert data["text"] == fitted.map.text and data["budget"] == 2000


def test_the_tree_counts_tokens_and_notes_files_when_asked(repo: Path) -> None:
    phases: list[str] = []
    tree = _context(repo).tree(
        annotate=True, count_tokens=True, progress=lambda phase, done, total: phases.append(phase)
    )
    assert [f.path for f in tree.discovery.files] == [
        ".gitignore",
        "README.md",
        "src/app/cli.py",
        "src/app/parse.py",
        "src/app/util.py",
    ]
    assert tree.tokens is not None and tree.tokenizer == "o200k_base"
    assert tree.tree.tokens == sum(tree.tokens.values())
    assert "cli.py (main entry" in tree.text
    assert phases[0] == "reading symbols" and phases[-1] == "counting tokens"
    plain = _context(repo).tree()
    assert plain.tokens is None and plain.tokenizer is None


def test_explain_says_why_a_file_is_in_or_out(repo: Path) -> None:
    context = _context(repo)
    kept = context.explain("README.md")
    assert isinstance(kept, RepoFile)
    left = context.explain("debug.log")
    assert isinstance(left, Exclusion) and ".gitignore" in left.reason


def test_reading_fits_the_budget_and_says_what_was_cut(repo: Path) -> None:
    def read(budget: int) -> ReadFiles:
        return _context(repo).read(
            ["src/app/parse.py", "src/app/cli.py"],
            mode="full",
            max_tokens=budget,
        )

    whole = read(60)
    assert [(f.path, f.shown) for f in whole.files] == [
        ("src/app/parse.py", "full"),
        ("src/app/cli.py", "full"),
    ]
    assert whole.cut == ()
    # The last file is cut first: to its signatures, then to its path.
    outline = read(40)
    assert [f.shown for f in outline.files] == ["full", "signatures"]
    assert [(c.path, c.kept) for c in outline.cut] == [("src/app/cli.py", "signatures")]
    bare = read(25)
    assert [f.path for f in bare.files] == ["src/app/parse.py"]
    assert [(c.path, c.kept, c.reason) for c in bare.cut] == [
        ("src/app/cli.py", "path", "its full text did not fit the budget of 25 tokens")
    ]
    data = outline.to_json()
    assert data["budget"] == 40 and data["tokens"] == sum(f["tokens"] for f in data["files"])
    assert data["cut"] == [
        {
            "path": "src/app/cli.py",
            "kept": "signatures",
            "reason": "its full text did not fit the budget of 40 tokens",
        }
    ]


def test_reading_names_the_input_at_fault(repo: Path) -> None:
    context = _context(repo)
    with pytest.raises(UsageError) as nothing:
        context.read([], mode="full", max_tokens=100)
    assert nothing.value.input == "paths"
    with pytest.raises(UsageError) as outside:
        context.read(["../secret.txt"], mode="full", max_tokens=100)
    assert outside.value.input == "paths"
    with pytest.raises(UsageError) as unknown:
        context.read(["nowhere.py"], mode="full", max_tokens=100)
    assert unknown.value.input == "paths" and "nowhere.py" in str(unknown.value)


def test_the_mcp_door_names_the_argument_at_fault(repo: Path) -> None:
    with pytest.raises(UsageError) as caught:
        mcp_tools.read_context(Workspace(repo), [], [], "full", None)
    assert mcp_worded(caught.value) == (
        'argument "paths": give the files to read (paths or globs, at least one)'
    )
    with pytest.raises(UsageError) as empty:
        mcp_tools.read_context(Workspace(repo), [" "], [], "full", None)
    assert (
        mcp_worded(empty.value)
        == 'argument "paths": an empty path; give paths relative to the root'
    )


def test_the_tree_json_nests_children_with_types(tmp_path: Path) -> None:
    tree = build_tree(["src/a.py"], annotations={"src/a.py": "note"})
    data = FileTree(discovery=discover(tmp_path), tree=tree).tree_json()
    assert data == {
        "name": "",
        "path": "",
        "type": "dir",
        "children": [
            {
                "name": "src",
                "path": "src",
                "type": "dir",
                "children": [
                    {"name": "a.py", "path": "src/a.py", "type": "file", "annotation": "note"}
                ],
            }
        ],
    }
