"""A repository's items: map entries for files not in context, full text for the rest."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.errors import UsageError
from agentprompt.messages import Message
from agentprompt.tiers import (
    assemble_tiers,
    repository_context,
    track,
)
from agentprompt.tiers.tracker import TrackerState


@pytest.fixture
def small_repo(tmp_path: Path) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "core.py").write_text(
        "class Engine:\n    def run(self) -> int:\n        return 1\n"
    )
    (tmp_path / "pkg" / "app.py").write_text(
        "from pkg.core import Engine\n\ndef main():\n    Engine().run()\n"
    )
    return tmp_path


def test_every_file_has_a_map_entry_when_none_is_in_context(small_repo: Path) -> None:
    context = repository_context(small_repo, use_cache=False)
    keys = [i.key for i in context.items]
    assert keys == ["symbols:pkg/app.py", "symbols:pkg/core.py"]
    assert context.legend.startswith("# ")
    assert "Role" in context.system


def test_a_file_in_context_has_no_map_entry_in_any_tier(small_repo: Path) -> None:
    context = repository_context(small_repo, files=["pkg/core.py"], use_cache=False)
    keys = [i.key for i in context.items]
    assert "symbols:pkg/core.py" not in keys and "file:pkg/core.py" in keys
    prompt = assemble_tiers(context, track(TrackerState(), context.items).state)
    everything = "\n".join(m.text for m in prompt.messages)
    assert "\npkg/core.py:\n" not in everything  # no map block headed by the file
    assert "pkg/core.py\n```\nclass Engine:" in everything  # its full text instead


def test_history_becomes_items_after_the_files(small_repo: Path) -> None:
    history = [Message(role="user", content="hi"), Message(role="assistant", content="hello")]
    context = repository_context(small_repo, history=history, use_cache=False)
    assert [i.key for i in context.items][-2:] == ["history:0", "history:1"]


def test_a_tool_message_in_history_is_refused(small_repo: Path) -> None:
    history = [Message(role="tool", content="out", tool_call_id="t1")]
    with pytest.raises(UsageError, match="role 'tool'"):
        repository_context(small_repo, history=history, use_cache=False)


@pytest.mark.parametrize("name", ["missing.py", "../outside.py"])
def test_a_file_that_cannot_be_read_is_a_clear_error(small_repo: Path, name: str) -> None:
    with pytest.raises(UsageError, match="cannot be put in the context"):
        repository_context(small_repo, files=[name], use_cache=False)


def test_a_binary_file_is_refused(small_repo: Path) -> None:
    (small_repo / "blob.bin").write_bytes(b"\0\1\2")
    with pytest.raises(UsageError, match="binary"):
        repository_context(small_repo, files=["blob.bin"], use_cache=False)
