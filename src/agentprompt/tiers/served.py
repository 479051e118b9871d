"""What a provider's cache serves of one request, block by block, and what the request costs.

A provider with explicit breakpoints (Anthropic's ``cache_control``) caches the whole prefix
up to each breakpoint, keyed by its exact content. A request is served from the cache up to
its longest breakpoint whose prefix an earlier request wrote; the prefix beyond that, up to
its last breakpoint, is written; the rest is uncached input. Prices are input-token
multiples: a cache read 0.1×, a cache write 1.25×, uncached input 1× (Anthropic's ratios).

Each breakpoint's prefix is named by a hash of the messages up to it, so the names of the
last request's blocks are all that needs keeping between requests (the cache's time to live
is not modelled: a prefix is taken as cached if an earlier request wrote it).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agentprompt.composition import MESSAGE_OVERHEAD, Composition
from agentprompt.messages import Message

__all__ = [
    "READ_PRICE",
    "WRITE_PRICE",
    "BlockUse",
    "CacheUse",
    "ServedTally",
    "cache_json",
    "cache_use",
    "prefix_key",
]

READ_PRICE = 0.1
"""A token read from the cache, in input-token prices."""

WRITE_PRICE = 1.25
"""A token written to the cache, in input-token prices."""

BlockStatus = Literal["reused", "rewritten"]
"""Whether a cached block was served from the cache or written again."""


def prefix_key(messages: Sequence[Message]) -> str:
    """The name of a cached prefix: a hash of every message's role and content up to it."""
    digest = hashlib.sha256()
    for m in messages:
        digest.update(json.dumps([m.role, m.text]).encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass(frozen=True, kw_only=True)
class BlockUse:
    """One cached block of a request: the messages up to one breakpoint."""

    tier: str
    """The cache tier the breakpoint ends (``L0``..``L3``; ``cache`` when untiered)."""
    tokens: int
    """Tokens of this block alone (from the previous breakpoint), framing included."""
    status: BlockStatus
    """``reused`` when served from the cache, ``rewritten`` when written again."""
    key: str
    """The name of the prefix up to this breakpoint (:func:`prefix_key`)."""


@dataclass(frozen=True, kw_only=True)
class CacheUse:
    """How a request's input splits into cache reads, cache writes and uncached tokens."""

    blocks: tuple[BlockUse, ...]
    """The cached blocks, in order."""
    served: int
    """Tokens read from the cache."""
    written: int
    """Tokens written to the cache."""
    uncached: int
    """Tokens after the last breakpoint (neither read nor written)."""

    @property
    def total(self) -> int:
        """All input tokens of the request."""
        return self.served + self.written + self.uncached

    @property
    def cost(self) -> float:
        """The request's input cost in uncached-token units (read 0.1×, write 1.25×)."""
        return READ_PRICE * self.served + WRITE_PRICE * self.written + self.uncached

    @property
    def keys(self) -> tuple[str, ...]:
        """The names of the prefixes this request leaves in the cache."""
        return tuple(b.key for b in self.blocks)


@dataclass(frozen=True, kw_only=True)
class ServedTally:
    """Tokens summed over a session's requests (the running served share)."""

    requests: int = 0
    """Requests counted."""
    served: int = 0
    """Tokens read from the cache."""
    written: int = 0
    """Tokens written to the cache."""
    total: int = 0
    """All input tokens."""
    cost: float = 0.0
    """Input cost in uncached-token units."""

    @property
    def share(self) -> float:
        """The share of input tokens the cache served (0 before any request)."""
        return self.served / self.total if self.total else 0.0

    def add(self, use: CacheUse) -> ServedTally:
        """This tally with one more request."""
        return ServedTally(
            requests=self.requests + 1,
            served=self.served + use.served,
            written=self.written + use.written,
            total=self.total + use.total,
            cost=self.cost + use.cost,
        )


def _breakpoint_tiers(comp: Composition) -> dict[int, str]:
    """The tier each message belongs to, from its sections' explicit cache tiers."""
    tiers: dict[int, str] = {}
    for placed in comp.sections:
        if placed.cache_tier:
            for i in range(placed.first_message, placed.last_message + 1):
                tiers.setdefault(i, placed.cache_tier)
    return tiers


def cache_use(comp: Composition, cached: Collection[str]) -> CacheUse:
    """How ``comp`` is served when the prefixes named ``cached`` are in the cache."""
    tiers = _breakpoint_tiers(comp)
    ends: list[tuple[int, int, str]] = []  # (message index, prefix tokens, key)
    for i in comp.breakpoints:
        tokens = sum(comp.message_tokens[: i + 1]) + MESSAGE_OVERHEAD * (i + 1)
        ends.append((i, tokens, prefix_key(comp.messages[: i + 1])))
    hit = max((n for n, (_, _, key) in enumerate(ends) if key in cached), default=-1)
    blocks: list[BlockUse] = []
    before = 0
    for n, (i, tokens, key) in enumerate(ends):
        blocks.append(
            BlockUse(
                tier=tiers.get(i, "cache"),
                tokens=tokens - before,
                status="reused" if n <= hit else "rewritten",
                key=key,
            )
        )
        before = tokens
    served = ends[hit][1] if hit >= 0 else 0
    last = ends[-1][1] if ends else 0
    return CacheUse(
        blocks=tuple(blocks),
        served=served,
        written=last - served,
        uncached=comp.total_tokens - last,
    )


def cache_json(use: CacheUse, tally: ServedTally) -> dict[str, Any]:
    """A request's cache use as JSON-ready data: each cached block reused or rewritten, the
    tokens read, written and uncached, and the running served share."""
    return {
        "blocks": [{"tier": b.tier, "tokens": b.tokens, "status": b.status} for b in use.blocks],
        "served": use.served,
        "written": use.written,
        "uncached": use.uncached,
        "cost": round(use.cost, 1),
        "running": {
            "requests": tally.requests,
            "served": tally.served,
            "total": tally.total,
            "share": round(tally.share, 4),
            "cost": round(tally.cost, 1),
        },
    }
