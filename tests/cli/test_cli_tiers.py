"""``agentprompt tiers`` (tracker state and changes between requests, kept in the store) and
``agentprompt inspect --profile ac``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from .conftest import Result, snapshot_tree


def tiers(run: Callable[..., Result], root: Path, *args: str) -> dict[str, object]:
    result = run("tiers", "--root", str(root), "--json", *args)
    assert result.code == 0, result.err
    data: dict[str, object] = json.loads(result.out)
    return data


def test_first_request_distributes_and_later_ones_promote(
    run: Callable[..., Result], repo: Path
) -> None:
    first = tiers(run, repo, "--file", "src/app/core.py", "--rule", "threshold")
    assert {c["reason"] for c in first["changes"]} == {"distributed"}  # type: ignore[union-attr]
    assert first["requests"] == 1
    for _ in range(3):
        later = tiers(run, repo, "--file", "src/app/core.py", "--rule", "threshold")
    reasons = {c["reason"] for c in later["changes"]}  # type: ignore[union-attr]
    assert reasons == {"promoted"} and later["requests"] == 4


def test_an_edited_file_is_demoted(run: Callable[..., Result], repo: Path) -> None:
    tiers(run, repo, "--file", "src/app/core.py")
    (repo / "src" / "app" / "core.py").write_text("VALUE = 3\n")
    data = tiers(run, repo, "--file", "src/app/core.py")
    assert {
        "key": "file:src/app/core.py",
        "before": "L1",
        "after": "active",
        "reason": "demoted",
    } in (
        data["changes"]  # type: ignore[operator]
    )


def test_show_reads_the_state_without_a_request(run: Callable[..., Result], repo: Path) -> None:
    tiers(run, repo)
    shown = tiers(run, repo, "--show")
    assert shown["requests"] == 1
    assert tiers(run, repo, "--show")["requests"] == 1


def test_reset_forgets_the_state(run: Callable[..., Result], repo: Path) -> None:
    tiers(run, repo)
    assert tiers(run, repo, "--reset") == {"reset": True}
    assert tiers(run, repo, "--show")["requests"] == 0


def test_terminal_view_names_promotions_and_demotions(
    run: Callable[..., Result], repo: Path
) -> None:
    run("tiers", "--root", str(repo), "--file", "src/app/core.py")
    (repo / "src" / "app" / "core.py").write_text("VALUE = 9\n")
    result = run("tiers", "--root", str(repo), "--file", "src/app/core.py")
    assert "demoted" in result.out and "Tokens per tier" in result.out
    for _ in range(3):  # unchanged three times: graduates back into L3
        result = run("tiers", "--root", str(repo), "--file", "src/app/core.py")
    assert "promoted" in result.out and "active" in result.out


def test_bad_file_is_bad_input_and_leaves_the_state(run: Callable[..., Result], repo: Path) -> None:
    tiers(run, repo)
    before = snapshot_tree(repo)
    result = run("tiers", "--root", str(repo), "--file", "../escape.py")
    assert result.code == 2 and "Traceback" not in result.err
    assert snapshot_tree(repo) == before


def test_inspect_ac_profile_shows_the_tiered_messages(
    run: Callable[..., Result], repo: Path
) -> None:
    result = run("inspect", "--profile", "ac", "--root", str(repo), "--task", "Fix it", "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["messages"][0]["role"] == "system"
    assert data["messages"][-1] == {"role": "user", "content": "Fix it"}
    ids = [s["id"] for s in data["sections"]]
    assert ids[0] == "L0/system" and any(i.startswith("L1/symbols:") for i in ids)
    assert data["breakpoints"]


def test_inspect_ac_does_not_write_the_tracker(run: Callable[..., Result], repo: Path) -> None:
    run("inspect", "--profile", "ac", "--root", str(repo))
    assert not (repo / ".agentprompt" / "state.db").exists()


def test_damaged_stored_state_is_bad_input_naming_the_fix(
    run: Callable[..., Result], repo: Path
) -> None:
    from agentprompt.store import Store, default_store_path

    with Store(default_store_path(repo)) as store:
        store.create_session("tiers", {"items": "not a list", "changes": []})
    result = run("tiers", "--root", str(repo))
    assert result.code == 2 and "--reset" in result.err and "Traceback" not in result.err
    assert tiers(run, repo, "--reset") == {"reset": True}
    assert tiers(run, repo)["requests"] == 1


def test_inspect_ac_table_shows_each_sections_tier_and_tier_totals(
    run: Callable[..., Result], repo: Path
) -> None:
    result = run("inspect", "--profile", "ac", "--root", str(repo), "--task", "Fix it")
    assert result.code == 0, result.err
    assert "┃ tier" in result.out and "Tokens per cache tier: L0 " in result.out
