"""``agentprompt tiers`` (tracker state and changes between requests, kept in the store, the
cache blocks each request reuses or rewrites, the running served share) and
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


def test_the_default_rule_is_deferred_and_moves_nothing_unchanged(
    run: Callable[..., Result], repo: Path
) -> None:
    """Four unchanged requests without --rule move nothing after the first and reuse every
    cache block; the threshold rule promotes the L3 items at N = 6 and rewrites them."""
    for _ in range(4):
        default = tiers(run, repo, "--file", "src/app/core.py")
    assert default["rule"] == "deferred" and default["changes"] == []
    cache = default["cache"]
    assert {b["status"] for b in cache["blocks"]} == {"reused"}  # type: ignore[index]
    assert cache["written"] == 0 and cache["running"]["requests"] == 4  # type: ignore[index]
    tiers(run, repo, "--reset")
    for _ in range(4):
        literal = tiers(run, repo, "--file", "src/app/core.py", "--rule", "threshold")
    assert {c["reason"] for c in literal["changes"]} == {"promoted"}  # type: ignore[union-attr]
    assert "rewritten" in {b["status"] for b in literal["cache"]["blocks"]}  # type: ignore[index]


def test_an_edited_file_is_rewritten_into_l3_and_its_tier_is_rewritten(
    run: Callable[..., Result], repo: Path
) -> None:
    """Under settle, an edited file leaves its tier (rewritten anyway) for L3; edited again
    at the next request, it is being worked on and waits in active."""
    first = tiers(run, repo, "--file", "src/app/core.py", "--rule", "settle")
    placed = {c["key"]: c["after"] for c in first["changes"]}  # type: ignore[union-attr]
    tiers(run, repo, "--file", "src/app/core.py", "--rule", "settle")
    (repo / "src" / "app" / "core.py").write_text("VALUE = 3\n")
    data = tiers(run, repo, "--file", "src/app/core.py", "--rule", "settle")
    change = {"key": "file:src/app/core.py", "before": placed["file:src/app/core.py"]}
    assert {**change, "after": "L3", "reason": "demoted"} in data["changes"]  # type: ignore[operator]
    status = {b["tier"]: b["status"] for b in data["cache"]["blocks"]}  # type: ignore[index]
    assert status["L0"] == "reused" and status["L3"] == "rewritten"
    assert 0 < data["cache"]["running"]["share"] < 1  # type: ignore[index]
    (repo / "src" / "app" / "core.py").write_text("VALUE = 4\n")
    again = tiers(run, repo, "--file", "src/app/core.py", "--rule", "settle")
    hot = {"key": "file:src/app/core.py", "before": "L3", "after": "active", "reason": "demoted"}
    assert hot in again["changes"]  # type: ignore[operator]


def test_a_small_edit_keeps_the_cached_copy_and_carries_the_change(
    run: Callable[..., Result], repo: Path
) -> None:
    """Under the default rule a one-line edit to a file in a cached tier rewrites no block:
    the active tier carries the diff, and both views say how many tokens it carries."""
    table = repo / "src" / "app" / "table.py"
    table.write_text("".join(f"ROW_{i} = {i}\n" for i in range(80)))
    for _ in range(2):
        tiers(run, repo, "--file", "src/app/table.py")
    table.write_text(table.read_text().replace("ROW_40 = 40", "ROW_40 = 41"))
    data = tiers(run, repo, "--file", "src/app/table.py")
    assert {b["status"] for b in data["cache"]["blocks"]} == {"reused"}  # type: ignore[index]
    active = next(t for t in data["tiers"] if t["tier"] == "active")  # type: ignore[union-attr]
    notes = [i for i in active["items"] if i["kind"] == "changes"]
    assert [n["key"] for n in notes] == ["changes:file:src/app/table.py"]
    assert data["carried"] == notes[0]["tokens"] > 0
    shown = run("tiers", "--root", str(repo), "--file", "src/app/table.py")
    assert shown.code == 0 and "Carried as changes in active:" in shown.out


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
    args = ("tiers", "--root", str(repo), "--file", "src/app/core.py", "--rule", "threshold")
    run(*args)
    (repo / "src" / "app" / "core.py").write_text("VALUE = 9\n")
    result = run(*args)
    assert "demoted" in result.out and "Tokens per tier" in result.out
    assert "rewritten" in result.out and "Served from the cache so far" in result.out
    for _ in range(3):  # unchanged three times: graduates back into L3
        result = run(*args)
    assert "promoted" in result.out and "active" in result.out and "reused" in result.out


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


def test_damaged_stored_state_warns_and_is_rebuilt(run: Callable[..., Result], repo: Path) -> None:
    from agentprompt.store import Store, default_store_path

    with Store(default_store_path(repo)) as store:
        store.create_session("tiers", {"items": "not a list", "changes": []})
    result = run("tiers", "--root", str(repo), "--json")
    assert result.code == 0 and "Traceback" not in result.err
    assert "warning: the stored cache-tier state is damaged (items:" in result.err
    data = json.loads(result.out)
    assert data["requests"] == 1 and data["warnings"]
    assert {c["reason"] for c in data["changes"]} == {"distributed"}
    assert tiers(run, repo)["requests"] == 2 and tiers(run, repo)["warnings"] == []


def test_inspect_ac_with_a_damaged_stored_state_warns_and_places_afresh(
    run: Callable[..., Result], repo: Path
) -> None:
    from agentprompt.store import Store, default_store_path

    with Store(default_store_path(repo)) as store:
        store.create_session("tiers", {"items": "not a list", "changes": []})
    result = run("inspect", "--profile", "ac", "--root", str(repo), "--task", "Fix it", "--json")
    assert result.code == 0, result.err
    assert "warning: the stored cache-tier state is damaged (items:" in result.err
    assert json.loads(result.out)["messages"]


def test_a_record_that_is_not_json_warns_and_is_rebuilt(
    run: Callable[..., Result], repo: Path
) -> None:
    import sqlite3

    from agentprompt.store import Store, default_store_path

    with Store(default_store_path(repo)) as store:
        store.create_session("tiers", {"items": []})
    with sqlite3.connect(default_store_path(repo)) as db:
        db.execute("UPDATE sessions SET state = '{not json' WHERE kind = 'tiers'")
    result = run("tiers", "--root", str(repo))
    assert result.code == 0 and "damaged state (not JSON)" in result.err
    assert "Traceback" not in result.err
    assert tiers(run, repo)["requests"] == 2


def test_switching_rules_warns_and_places_the_tiers_afresh(
    run: Callable[..., Result], repo: Path
) -> None:
    tiers(run, repo, "--file", "src/app/core.py")
    tiers(run, repo, "--file", "src/app/core.py")
    result = run("tiers", "--root", str(repo), "--json", "--rule", "ripple")
    assert result.code == 0 and "placed under the 'deferred' rule, not 'ripple'" in result.err
    data = json.loads(result.out)
    assert data["rule"] == "ripple" and data["warnings"]
    assert {c["reason"] for c in data["changes"]} == {"distributed"}


def test_inspect_ac_table_shows_each_sections_tier_and_tier_totals(
    run: Callable[..., Result], repo: Path
) -> None:
    result = run("inspect", "--profile", "ac", "--root", str(repo), "--task", "Fix it")
    assert result.code == 0, result.err
    assert "┃ tier" in result.out and "Tokens per cache tier: L0 " in result.out


def test_show_with_a_damaged_change_record_warns(run: Callable[..., Result], repo: Path) -> None:
    """A stored change with an unknown reason used to crash the terminal view; --show names
    the damage and changes nothing."""
    from agentprompt.store import Store, default_store_path

    with Store(default_store_path(repo)) as store:
        bad = {"key": "a", "before": "L1", "after": "L9", "reason": "bogus"}
        store.create_session("tiers", {"requests": 1, "items": [], "changes": [bad]})
    before = snapshot_tree(repo)
    result = run("tiers", "--root", str(repo), "--show")
    assert result.code == 0 and "changes/0/after" in result.err and "Traceback" not in result.err
    assert snapshot_tree(repo) == before
    result = run("tiers", "--root", str(repo))
    assert result.code == 0 and "changes/0/after" in result.err
    assert tiers(run, repo, "--show")["warnings"] == []


def test_a_bad_file_on_the_first_request_writes_nothing(
    run: Callable[..., Result], repo: Path
) -> None:
    before = snapshot_tree(repo)
    result = run("tiers", "--root", str(repo), "--file", "missing.py")
    assert result.code == 2 and "missing.py" in result.err and "Traceback" not in result.err
    assert snapshot_tree(repo) == before and not (repo / ".agentprompt").exists()
