"""The cache tiers service: one tracked, cache-tiered request for a workspace's repository,
a preview of the next one's breakdown, the tracker as stored, and forgetting it.

It is the one place the tracker's housekeeping is written (where the tracker is stored,
whether a request is recorded, which files and task a preview starts from): the command
line and the page call it with plain values and word its results in their own terms. It
prints nothing and names no flag.

Errors (each a :class:`~agentprompt.errors.UsageError` naming the input at fault)::

    UsageError
    └── UnknownTierRule   a rule that is not one of the tier rules

The engines' own errors pass through: the context's
:class:`~agentprompt.tiers.UnreadableContextFile`, :class:`~agentprompt.store.StoreError`.
A damaged stored tracker is not an error: it gives a warning and the tiers are placed
afresh.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agentprompt.errors import UsageError
from agentprompt.services._workspace import Workspace
from agentprompt.store import Store
from agentprompt.tiers.context import DEFAULT_MAP_TOKENS
from agentprompt.tiers.persist import StoredTracker, open_tracker, reset_tracker
from agentprompt.tiers.policy import RULES, TierPolicy
from agentprompt.tiers.report import TierReport, repository_request

__all__ = ["TierBreakdown", "TierRequest", "TierService", "UnknownTierRule"]


class UnknownTierRule(UsageError):
    """A tier rule that is not one of :data:`~agentprompt.tiers.RULES`."""

    def __init__(self, rule: str) -> None:
        self.rule = rule
        """The rule asked for."""
        super().__init__(
            f"{rule!r} is not a tier rule",
            input="rule",
            fix=f"use one of {', '.join(RULES)}",
        )


@dataclass(frozen=True, kw_only=True)
class TierRequest:
    """One request to track: the files in context, the user's message, how it is measured
    and which rule places its items."""

    files: tuple[str, ...] = ()
    """Files whose full text is in context (relative to the root)."""
    task: str = ""
    """The user's message of this request."""
    map_tokens: int = DEFAULT_MAP_TOKENS
    """The symbol map's token budget."""
    model: str | None = None
    """Count tokens for this model (None: the default tokenizer)."""
    rule: str = RULES[0]
    """The tier rule that places the items (see :data:`~agentprompt.tiers.RULES`)."""


@dataclass(frozen=True, kw_only=True)
class TierBreakdown:
    """A preview of the next request's tiers: the files and task it was made for, and its
    report (not recorded)."""

    files: tuple[str, ...]
    """The files in context (the ones asked for, else the bridge session's)."""
    task: str
    """The user's message (the one asked for, else the bridge session's task)."""
    report: TierReport
    """Tokens per tier and item, the cache blocks reused or rewritten, the served share."""


class TierService:
    """The cache tiers of one workspace's repository, tracked across requests in its state
    database."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        """The repository and what is kept for it."""

    def request(self, request: TierRequest) -> TierReport:
        """Make ``request`` against the stored tracker and record it as the latest: which
        items moved, the tokens per tier, the cache blocks reused or rewritten."""
        if request.rule not in RULES:
            raise UnknownTierRule(request.rule)
        return repository_request(
            self.workspace.root,
            files=request.files,
            task=request.task,
            map_tokens=request.map_tokens,
            model=request.model,
            policy=TierPolicy(rule=next(r for r in RULES if r == request.rule)),
        )

    def breakdown(
        self, files: Sequence[str] | None = None, task: str | None = None
    ) -> TierBreakdown:
        """The next request's tiers under the default rule, measured and not recorded: over
        ``files`` and ``task``, each defaulting to the bridge session's (no session: no files
        and an empty task)."""
        session = self.workspace.session()
        if files is None:
            files = session[1].files if session is not None else ()
        if task is None:
            task = session[1].task if session is not None else ""
        report = repository_request(self.workspace.root, files=files, task=task, save=False)
        return TierBreakdown(files=tuple(files), task=task, report=report)

    def stored(self) -> StoredTracker:
        """The tracker as stored (empty when nothing is; a damaged record gives a warning
        and an empty tracker); the state database is not created."""
        path = self.workspace.state_path
        if not path.exists():
            return StoredTracker()
        with Store(path) as store:
            return open_tracker(store)

    def reset(self) -> bool:
        """Forget the stored tracker; True when there was one."""
        path = self.workspace.state_path
        if not path.exists():
            return False
        with Store(path) as store:
            return reset_tracker(store)
