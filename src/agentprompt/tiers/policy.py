"""Which promotion rule the tracker follows, and the one entry point that applies it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from agentprompt.tiers.ripple import DEFAULT_HISTORY_TARGET_TOKENS, track_ripple
from agentprompt.tiers.tracker import (
    TrackedItem,
    TrackerState,
    TrackerUpdate,
    check_keys,
    first_request,
    track_thresholds,
)

__all__ = ["TierPolicy", "track"]


@dataclass(frozen=True, kw_only=True)
class TierPolicy:
    """How items move between tiers.

    The default is SPEC.md's rule as written (issue #8 asks for exactly SPEC.md's rules);
    ``ripple`` is an opt-in that serves more of each request from the provider's cache
    (``bench/BENCHMARKS.md``, "Cache tiers") at the price of rules SPEC.md does not state.
    """

    rule: Literal["threshold", "ripple"] = "threshold"
    """``threshold`` (default, SPEC.md's rule): an item's tier always follows its N;
    ``ripple`` (opt-in): move items up only into tiers already broken this request, so
    intact tiers stay cached."""
    history_target_tokens: int = DEFAULT_HISTORY_TARGET_TOKENS
    """Under ``ripple``: active history graduates into L3 on its own once it holds this
    many tokens (otherwise only when L3 breaks anyway)."""


def track(
    previous: TrackerState, items: Sequence[TrackedItem], policy: TierPolicy | None = None
) -> TrackerUpdate:
    """Apply one request's items to the tracker: the first request spreads them over
    L1–L3, later ones count, demote, promote and graduate under ``policy``."""
    check_keys(items)
    if previous.requests == 0:
        return first_request(items)
    policy = policy or TierPolicy()
    if policy.rule == "threshold":
        return track_thresholds(previous, items)
    return track_ripple(previous, items, history_target_tokens=policy.history_target_tokens)
