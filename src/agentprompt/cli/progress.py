"""A progress bar on stderr for scans that take longer than a second.

It appears only on a terminal and only once the work has run for a second, so quick runs,
pipes, ``--json`` output and tests never see it; it disappears when the work is done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from agentprompt.cli.output import err_console

__all__ = ["PROGRESS_DELAY", "scan_progress"]

PROGRESS_DELAY = 1.0
"""Seconds a scan runs before its progress bar appears."""


@contextmanager
def scan_progress(
    description: str, total: int | None = None, *, enabled: bool = True
) -> Iterator[Callable[[int], None]]:
    """Within the block, a function that advances the bar by N steps (of ``total``)."""
    show = enabled and err_console.is_terminal
    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )
    task = progress.add_task(description, total=total)
    started = threading.Event()

    def start() -> None:
        """Show the bar (runs on the timer's thread once the delay has passed)."""
        progress.start()
        started.set()

    timer = threading.Timer(PROGRESS_DELAY, start) if show else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    try:
        yield lambda steps: progress.advance(task, steps)
    finally:
        if timer is not None:
            timer.cancel()
            timer.join()
        if started.is_set():
            progress.stop()
