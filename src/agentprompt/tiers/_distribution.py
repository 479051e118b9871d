"""The first request's distribution: items spread greedily over L1–L3 by token count.

With no history of stability to go on, the first request still caches everything: the
largest item goes to the tier holding the fewest tokens so far, then the next largest, and
so on, so the three tiers end up about the same size and a later change to one item
invalidates only about a third of the cached context.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

__all__ = ["FIRST_TIERS", "distribute"]

FIRST_TIERS: tuple[Literal["L1", "L2", "L3"], ...] = ("L1", "L2", "L3")
"""The tiers the first request fills (L0 is earned, never given)."""


def distribute(items: Sequence[tuple[str, int]]) -> dict[str, Literal["L1", "L2", "L3"]]:
    """Each item's tier: largest first, into the tier with the fewest tokens so far.

    ``items`` are ``(key, tokens)`` pairs. Ties go to the item given first and to the more
    stable tier, so the result depends only on the input.
    """
    totals = dict.fromkeys(FIRST_TIERS, 0)
    order = sorted(range(len(items)), key=lambda i: (-items[i][1], i))
    placed: dict[str, Literal["L1", "L2", "L3"]] = {}
    for i in order:
        key, tokens = items[i]
        tier = min(FIRST_TIERS, key=lambda t: (totals[t], FIRST_TIERS.index(t)))
        placed[key] = tier
        totals[tier] += tokens
    return placed
