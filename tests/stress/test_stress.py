"""The adversarial probe's shapes at reduced counts (``bench/stress_bench.py`` runs the
full ones): no lost session update, no mixed tree after kill -9 or a full disk, no planted
secret in a prompt, no mount path leaked in another spelling."""

from __future__ import annotations

import pytest

from .harness import (
    concurrent_applies,
    enospc_at_each_write,
    kill_during_apply,
    planted_secrets,
    workflow_spellings,
)

pytestmark = pytest.mark.slow


def test_concurrent_applies_on_one_session_lose_no_update() -> None:
    outcome = concurrent_applies(4, parallel=4)
    assert outcome.bad == 0, outcome.examples
    assert outcome.notes.get("exit 0") == 4, outcome.line()


def test_kill_9_during_an_apply_then_recover_leaves_no_mixed_tree() -> None:
    outcome = kill_during_apply(2, files=40)
    assert outcome.bad == 0, outcome.examples


def test_a_full_disk_at_each_write_leaves_no_mixed_tree() -> None:
    outcome = enospc_at_each_write(files=4)
    assert outcome.bad == 0, outcome.examples
    assert outcome.runs > 10  # the fault was tried at many positions


def test_planted_secrets_reach_no_prompt() -> None:
    outcome = planted_secrets()
    assert outcome.bad == 0, outcome.examples


def test_workflow_path_spellings_never_leak() -> None:
    outcome = workflow_spellings()
    assert outcome.bad == 0, outcome.examples
