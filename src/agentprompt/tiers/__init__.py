"""Stability-tracked cache tiers (L0–L3 and active): the placement rules, the message
assembly and its breakdown, the tracker's stored state and what the cache served (commit
messages are :mod:`agentprompt.commitmsg`).

The package exports what a caller of the tiers needs; the rules' and the tracker's working
parts are imported from their modules. Submodules load on first use, so importing one
module of the package does not load the symbol map.

Errors::

    AgentPromptError
    └── CorruptTierState   the stored tracker state cannot be read back (``open_tracker``
                           turns it into a warning and starts afresh)

Bad input (two tracked items with one key, a history message a tiered prompt cannot hold,
a file that cannot be put in the context) is a ``UsageError``.
"""

import typing as _typing

from agentprompt._lazy import lazy_attributes as _lazy_attributes

if _typing.TYPE_CHECKING:
    from agentprompt.tiers._request import TieredRequest, tiered_request
    from agentprompt.tiers.assembly import TierContext, TieredPrompt, assemble_tiers, tier_parts
    from agentprompt.tiers.breakdown import (
        ContextBreakdown,
        ItemTokens,
        TierTokens,
        get_context_breakdown,
    )
    from agentprompt.tiers.context import DEFAULT_MAP_TOKENS, repository_context
    from agentprompt.tiers.persist import (
        CorruptTierState,
        StoredTracker,
        load_tracker,
        open_tracker,
        reset_tracker,
        save_tracker,
    )
    from agentprompt.tiers.policy import RULES, TierPolicy, track
    from agentprompt.tiers.report import TierReport, repository_request
    from agentprompt.tiers.served import BlockUse, CacheUse, ServedTally, cache_json, cache_use
    from agentprompt.tiers.tracker import (
        TIERS,
        ItemState,
        TierChange,
        TrackedItem,
        TrackerState,
        TrackerUpdate,
        content_hash,
    )

_LAZY = {
    "BlockUse": "agentprompt.tiers.served",
    "CacheUse": "agentprompt.tiers.served",
    "ContextBreakdown": "agentprompt.tiers.breakdown",
    "CorruptTierState": "agentprompt.tiers.persist",
    "DEFAULT_MAP_TOKENS": "agentprompt.tiers.context",
    "ItemState": "agentprompt.tiers.tracker",
    "ItemTokens": "agentprompt.tiers.breakdown",
    "RULES": "agentprompt.tiers.policy",
    "ServedTally": "agentprompt.tiers.served",
    "StoredTracker": "agentprompt.tiers.persist",
    "TIERS": "agentprompt.tiers.tracker",
    "TierChange": "agentprompt.tiers.tracker",
    "TierContext": "agentprompt.tiers.assembly",
    "TierPolicy": "agentprompt.tiers.policy",
    "TierReport": "agentprompt.tiers.report",
    "TierTokens": "agentprompt.tiers.breakdown",
    "TieredPrompt": "agentprompt.tiers.assembly",
    "TieredRequest": "agentprompt.tiers._request",
    "TrackedItem": "agentprompt.tiers.tracker",
    "TrackerState": "agentprompt.tiers.tracker",
    "TrackerUpdate": "agentprompt.tiers.tracker",
    "assemble_tiers": "agentprompt.tiers.assembly",
    "cache_json": "agentprompt.tiers.served",
    "cache_use": "agentprompt.tiers.served",
    "content_hash": "agentprompt.tiers.tracker",
    "get_context_breakdown": "agentprompt.tiers.breakdown",
    "load_tracker": "agentprompt.tiers.persist",
    "open_tracker": "agentprompt.tiers.persist",
    "repository_context": "agentprompt.tiers.context",
    "repository_request": "agentprompt.tiers.report",
    "reset_tracker": "agentprompt.tiers.persist",
    "save_tracker": "agentprompt.tiers.persist",
    "tier_parts": "agentprompt.tiers.assembly",
    "tiered_request": "agentprompt.tiers._request",
    "track": "agentprompt.tiers.policy",
}

__all__ = [
    "DEFAULT_MAP_TOKENS",
    "RULES",
    "TIERS",
    "BlockUse",
    "CacheUse",
    "ContextBreakdown",
    "CorruptTierState",
    "ItemState",
    "ItemTokens",
    "ServedTally",
    "StoredTracker",
    "TierChange",
    "TierContext",
    "TierPolicy",
    "TierReport",
    "TierTokens",
    "TieredPrompt",
    "TieredRequest",
    "TrackedItem",
    "TrackerState",
    "TrackerUpdate",
    "assemble_tiers",
    "cache_json",
    "cache_use",
    "content_hash",
    "get_context_breakdown",
    "load_tracker",
    "open_tracker",
    "repository_context",
    "repository_request",
    "reset_tracker",
    "save_tracker",
    "tier_parts",
    "tiered_request",
    "track",
]

__getattr__ = _lazy_attributes(globals(), _LAZY)
