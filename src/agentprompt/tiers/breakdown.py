"""How many tokens each cache tier, and each item in it, costs: the context breakdown."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agentprompt.tiers.assembly import NOTE_SECTION, TieredPrompt, placed_items, shown_legend
from agentprompt.tiers.tracker import TIERS, CacheTier
from agentprompt.tokens import Tokenizer, shared_counter

__all__ = ["ContextBreakdown", "ItemTokens", "TierTokens", "get_context_breakdown"]


@dataclass(frozen=True, kw_only=True)
class ItemTokens:
    """One item's place and cost."""

    key: str
    """The item's key (``system``, ``legend``, ``file:PATH``, ``symbols:PATH``,
    ``history:N``, ``user``)."""
    kind: str
    """What it is: ``system``, ``legend``, ``file``, ``symbols``, ``history``, ``user``, or
    ``changes`` (a note in active about a cached copy that is out of date; its key is
    ``changes:`` and the item's key)."""
    tokens: int
    """Its exact token count."""
    n: int | None = None
    """Consecutive requests it stayed unchanged (None for untracked text)."""


@dataclass(frozen=True, kw_only=True)
class TierTokens:
    """One tier's cost."""

    tier: CacheTier
    """The tier."""
    tokens: int
    """Tokens of its messages, chat framing included."""
    items: tuple[ItemTokens, ...]
    """Its items, in the order they are sent."""
    cached: bool
    """Whether a cache breakpoint ends it."""


@dataclass(frozen=True, kw_only=True)
class ContextBreakdown:
    """Tokens per tier and per item of a tiered request."""

    tiers: tuple[TierTokens, ...]
    """Every tier, most stable first (empty ones included, with 0 tokens)."""
    total_tokens: int
    """The whole request's input tokens."""
    tokenizer: str
    """The encoding the counts are for."""

    @property
    def carried(self) -> int:
        """Tokens of the notes carried in active about cached copies that are out of date
        (the deferred rule's changes, sent instead of rewriting their tiers)."""
        return sum(i.tokens for i in self.tier("active").items if i.kind == "changes")

    def tier(self, name: CacheTier) -> TierTokens:
        """The breakdown of tier ``name``."""
        return next(t for t in self.tiers if t.tier == name)

    def tiers_json(self) -> list[dict[str, Any]]:
        """The tiers as JSON-ready data: each tier's tokens, whether it is cached, and its
        items (key, kind, tokens, N), as every door gives it as JSON
        them."""
        return [
            {
                "tier": t.tier,
                "tokens": t.tokens,
                "cached": t.cached,
                "items": [
                    {"key": i.key, "kind": i.kind, "tokens": i.tokens, "n": i.n} for i in t.items
                ],
            }
            for t in self.tiers
        ]


_NOTE_ID = f"active/{NOTE_SECTION}"


def _tier_named(name: str | None) -> CacheTier:
    for tier in TIERS:
        if tier == name:
            return tier
    return "active"


def get_context_breakdown(
    prompt: TieredPrompt, *, counter: Tokenizer | None = None
) -> ContextBreakdown:
    """Tokens per tier (from the composed messages) and per item (from each item's text)."""
    counter = counter or shared_counter()
    comp = prompt.composition
    message_tier: dict[int, CacheTier] = {}
    for placed in comp.sections:
        tier = _tier_named(placed.cache_tier)
        for i in range(placed.first_message, placed.last_message + 1):
            message_tier.setdefault(i, tier)
    tier_tokens = dict.fromkeys(TIERS, 0)
    for i, tokens in enumerate(comp.message_tokens):
        tier_tokens[message_tier.get(i, "active")] += tokens
    items: dict[CacheTier, list[ItemTokens]] = {t: [] for t in TIERS}
    items["L0"].append(
        ItemTokens(key="system", kind="system", tokens=counter.count(prompt.context.system))
    )
    legend = shown_legend(prompt.context, prompt.state)
    if legend:
        items["L0"].append(ItemTokens(key="legend", kind="legend", tokens=counter.count(legend)))
    for tier, members in placed_items(prompt.context, prompt.state).items():
        for item in members:
            state = prompt.state.get(item.key)
            items[tier].append(
                ItemTokens(
                    key=item.key,
                    kind=item.kind,
                    tokens=item.tokens,
                    n=state.n if state is not None else 0,
                )
            )
    notes = [p for p in prompt.parts if p.id.startswith(_NOTE_ID)]
    items["active"][:0] = [
        ItemTokens(
            key=f"changes:{p.id.removeprefix(_NOTE_ID)}",
            kind="changes",
            tokens=counter.count(p.text),
        )
        for p in notes
    ]
    if prompt.context.user:
        items["active"].append(
            ItemTokens(key="user", kind="user", tokens=counter.count(prompt.context.user))
        )
    marked = {i for i in comp.breakpoints}
    return ContextBreakdown(
        tiers=tuple(
            TierTokens(
                tier=t,
                tokens=tier_tokens[t],
                items=tuple(items[t]),
                cached=any(message_tier.get(i) == t for i in marked),
            )
            for t in TIERS
        ),
        total_tokens=comp.total_tokens,
        tokenizer=comp.tokenizer,
    )
