"""The tiers package's public names: sorted, every one resolving, loaded on first use."""

from __future__ import annotations

import subprocess
import sys

import agentprompt.tiers


def test_tiers_all_is_sorted_and_every_name_resolves() -> None:
    names = agentprompt.tiers.__all__
    # isort style, as ruff keeps it: CONSTANTS, then Classes, then functions
    assert names == sorted(
        names, key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n)
    )
    assert [n for n in names if not hasattr(agentprompt.tiers, n)] == []


def test_importing_the_package_loads_no_submodule() -> None:
    code = (
        "import sys, agentprompt.tiers; "
        "print(sorted(m for m in sys.modules if m.startswith('agentprompt.tiers.')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
