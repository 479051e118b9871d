"""A progress bar on stderr for scans that take longer than a second.

It appears only on a terminal and only once the work has run for a second, so quick runs,
pipes, ``--json`` output and tests never see it; it disappears when the work is done.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from agentprompt.cli._output import err_console

__all__ = ["PROGRESS_DELAY", "ScanBar", "scan_progress"]

PROGRESS_DELAY = 1.0
"""Seconds a scan runs before its progress bar appears."""


@dataclass(frozen=True, kw_only=True)
class ScanBar:
    """The handle :func:`scan_progress` gives: call it to advance, or set the count."""

    progress: Progress
    """The rich progress display (shown only once the delay has passed)."""
    task: TaskID
    """Its one task."""

    def __call__(self, steps: int) -> None:
        """Advance the bar by ``steps``."""
        self.progress.advance(self.task, steps)

    def update(self, done: int, total: int, description: str | None = None) -> None:
        """Show ``done`` of ``total`` (a phase may start its own count and name)."""
        if description is None:
            self.progress.update(self.task, completed=done, total=total)
        else:
            self.progress.update(self.task, completed=done, total=total, description=description)


@contextmanager
def scan_progress(
    description: str, total: int | None = None, *, enabled: bool = True
) -> Iterator[ScanBar]:
    """Within the block, a :class:`ScanBar`: call it to advance by N steps (of ``total``),
    or ``update(done, total)`` it."""
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
        yield ScanBar(progress=progress, task=task)
    finally:
        if timer is not None:
            timer.cancel()
            timer.join()
        if started.is_set():
            progress.stop()
