"""Folding a tree: folders outside the open ones are one line with their file count and
kinds."""

from __future__ import annotations

from agentprompt.repo.map import build_tree, fold_tree, folder_listing, folders_holding, render_tree

PATHS = [
    "src/app/main.py",
    "src/app/util.py",
    "src/lib/a.py",
    "docs/index.rst",
    "docs/api.rst",
    "docs/logo.svg",
    "docs/Makefile",
    "README.md",
]


def test_a_folder_not_kept_open_is_one_line_with_its_count_and_kinds() -> None:
    tree = fold_tree(build_tree(PATHS), {"src", "src/app"})
    text = render_tree(tree)
    assert "docs/ (folded: 4 files, 2 .rst, 1 .svg, 1 other)\n" in text
    assert "  lib/ (folded: 1 file, 1 .py)\n" in text
    assert "    main.py\n" in text and "index.rst" not in text


def test_the_root_s_files_are_always_listed() -> None:
    text = render_tree(fold_tree(build_tree(PATHS), ()))
    assert text.endswith("README.md\n")
    assert "src/ (folded: 3 files, 3 .py)\n" in text


def test_a_folder_inside_a_folded_one_is_folded_with_it() -> None:
    text = render_tree(fold_tree(build_tree(PATHS), {"src/app"}))
    assert "main.py" not in text


def test_opening_a_folder_adds_its_listing() -> None:
    listing = folder_listing(build_tree(PATHS), "src")
    assert listing == "  app/ (folded: 2 files, 2 .py)\n  lib/ (folded: 1 file, 1 .py)\n"
    assert folder_listing(build_tree(PATHS), "nowhere") == ""


def test_the_folders_holding_a_file_are_all_its_ancestors() -> None:
    assert folders_holding(["src/app/main.py", "README.md"]) == {"src", "src/app"}
