"""The page's ``bridge_undo`` method: the last applied round taken back, as ``bridge undo``
does; a refusal changes nothing."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentprompt.bridge import find_session

Rpc = Callable[..., dict[str, Any]]


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".agentprompt" not in p.relative_to(root).parts
    }


def test_bridge_undo_takes_the_round_back_and_returns_the_prompt(
    rpc: Rpc, repo: Path, sample_reply: str
) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts", "src/index.ts"])
    files, state = _files(repo), find_session(repo)
    assert rpc("apply_reply", reply=sample_reply)["result"]["written"]

    preview = rpc("bridge_undo", dry_run=True)["result"]
    assert preview["dry_run"] and sorted(preview["restored"]) == ["src/index.ts", "src/utils.ts"]
    assert "+    return JSON.parse(str);" not in preview["diff"]
    assert "-    return JSON.parse(str);" in preview["diff"]
    assert _files(repo) != files

    done = rpc("bridge_undo")["result"]
    assert done["undone"] == 1 and done["rounds"] == 0 and "prompt" in done
    assert _files(repo) == files
    found = find_session(repo)
    assert found is not None and state is not None and found[1] == state[1]


def test_bridge_undo_refuses_a_file_changed_by_hand(
    rpc: Rpc, repo: Path, sample_reply: str
) -> None:
    rpc("build_prompt", task="t", files=["src/utils.ts", "src/index.ts"])
    rpc("apply_reply", reply=sample_reply)
    (repo / "src/utils.ts").write_text("mine\n")
    files, state = _files(repo), find_session(repo)
    error = rpc("bridge_undo")["error"]
    assert error["code"] == -32602
    assert "src/utils.ts changed since round 1" in error["message"]
    assert _files(repo) == files and find_session(repo) == state


def test_bridge_undo_with_nothing_to_undo(rpc: Rpc) -> None:
    rpc("build_prompt", task="t")
    error = rpc("bridge_undo")["error"]
    assert error["code"] == -32602 and "nothing to undo" in error["message"]


def test_bridge_undo_refuses_unknown_params(rpc: Rpc) -> None:
    assert rpc("bridge_undo", force=True)["error"]["code"] == -32602
