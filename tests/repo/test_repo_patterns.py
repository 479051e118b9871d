"""Include and exclude patterns: what one pattern picks, and errors that name the input the
pattern came from in each door's own words."""

from __future__ import annotations

import pytest

from agentprompt.errors import UsageError
from agentprompt.repo.discovery.patterns import matches_nothing, matching_files


def _flag(name: str) -> str:
    return "--" + name


PATHS = ("README.md", "docs/guide.md", "src/app.py", "src/docs/notes.txt", "tests/test_app.py")


def test_a_pattern_picks_the_files_it_matches_in_their_order() -> None:
    assert matching_files(PATHS, "*.md", input="globs") == ("README.md", "docs/guide.md")
    assert matching_files(PATHS, "src/*.py", input="globs") == ("src/app.py",)


def test_a_folder_pattern_picks_every_file_under_a_folder_it_matches() -> None:
    assert matching_files(PATHS, "docs/", input="globs") == ("docs/guide.md", "src/docs/notes.txt")
    assert matching_files(PATHS, "/docs/", input="globs") == ("docs/guide.md",)


def test_a_pattern_matching_nothing_is_refused_when_strict() -> None:
    with pytest.raises(UsageError) as caught:
        matching_files(PATHS, "nothing/", input="exclude")
    assert caught.value.input == "exclude" and "'nothing/'" in caught.value.problem


def test_a_pattern_matching_nothing_picks_nothing_when_not_strict() -> None:
    assert matching_files(PATHS, "nothing/", input="globs", strict=False) == ()
    assert matching_files(PATHS, "!README.md", input="globs", strict=False) == ()


def test_a_pattern_matching_nothing_names_its_input_as_each_door_does() -> None:
    error = matches_nothing("exclude", "nothing/")
    assert error.worded(_flag) == (
        "--exclude 'nothing/' matches no file of the repository; check the pattern "
        "(gitignore syntax: 'docs/', '*.md', '/CHANGES.rst')"
    )
    assert error.worded(lambda name: f'argument "{name}"').startswith(
        "argument \"exclude\" 'nothing/' matches no file"
    )
    assert str(error).startswith("exclude 'nothing/' matches no file")


def test_an_invalid_pattern_names_its_input_and_no_flag() -> None:
    with pytest.raises(UsageError) as caught:
        matching_files(PATHS, "[abc", input="globs", strict=False)
    assert caught.value.input == "globs"
    assert str(caught.value).startswith("globs: `[abc` is not a valid gitignore pattern")
    assert caught.value.worded(_flag).startswith("--globs: `[abc` is not a valid")
