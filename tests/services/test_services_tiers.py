"""The cache tiers service: tracked requests, the unrecorded breakdown, the stored tracker,
forgetting it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentprompt.services import (
    BridgeSessions,
    StartRequest,
    TierRequest,
    TierService,
    UnknownTierRule,
    Workspace,
)


@pytest.fixture
def tiers(example: Path) -> TierService:
    """The tiers of a fresh copy of the bridge example repository."""
    return TierService(Workspace(example))


def test_a_request_is_recorded_and_the_next_one_follows_it(tiers: TierService) -> None:
    first = tiers.request(TierRequest(files=("src/utils.ts",), task="Fix it."))
    assert first.saved and first.request.update.state.requests == 1
    second = tiers.request(TierRequest(files=("src/utils.ts",), task="Fix it."))
    assert second.request.update.state.requests == 2
    assert tiers.stored().state.requests == 2


def test_the_rule_places_the_items(tiers: TierService) -> None:
    report = tiers.request(TierRequest(rule="threshold"))
    assert report.request.update.state.rule == "threshold"


def test_an_unknown_rule_names_the_input(tiers: TierService) -> None:
    with pytest.raises(UnknownTierRule) as caught:
        tiers.request(TierRequest(rule="sideways"))
    assert caught.value.worded(lambda name: f"--{name}").startswith(
        "--rule: 'sideways' is not a tier rule; use one of deferred, settle"
    )


def test_the_breakdown_is_not_recorded(tiers: TierService) -> None:
    preview = tiers.breakdown(["src/utils.ts"], "Fix it.")
    assert (preview.files, preview.task, preview.report.saved) == (
        ("src/utils.ts",),
        "Fix it.",
        False,
    )
    assert tiers.stored().state.requests == 0


def test_the_breakdown_defaults_to_the_bridge_sessions_files_and_task(
    tiers: TierService,
) -> None:
    BridgeSessions(tiers.workspace).start(StartRequest(task="Tidy up", paths=("src/utils.ts",)))
    preview = tiers.breakdown()
    assert (preview.files, preview.task) == (("src/utils.ts",), "Tidy up")
    assert tiers.breakdown(files=[]).files == ()


def test_without_a_session_the_breakdown_has_no_files_and_no_task(tiers: TierService) -> None:
    preview = tiers.breakdown()
    assert (preview.files, preview.task) == ((), "")


def test_reading_and_forgetting_create_no_state_database(tiers: TierService) -> None:
    assert tiers.stored().state.requests == 0
    assert tiers.reset() is False
    assert not tiers.workspace.state_path.exists()


def test_reset_forgets_the_tracker(tiers: TierService) -> None:
    tiers.request(TierRequest())
    assert tiers.reset() is True
    assert tiers.stored().state.requests == 0
    assert tiers.reset() is False
