"""Worker processes, started one way everywhere (:func:`process_pool`), and work on shares
of a large sequence in them, sending the workers only which items to take: on Linux they
are forked and read the items from the memory they inherit (120 MB of file texts are not
pickled through pipes); elsewhere each share is sent."""

from __future__ import annotations

import multiprocessing
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

__all__ = ["FORKED", "map_shares", "process_pool"]

T = TypeVar("T")
R = TypeVar("R")

FORKED = sys.platform.startswith("linux")
"""Whether workers are forked (Linux), inheriting the parent's memory, or spawned afresh
(elsewhere: forking a process that has started threads is unsafe on macOS)."""

_inherited: Sequence[Any] = ()
"""The items being worked on, set before the pool forks its workers so they inherit them."""
_one_at_a_time = threading.Lock()
"""Held while :data:`_inherited` is in use (two threads mapping at once take turns)."""


def _start_method() -> BaseContext:
    return multiprocessing.get_context("fork" if FORKED else "spawn")


def process_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` worker processes, started as every pool of agentprompt's is
    (forked where :data:`FORKED`, else spawned). The caller shuts it down."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=_start_method())


def _on_inherited(job: tuple[Callable[[list[Any]], Any], Sequence[int]]) -> Any:
    """``work`` on the inherited items at ``numbers``, in a forked worker."""
    work, numbers = job
    return work([_inherited[n] for n in numbers])


def map_shares(
    items: Sequence[T],
    shares: Sequence[Sequence[int]],
    work: Callable[[list[T]], R],
    workers: int,
) -> list[R]:
    """``work`` on each share of ``items`` (the items at those numbers), in ``workers``
    processes: the results in the order of ``shares``. ``work`` must be a module-level
    function (or a ``functools.partial`` of one): it is sent to the workers by name."""
    global _inherited
    with _one_at_a_time:
        _inherited = items  # before the pool forks its workers (on the first task)
        try:
            with process_pool(workers) as pool:
                if FORKED:
                    done = pool.map(_on_inherited, [(work, share) for share in shares])
                else:
                    done = pool.map(work, [[items[n] for n in share] for share in shares])
                return list(done)
        finally:
            _inherited = ()
