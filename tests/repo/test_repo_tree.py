"""The directory tree text: layout, order, annotations, token counts, JSON form."""

from __future__ import annotations

from pathlib import Path

from agentprompt.repo.map import build_tree, count_file_tokens, render_tree
from agentprompt.tokens import get_tokenizer


def test_folders_are_written_with_a_slash_and_children_indented_two_spaces() -> None:
    text = render_tree(build_tree(["src/app/cli.py", "README.md"]))
    assert text == "src/\n  app/\n    cli.py\nREADME.md\n"


def test_folders_come_first_then_files_each_sorted_by_name_ignoring_case() -> None:
    text = render_tree(build_tree(["b.py", "Zeta/x.py", "A.py", "alpha/y.py", "a.py"]))
    assert text == "alpha/\n  y.py\nZeta/\n  x.py\nA.py\na.py\nb.py\n"


def test_order_does_not_depend_on_input_order() -> None:
    paths = ["src/z.py", "src/a.py", "lib/m.py", "top.py"]
    assert render_tree(build_tree(paths)) == render_tree(build_tree(reversed(paths)))


def test_annotations_appear_in_parentheses_as_in_the_browse_view() -> None:
    tree = build_tree(
        ["src/utils.ts", "src/index.ts"],
        annotations={
            "src/utils.ts": "exports: formatDate, parseJSON, ...",
            "src/index.ts": "main entry, imports: utils",
        },
    )
    assert render_tree(tree) == (
        "src/\n"
        "  index.ts (main entry, imports: utils)\n"
        "  utils.ts (exports: formatDate, parseJSON, ...)\n"
    )


def test_an_empty_annotation_adds_nothing() -> None:
    assert render_tree(build_tree(["a.py"], annotations={"a.py": ""})) == "a.py\n"


def test_token_counts_are_shown_per_file_and_summed_per_folder() -> None:
    tree = build_tree(
        ["src/a.py", "src/deep/b.py", "c.py"],
        tokens={"src/a.py": 3, "src/deep/b.py": 4, "c.py": 5},
    )
    assert render_tree(tree) == (
        "src/ [7 tokens]\n"
        "  deep/ [4 tokens]\n"
        "    b.py [4 tokens]\n"
        "  a.py [3 tokens]\n"
        "c.py [5 tokens]\n"
    )
    assert tree.tokens == 12


def test_an_empty_tree_renders_as_nothing() -> None:
    assert render_tree(build_tree([])) == ""


def test_count_file_tokens_counts_exactly_and_reports_unreadable_files(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("print('hello world')\n", encoding="utf-8")
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9")
    tokenizer = get_tokenizer()
    counts, problems = count_file_tokens(tmp_path, ["a.py", "bad.txt", "gone.py"], tokenizer)
    assert counts == {"a.py": tokenizer.count("print('hello world')\n")}
    assert problems[0] == "bad.txt: not UTF-8 text (invalid byte at offset 3)"
    assert problems[1].startswith("gone.py: ")


def test_a_file_name_with_a_line_break_stays_on_one_line() -> None:
    text = render_tree(build_tree(["src/bad\nname.py", "src/ok.py"]))
    assert text == 'src/\n  "bad\\nname.py"\n  ok.py\n'


def test_a_file_name_that_is_not_utf8_is_written_escaped() -> None:
    name = b"bad\xffname.py".decode("utf-8", "surrogateescape")
    assert render_tree(build_tree([name])) == '"bad\\udcffname.py"\n'
