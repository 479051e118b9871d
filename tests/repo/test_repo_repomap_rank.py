"""Ranking a repository for its map: the cycle collector paused while it runs."""

from __future__ import annotations

import gc

import pytest

from agentprompt.repo.rank import paused_collection


def test_the_collector_is_paused_in_the_block_and_resumed_after() -> None:
    assert gc.isenabled()
    with paused_collection():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_resumes_after_an_error_in_the_block() -> None:
    with pytest.raises(KeyError), paused_collection():
        raise KeyError("boom")
    assert gc.isenabled()


def test_a_collector_the_caller_disabled_stays_disabled() -> None:
    gc.disable()
    try:
        with paused_collection():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
