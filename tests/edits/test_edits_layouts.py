"""Layouts real models wrap their blocks in: tag fences, fences of any length, the path on
the fence line or inside the fence, ``*** path`` headers, decorated paths, and code quoted
with line numbers copied from a numbered listing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.edits import parse_reply
from agentprompt.edits.apply import apply_reply

APP = (
    'import os\n\n\ndef greet(name):\n    return "hi " + name\n\n\n'
    'def main():\n    print(greet("x"))\n'
)
GREET_SR = (
    '<<<<<<< SEARCH\n    return "hi " + name\n=======\n    return f"hello {name}"\n'
    ">>>>>>> REPLACE\n"
)
DONE = APP.replace('return "hi " + name', 'return f"hello {name}"')


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(APP)
    return tmp_path


def _applies(root: Path, reply: str) -> None:
    report = apply_reply(root, reply)
    assert report.ok, report.feedback + repr(report.diagnostics)
    assert (root / "src" / "app.py").read_text() == DONE


@pytest.mark.parametrize("tag", ["source", "code", "pre", "codeblock"])
def test_search_replace_in_a_tag_fence_after_its_path(repo: Path, tag: str) -> None:
    reply = f"Here is the change:\n\nsrc/app.py\n<{tag}>python\n{GREET_SR}</{tag}>\n\nDone.\n"
    _applies(repo, reply)


def test_a_tag_fence_with_a_language_attribute(repo: Path) -> None:
    _applies(repo, f'src/app.py\n<source lang="python">\n{GREET_SR}</source>\n')


@pytest.mark.parametrize("fence", ["```", "````", "`````", "~~~~"])
def test_fences_of_any_length(repo: Path, fence: str) -> None:
    _applies(repo, f"src/app.py\n{fence}python\n{GREET_SR}{fence}\n")


def test_path_on_the_fence_line(repo: Path) -> None:
    _applies(repo, f"```python src/app.py\n{GREET_SR}```\n")


def test_path_alone_on_the_fence_line(repo: Path) -> None:
    _applies(repo, f"```src/app.py\n{GREET_SR}```\n")


@pytest.mark.parametrize(
    "first", ["src/app.py", "# src/app.py", "// src/app.py", "# File: src/app.py"]
)
def test_path_inside_the_fence_on_its_first_line(repo: Path, first: str) -> None:
    _applies(repo, f"```python\n{first}\n{GREET_SR}```\n")


def test_path_line_separated_from_the_block_by_a_fence_line(repo: Path) -> None:
    _applies(repo, f"src/app.py\n\n```python\n\n{GREET_SR}```\n")


@pytest.mark.parametrize(
    "header",
    ["*** src/app.py", "*** src/app.py ***", "**src/app.py**", "`src/app.py`", "**`src/app.py`**"],
)
def test_decorated_path_headers(repo: Path, header: str) -> None:
    _applies(repo, f"{header}\n```python\n{GREET_SR}```\n")


def test_edit_repl_with_the_path_on_the_fence_line(repo: Path) -> None:
    reply = (
        '```python src/app.py\n««« EDIT\ndef greet(name):\n    return "hi " + name\n'
        '═══════ REPL\ndef greet(name):\n    return f"hello {name}"\n»»» EDIT END\n```\n'
    )
    _applies(repo, reply)


def test_whole_file_with_the_path_on_the_fence_line(repo: Path) -> None:
    result = parse_reply(f"```python src/app.py\n{DONE}```\n")
    assert [(getattr(a, "path", ""), getattr(a, "content", "")) for a in result.actions] == [
        ("src/app.py", DONE)
    ]
    _applies(repo, f"```python src/app.py\n{DONE}```\n")


def test_whole_file_in_a_tag_fence(repo: Path) -> None:
    _applies(repo, f"src/app.py\n<source>python\n{DONE}</source>\n")


def test_a_diff_fence_naming_a_path_is_still_a_diff(repo: Path) -> None:
    reply = (
        "```diff src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n@@ -4,2 +4,2 @@\n"
        ' def greet(name):\n-    return "hi " + name\n+    return f"hello {name}"\n```\n'
    )
    _applies(repo, reply)


def test_search_lines_copied_with_line_numbers(repo: Path) -> None:
    reply = (
        'src/app.py\n<<<<<<< SEARCH\n4 | def greet(name):\n5 |     return "hi " + name\n'
        '=======\n4 | def greet(name):\n5 |     return f"hello {name}"\n>>>>>>> REPLACE\n'
    )
    _applies(repo, reply)


def test_search_lines_copied_with_colon_line_numbers(repo: Path) -> None:
    reply = (
        'src/app.py\n<<<<<<< SEARCH\n4: def greet(name):\n5:     return "hi " + name\n'
        '=======\ndef greet(name):\n    return f"hello {name}"\n>>>>>>> REPLACE\n'
    )
    _applies(repo, reply)


def test_hunk_lines_copied_with_line_numbers(repo: Path) -> None:
    reply = (
        "```diff\n--- a/src/app.py\n+++ b/src/app.py\n@@ -4,2 +4,2 @@\n"
        ' 4 | def greet(name):\n-5 |     return "hi " + name\n+    return f"hello {name}"\n```\n'
    )
    _applies(repo, reply)


def test_numbered_text_the_file_really_holds_is_kept(tmp_path: Path) -> None:
    (tmp_path / "n.yaml").write_text("1: one\n2: two\n")
    reply = "n.yaml\n<<<<<<< SEARCH\n1: one\n2: two\n=======\n1: one\n2: deux\n>>>>>>> REPLACE\n"
    assert apply_reply(tmp_path, reply).ok
    assert (tmp_path / "n.yaml").read_text() == "1: one\n2: deux\n"
