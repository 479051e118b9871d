"""One tiered request: track the items, then assemble the messages with their tiers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentprompt.tiers.assembly import TierContext, TieredPrompt, assemble_tiers
from agentprompt.tiers.policy import TierPolicy
from agentprompt.tiers.steady import track_context
from agentprompt.tiers.tracker import TrackerState, TrackerUpdate
from agentprompt.tokens import Tokenizer

__all__ = ["TieredRequest", "tiered_request"]


@dataclass(frozen=True, kw_only=True)
class TieredRequest:
    """A request's prompt and how the tracker moved to make it."""

    prompt: TieredPrompt
    """The assembled messages."""
    update: TrackerUpdate
    """The new tracker state and what entered, left or moved."""


def tiered_request(
    context: TierContext,
    previous: TrackerState,
    *,
    counter: Tokenizer | None = None,
    root: Path | None = None,
    policy: TierPolicy | None = None,
) -> TieredRequest:
    """Track ``context``'s items against ``previous`` and assemble the request they give
    (under the deferred rule, with the map as its cached tier holds it until that tier is
    rewritten: :mod:`agentprompt.tiers.steady`)."""
    placed, update = track_context(previous, context, policy)
    prompt = assemble_tiers(placed, update.state, counter=counter, root=root)
    return TieredRequest(prompt=prompt, update=update)
