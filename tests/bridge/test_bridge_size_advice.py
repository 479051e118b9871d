"""The size warning's advice: the largest folders the task does not need."""

from __future__ import annotations

from agentprompt.bridge.sizes import _unneeded_folders


def test_the_advice_names_large_folders_holding_no_needed_file() -> None:
    shown = [
        ("src/app/core.py", "x" * 4_000),
        ("src/app/util.py", "x" * 1_000),
        ("docs/guide/a.rst", "x" * 3_000),
        ("docs/guide/b.rst", "x" * 3_000),
        ("tests/test_core.py", "x" * 2_000),
        ("setup.py", "x" * 100),
    ]
    assert _unneeded_folders(shown, ["src/app/core.py"]) == ["docs/", "tests/"]


def test_a_folder_holding_a_needed_file_is_never_suggested() -> None:
    shown = [("sympy/core/a.py", "x" * 9_000), ("sympy/polys/rings.py", "x" * 1_000)]
    assert _unneeded_folders(shown, ["sympy/polys/rings.py"]) == ["sympy/core/"]
