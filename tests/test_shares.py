"""Work on shares of a sequence in worker processes: forked workers take the items from the
memory they inherit, so an item that cannot be pickled is never sent."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import pytest

from agentprompt import shares
from agentprompt.shares import map_shares


class Unpicklable:
    """An item a worker could only get by inheriting it."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __reduce__(self) -> object:
        raise AssertionError("an item was pickled to a worker")


def total(items: Sequence[Unpicklable]) -> int:
    return sum(item.value for item in items)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers are forked on Linux")
def test_forked_workers_are_sent_numbers_and_give_results_in_share_order() -> None:
    items = [Unpicklable(n) for n in range(10)]
    parts = [[9, 8], [0], range(1, 8)]
    assert map_shares(items, parts, total, 2) == [17, 0, sum(range(1, 8))]
    assert shares._inherited == ()  # not kept once the workers are done


def test_a_failing_share_raises_and_leaves_nothing_behind() -> None:
    with pytest.raises(ZeroDivisionError):
        map_shares([1, 0], [[0], [1]], invert, 2)
    assert shares._inherited == ()


def invert(items: Sequence[int]) -> float:
    return 1 / items[0]


_SET_IN_THE_PARENT = "as imported"
"""Changed by a test before it starts a worker: a forked worker sees the change."""


def _seen_by_the_worker() -> str:
    return _SET_IN_THE_PARENT


def test_a_pool_forks_its_workers_on_linux_and_spawns_them_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "_SET_IN_THE_PARENT", "changed")
    with shares.process_pool(1) as pool:
        seen = pool.submit(_seen_by_the_worker).result(timeout=60)
    assert sys.platform.startswith("linux") == shares.FORKED
    assert seen == ("changed" if shares.FORKED else "as imported")
