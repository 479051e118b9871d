"""Secret screening of everything a bridge prompt includes, spread over the cores when much
text is headed in (a whole repository packed at once).

Each worker runs the repository engine's own detect-secrets scan
(:func:`agentprompt.repo.secrets.scan_texts`) on a share of the files, so the findings are
exactly those of a scan in one process.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from agentprompt.repo.secrets import SecretFinding, SecretScreen, scan_texts

__all__ = ["PARALLEL_SCREEN_THRESHOLD", "screen_prompt_texts"]

PARALLEL_SCREEN_THRESHOLD = 300
"""Fewer files than this are scanned in-process (starting workers would cost more)."""
_CHUNK = 64


def _scan_chunk(items: list[tuple[str, str]]) -> dict[str, tuple[SecretFinding, ...]]:
    """Scan one share of the files in a worker."""
    return scan_texts(items)


def screen_prompt_texts(
    items: Sequence[tuple[str, str]], *, workers: int | None = None
) -> SecretScreen:
    """Which ``(path, text)`` pairs may go into the prompt; a path with a likely secret is
    withheld (see :func:`agentprompt.repo.secrets.screen_texts`)."""
    count = workers if workers is not None else (os.cpu_count() or 1)
    if count <= 1 or len(items) < PARALLEL_SCREEN_THRESHOLD:
        found = scan_texts(items)
    else:
        # Largest texts first, in small chunks, so no worker is left with a long tail.
        ordered = sorted(items, key=lambda item: -len(item[1]))
        chunks = [ordered[i : i + _CHUNK] for i in range(0, len(ordered), _CHUNK)]
        method = "fork" if sys.platform.startswith("linux") else "spawn"
        found = {}
        with ProcessPoolExecutor(
            max_workers=count, mp_context=multiprocessing.get_context(method)
        ) as pool:
            for part in pool.map(_scan_chunk, chunks):
                found.update(part)
    allowed: list[str] = []
    withheld: list[str] = []
    findings: list[SecretFinding] = []
    for path, _text in items:
        hits = found.get(path, ())
        findings.extend(hits)
        (withheld if hits else allowed).append(path)
    return SecretScreen(allowed=tuple(allowed), withheld=tuple(withheld), findings=tuple(findings))
