"""Which paths are tests: a test directory or a test file name. Ranking weighs them
less and the map shows them briefly.
"""

from __future__ import annotations

import re

__all__ = ["is_test_path"]


_TEST_NAME = re.compile(
    r"(^test_.*\.py$|_test\.(py|go|rb|c|cc|cpp)$|\.(test|spec)\.[cm]?[jt]sx?$|Tests?\.(java|cs)$"
    r"|_spec\.rb$|Test\.php$)"
)

_TEST_DIRS = frozenset({"tests", "test", "__tests__", "spec", "testing"})


def is_test_path(path: str) -> bool:
    """Whether ``path`` looks like a test file (a test directory or a test file name)."""
    # A plain split: ranking asks this of every file of a repository.
    parts = [p for p in path.split("/") if p and p != "."]
    return bool(parts) and (
        bool(_TEST_NAME.search(parts[-1])) or any(p in _TEST_DIRS for p in parts[:-1])
    )
