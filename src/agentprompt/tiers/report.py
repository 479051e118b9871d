"""One tiered request for a repository, tracked across calls in the project's store: what
``agentprompt tiers`` and the web page's breakdown show.

This is an edge (it reads the repository and the store, and writes the store); the tracking,
the assembly and the cache accounting it calls are pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agentprompt.store import Store, default_store_path
from agentprompt.tiers._request import TieredRequest, tiered_request
from agentprompt.tiers.breakdown import ContextBreakdown, get_context_breakdown
from agentprompt.tiers.context import DEFAULT_MAP_TOKENS, repository_context
from agentprompt.tiers.persist import read_stored, save_tracker
from agentprompt.tiers.policy import TierPolicy
from agentprompt.tiers.served import CacheUse, ServedTally, cache_use
from agentprompt.tokens import shared_counter

__all__ = ["TierReport", "repository_request"]


@dataclass(frozen=True, kw_only=True)
class TierReport:
    """A tracked request: its prompt and tracker update, its tokens per tier, which cache
    blocks it reuses or rewrites, and the running share the cache served."""

    request: TieredRequest
    """The prompt and how the tracker moved to make it."""
    breakdown: ContextBreakdown
    """Tokens per tier and per item."""
    cache: CacheUse
    """Each cached block reused or rewritten, against the blocks the last request left."""
    tally: ServedTally
    """What the cache served since tracking began, this request included."""
    warnings: tuple[str, ...] = ()
    """Problems with the stored state that were repaired (the tiers were placed afresh)."""
    saved: bool = True
    """Whether the request was recorded (the web page previews without recording)."""


def repository_request(
    root: Path,
    *,
    files: Sequence[str] = (),
    task: str = "",
    map_tokens: int = DEFAULT_MAP_TOKENS,
    model: str | None = None,
    policy: TierPolicy | None = None,
    save: bool = True,
) -> TierReport:
    """Make one tiered request over ``root`` against the stored tracker and, with ``save``,
    record it as the tracker's latest."""
    store_path = default_store_path(root)
    stored = read_stored(root)
    counter = shared_counter(model)
    context = repository_context(
        root, files=files, user=task, task=task, map_tokens=map_tokens, model=model
    )
    request = tiered_request(context, stored.state, counter=counter, root=root, policy=policy)
    use = cache_use(request.prompt.composition, stored.cached)
    tally = stored.tally.add(use)
    if save:
        with Store(store_path) as store:
            save_tracker(store, request.update.state, request.update.changes, use=use, tally=tally)
    return TierReport(
        request=request,
        breakdown=get_context_breakdown(request.prompt, counter=counter),
        cache=use,
        tally=tally,
        warnings=(*stored.warnings, *request.update.warnings),
        saved=save,
    )
