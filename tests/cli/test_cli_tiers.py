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


def test_the_default_rule_is_spec_literal_and_ripple_is_opt_in(
    run: Callable[..., Result], repo: Path
) -> None:
    """Four requests without --rule promote the L3 items at N = 6 (SPEC.md's rule); the same
    requests with --rule ripple move nothing, L2 being intact."""
    for _ in range(4):
        default = tiers(run, repo, "--file", "src/app/core.py")
    assert {c["reason"] for c in default["changes"]} == {"promoted"}  # type: ignore[union-attr]
    tiers(run, repo, "--reset")
    for _ in range(4):
        ripple = tiers(run, repo, "--file", "src/app/core.py", "--rule", "ripple")
    assert ripple["changes"] == [] and ripple["requests"] == 4


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


def test_show_with_a_damaged_change_record_is_bad_input(
    run: Callable[..., Result], repo: Path
) -> None:
    """A stored change with an unknown reason used to crash the terminal view."""
    from agentprompt.store import Store, default_store_path

    with Store(default_store_path(repo)) as store:
        bad = {"key": "a", "before": "L1", "after": "L9", "reason": "bogus"}
        store.create_session("tiers", {"requests": 1, "items": [], "changes": [bad]})
    before = snapshot_tree(repo)
    for args in (("--show",), ()):
        result = run("tiers", "--root", str(repo), *args)
        assert result.code == 2 and "changes/0/after" in result.err and "--reset" in result.err
        assert "Traceback" not in result.err
    assert snapshot_tree(repo) == before


def test_a_bad_file_on_the_first_request_writes_nothing(
    run: Callable[..., Result], repo: Path
) -> None:
    before = snapshot_tree(repo)
    result = run("tiers", "--root", str(repo), "--file", "missing.py")
    assert result.code == 2 and "missing.py" in result.err and "Traceback" not in result.err
    assert snapshot_tree(repo) == before and not (repo / ".agentprompt").exists()
