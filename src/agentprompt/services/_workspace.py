"""The workspace: one repository root and everything a command, the page server or the MCP
server keeps for it while it runs.

A front door makes one :class:`Workspace` (per command, per page server, per MCP server) and
hands it to the services; nothing below the services knows where a project keeps its
state, which lock serialises its applies, or how the environment sets its defaults.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentprompt.bridge.state import BridgeState, find_session, held_session
from agentprompt.bridge.text import default_lang
from agentprompt.project_root import check_root
from agentprompt.services._budgets import BUDGET_ENV, BudgetChoice, chosen_budget
from agentprompt.store import default_cache_path, default_store_path
from agentprompt.tokens import CountCache, shared_counter

if TYPE_CHECKING:
    from agentprompt.bridge.view import RepoView

# The prompt builder (bridge.sizes, bridge.view) and the edit engine's journal load only
# when a request needs them: a command that ranks files pays for neither.

__all__ = ["LOCK_WAIT", "Session", "Workspace", "WorkspaceConfig"]

LOCK_WAIT = 120.0
"""How long (seconds) an apply waits for another apply of the same root to finish."""

DEFAULT_WARN_TOKENS = 100_000
"""A prompt larger than this many tokens is reported with what to leave out."""

WARN_ENV = "AGENTPROMPT_WARN_TOKENS"
"""The environment variable that sets the warning threshold for every session."""

Session = tuple[str, BridgeState]
"""A bridge session in progress: its id and its state."""


@dataclass(frozen=True, kw_only=True)
class WorkspaceConfig:
    """The defaults a workspace takes from its environment, read once when it is made."""

    lang: str = "en"
    """The prompts' language when a request names none (from the locale)."""
    warn_tokens: int = DEFAULT_WARN_TOKENS
    """Warn when a prompt is over this many tokens (``AGENTPROMPT_WARN_TOKENS``, else the
    built-in default); a session may set its own."""
    lock_wait: float = LOCK_WAIT
    """How long (seconds) an apply waits for another apply of the root to finish."""
    max_tokens: str | None = None
    """``AGENTPROMPT_MAX_TOKENS`` as it is set (a number of tokens, a chat preset's name
    or ``none``): the budget of a session its request sets none for, ahead of the project's
    config file. Read when a session starts, so a bad value fails only what uses it."""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> WorkspaceConfig:
        """The defaults ``environ`` sets: the locale's language, the warning threshold
        from ``AGENTPROMPT_WARN_TOKENS`` (a value that is not a positive number is
        ignored) and the budget from ``AGENTPROMPT_MAX_TOKENS``."""
        try:
            warn = int(environ.get(WARN_ENV, ""))
        except ValueError:
            warn = 0
        return cls(
            lang=default_lang(environ),
            warn_tokens=warn if warn > 0 else DEFAULT_WARN_TOKENS,
            max_tokens=environ.get(BUDGET_ENV),
        )


class Workspace:
    """One repository root and what is kept for it: where its state and caches live, the
    lock its applies take, its defaults, and one token counter.

    The repository itself is read afresh on every request (:meth:`view`): a page or MCP
    server outlives any one view of the files.
    """

    def __init__(self, root: Path, *, environ: Mapping[str, str] | None = None) -> None:
        self.root = check_root(root)
        """The repository's root folder, as the caller named it."""
        self.config = WorkspaceConfig.from_environment(
            environ if environ is not None else os.environ
        )
        """The defaults from the environment."""

    @property
    def state_path(self) -> Path:
        """The state database (sessions): ``ROOT/.agentprompt/state.db``."""
        return default_store_path(self.root)

    @property
    def cache_path(self) -> Path:
        """The cache database (symbols, secret scans, counts): under ``.agentprompt/cache``."""
        return default_cache_path(self.root)

    @property
    def counter(self) -> CountCache:
        """The exact token counter the prompts are measured with, remembering its counts
        in the workspace's cache database."""
        return shared_counter(store=self.cache_path)

    def view(
        self,
        *,
        summaries: bool = True,
        include_generated: bool = False,
    ) -> RepoView:
        """The repository as it is now: discovery, and with ``summaries`` every code
        file's note and summary from the symbol cache."""
        from agentprompt.bridge.view import view_repository

        return view_repository(self.root, summaries=summaries, include_generated=include_generated)

    def default_budget(self) -> BudgetChoice:
        """The budget a new session gets when its request sets none: the environment's,
        else the project's config file's, else the default (a bad value is a
        ``UsageError`` naming where it was set)."""
        return chosen_budget(None, None, environ=self.config.max_tokens, root=self.root)

    def session(self) -> Session | None:
        """The bridge session in progress, if any (looking creates no database)."""
        return find_session(self.root)

    @contextmanager
    def applying(self, *, session: bool = True) -> Iterator[Session | None]:
        """The critical section of an apply: applies of this root run one at a time (a
        second one waits up to the configured time), and (with ``session``) the session in
        progress is read afresh and held under the state database's write lock, taken
        before any file is written; saves inside join one transaction that commits on
        leaving."""
        with self.apply_lock():
            if not session:
                yield None
                return
            with held_session(self.root) as held:
                yield held

    def apply_lock(self) -> AbstractContextManager[None]:
        """The lock that lets one apply of this root run at a time."""
        from agentprompt.edits.journal import locked

        return locked(self.root, wait=self.config.lock_wait)
