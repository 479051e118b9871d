"""The agent and ally profiles of inspect: the session's first call of a turn."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from agentprompt.profiles import InspectRequest, inspect_profile

NOW = dt.datetime(2026, 1, 2, 3, 4, 5)


def _request(tmp_path: Path) -> InspectRequest:
    return InspectRequest(root=tmp_path, task="Add a flag.", now=NOW)


def test_agent_profile_keeps_the_date_out_of_the_first_message(tmp_path: Path) -> None:
    messages = inspect_profile("agent", _request(tmp_path)).composition.messages
    assert [m.role for m in messages] == ["system", "user", "system", "system"]
    assert "2026-01-02 03:04:05" not in messages[0].text
    assert "- Current Date: 2026-01-02 03:04:05" in messages[2].text
    assert messages[0].cache_breakpoint and messages[1].cache_breakpoint
    assert messages[3].text.startswith("<system-reminder>\nNote: The todo list is currently empty.")


def test_ally_profile_regenerates_the_date_into_the_first_message(tmp_path: Path) -> None:
    messages = inspect_profile("ally", _request(tmp_path)).composition.messages
    assert [m.role for m in messages] == ["system", "user", "system"]
    assert "- Current Date: 2026-01-02 03:04:05" in messages[0].text
    assert not messages[0].cache_breakpoint
    assert "<system-reminder>" in messages[2].text


def test_both_profiles_carry_the_tool_usage_guidance(tmp_path: Path) -> None:
    for name in ("agent", "ally"):
        text = inspect_profile(name, _request(tmp_path)).composition.messages[0].text
        assert "## Tool Usage Guidance" in text
        assert text.startswith("You are Ally, an AI pair programming assistant.")


def test_agent_profiles_first_message_is_the_same_on_another_day(tmp_path: Path) -> None:
    later = InspectRequest(root=tmp_path, task="Another task.", now=NOW + dt.timedelta(days=1))
    one = inspect_profile("agent", _request(tmp_path)).composition.messages[0]
    two = inspect_profile("agent", later).composition.messages[0]
    assert one.text == two.text
