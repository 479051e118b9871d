"""The agent package's public names: sorted, complete, and loaded on first use."""

from __future__ import annotations

import subprocess
import sys

import agentprompt.agent


def test_agent_all_is_sorted_and_every_name_resolves() -> None:
    names = agentprompt.agent.__all__
    # isort style, as ruff keeps it: CONSTANTS, then Classes, then functions
    assert names == sorted(
        names, key=lambda n: (0 if n.isupper() else 1 if n[0].isupper() else 2, n)
    )
    assert [n for n in names if not hasattr(agentprompt.agent, n)] == []


def test_importing_the_todo_list_does_not_load_the_session() -> None:
    code = "import sys, agentprompt.todos; print('agentprompt.agent.session' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_session_package_exports_what_the_agent_package_reexports_of_it() -> None:
    import agentprompt.agent.session as session

    assert [n for n in session.__all__ if not hasattr(session, n)] == []
    assert set(session.__all__) <= set(agentprompt.agent.__all__)
    for name in session.__all__:
        assert getattr(agentprompt.agent, name) is getattr(session, name)
