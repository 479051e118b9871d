"""Which promotion rule the tracker follows, and the one entry point that applies it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, get_args

from agentprompt.tiers._ripple import DEFAULT_HISTORY_TARGET_TOKENS, track_ripple
from agentprompt.tiers._settle import keep_legend, track_settle
from agentprompt.tiers.tracker import (
    TrackedItem,
    TrackerState,
    TrackerUpdate,
    check_keys,
    first_request,
    track_thresholds,
)

__all__ = ["RULES", "TierPolicy", "TierRule", "track"]

TierRule = Literal["deferred", "settle", "threshold", "ripple"]
"""The promotion rules, by name."""

RULES: tuple[TierRule, ...] = get_args(TierRule)
"""Every rule's name, the default first."""


@dataclass(frozen=True, kw_only=True)
class TierPolicy:
    """How items move between tiers.

    The default, ``deferred``, serves the most of each request from a provider's cache and
    costs the least in the benchmarks (``bench/BENCHMARKS.md``, "Cache tiers"); ``settle``
    (the same without deferred refresh), ``threshold`` (an item's tier follows its N: L0 12,
    L1 9, L2 6, L3 3) and ``ripple`` stay as options to compare with.
    """

    rule: TierRule = "deferred"
    """``deferred`` (default): as ``settle``, and a changed file or map entry keeps its cached
    copy in place with a note of the changes in active until rewriting its tier pays, and
    (through :func:`~agentprompt.tiers.tiered_request`) the map keeps its cached entries
    while their files are unchanged, re-ranked only when its tier is rewritten anyway;
    ``settle``: unchanged items stay put, moves ride rewrites that happen anyway or pay for
    themselves; ``threshold``: an item's tier follows its N; ``ripple``: move items
    up by N only into tiers already broken this request."""
    history_target_tokens: int = DEFAULT_HISTORY_TARGET_TOKENS
    """Under ``ripple``: active history graduates into L3 on its own once it holds this
    many tokens (otherwise only when L3 breaks anyway)."""


def _rule_warning(stored: str, rule: str) -> str:
    return (
        f"the stored cache tiers were placed under the {stored!r} rule, not {rule!r}; "
        "the tiers were placed afresh under the new rule (the cache is rewritten once)"
    )


def track(
    previous: TrackerState,
    items: Sequence[TrackedItem],
    policy: TierPolicy | None = None,
    *,
    legend: str | None = None,
) -> TrackerUpdate:
    """Apply one request's items to the tracker under ``policy`` (default: ``deferred``).

    A state placed under another rule is not continued (each rule keeps its own
    invariants): the tiers are placed afresh, with a warning in the update. With the map's
    ``legend``, the deferred rule also decides which legend L0 holds.
    """
    check_keys(items)
    policy = policy or TierPolicy()
    warnings: tuple[str, ...] = ()
    if previous.requests and previous.rule is not None and previous.rule != policy.rule:
        warnings = (_rule_warning(previous.rule, policy.rule),)
        previous = TrackerState()
    if policy.rule in ("deferred", "settle"):
        update = track_settle(previous, items, deferred=policy.rule == "deferred")
    elif previous.requests == 0:
        update = first_request(items)
    elif policy.rule == "threshold":
        update = track_thresholds(previous, items)
    else:
        update = track_ripple(previous, items, history_target_tokens=policy.history_target_tokens)
    if update.state.rule != policy.rule:
        update = replace(update, state=replace(update.state, rule=policy.rule))
    if policy.rule == "deferred" and legend is not None:
        update = replace(update, state=keep_legend(previous, update.state, legend))
    return replace(update, warnings=warnings) if warnings else update
