"""Sections and profiles: the layers a prompt is made of.

A :class:`Section` is one layer of a prompt (a rule set, a persona, the context facts, a
file). A :class:`HistorySlot` holds the conversation so far. A :class:`Profile` is the
ordered list of section specs for one mode; it builds its sections from a context value,
and :mod:`agentprompt.composition` turns them into messages.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from agentprompt.errors import UsageError
from agentprompt.messages import Message

__all__ = [
    "HistorySlot",
    "Part",
    "Profile",
    "Section",
    "SectionRole",
    "SectionSpec",
    "Stability",
]

SectionRole = Literal["system", "user", "assistant"]
"""The role of the message a section lands in."""


class Stability(enum.IntEnum):
    """How long a section's text stays the same; more stable sections go first."""

    STATIC = 0
    """The same for every session of this version (rules, identity, tool policy)."""
    SESSION = 1
    """Fixed for a session (environment facts, project instructions, persona)."""
    TURN = 2
    """Changes every turn (the user's request, context usage, todo state)."""
    EPHEMERAL = 3
    """Sent for one call only and removed after it (system reminders)."""

    @classmethod
    def parse(cls, name: str) -> Stability:
        """The stability class called ``name`` (case-insensitive)."""
        try:
            return cls[name.upper()]
        except KeyError:
            raise UsageError(
                f"unknown stability {name!r}: use static, session, turn or ephemeral"
            ) from None

    @property
    def band(self) -> int:
        """Sections of one band may share a message: static and session are one band."""
        return 0 if self <= Stability.SESSION else int(self)


@dataclass(frozen=True, kw_only=True)
class Section:
    """One layer of a prompt."""

    id: str
    """A name unique within the composition (``identity``, ``file:src/app.py``)."""
    role: SectionRole
    """The role of the message it lands in."""
    text: str
    """The section's text."""
    stability: Stability = Stability.SESSION
    """How long the text stays the same; decides placement and cache breakpoints."""
    priority: int | None = None
    """Importance for budget cuts (lower is cut first); None means required."""
    fallbacks: tuple[str, ...] = ()
    """Ever smaller replacements used before dropping it (full text → signatures → path)."""
    cache_tier: str | None = None
    """An explicit cache tier (``L0``–``L3``); sections of different tiers never merge."""
    count_keys: tuple[str | None, ...] = ()
    """Keys identifying ``text`` and then each fallback (equal keys, equal texts; None or
    missing: no key): a keyed text's token count is remembered under its key by the
    counter (:class:`~agentprompt.tokens.CountCache`) and in its store, so it is not
    tokenized again, in this process or a later one."""

    def __post_init__(self) -> None:
        if len(self.count_keys) > 1 + len(self.fallbacks):
            raise UsageError(
                f"section {self.id!r}: {len(self.count_keys)} count keys for "
                f"{1 + len(self.fallbacks)} texts (the text and its fallbacks)"
            )
        previous = self.text
        for i, smaller in enumerate(self.fallbacks, 1):
            if len(smaller) >= len(previous):
                raise UsageError(
                    f"section {self.id!r}: fallback {i} ({len(smaller)} characters) is not "
                    f"smaller than what it replaces ({len(previous)} characters); each step of "
                    "a fallback chain must be smaller"
                )
            previous = smaller


@dataclass(frozen=True, kw_only=True)
class HistorySlot:
    """The conversation so far; budget cuts drop its oldest messages in quantised steps."""

    id: str = "history"
    """A name unique within the composition."""
    messages: tuple[Message, ...] = ()
    """The messages, oldest first."""
    priority: int | None = 0
    """Importance for budget cuts; None means the history may not be cut."""
    step: int = 2048
    """Tokens are cut in multiples of this, so the cut point (and the cached prefix) stays
    put while the conversation grows."""
    keep_last: int = 2
    """Messages at the end that are never cut."""
    stability: Stability = Stability.SESSION
    """History is append-only: what was sent stays byte-identical on the next turn."""

    def __post_init__(self) -> None:
        if self.step < 1:
            raise UsageError(f"history {self.id!r}: step must be at least 1 token")
        if self.keep_last < 0:
            raise UsageError(f"history {self.id!r}: keep_last cannot be negative")


Part = Section | HistorySlot
"""Anything a profile can contribute to a composition."""

C = TypeVar("C")

Built = str | Section | HistorySlot | Sequence[Message] | None
"""What a section builder may return: text, a whole section, history, or nothing."""


@dataclass(frozen=True, kw_only=True)
class SectionSpec(Generic[C]):
    """How a profile builds one section from its context value."""

    id: str
    """The section's id."""
    build: Callable[[C], Built]
    """Makes the section from the context; text gets this spec's role and stability."""
    role: SectionRole = "system"
    """The role of the message it lands in."""
    stability: Stability = Stability.SESSION
    """How long its text stays the same."""
    priority: int | None = None
    """Importance for budget cuts; None means required."""
    condition: Callable[[C], bool] | None = None
    """When given, the section is built only if this returns True."""
    cache_tier: str | None = None
    """An explicit cache tier for the section."""


@dataclass(frozen=True, kw_only=True)
class Profile(Generic[C]):
    """The ordered section specs for one mode of one runtime."""

    name: str
    """The profile's name (``demo``, ``agent``, ``ally``)."""
    specs: tuple[SectionSpec[C], ...]
    """The sections, in the order they appear in the prompt."""
    description: str = ""
    """One line saying what the profile is for."""

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for spec in self.specs:
            if spec.id in seen:
                raise UsageError(f"profile {self.name!r} has two sections named {spec.id!r}")
            seen.add(spec.id)

    def build(self, context: C) -> list[Part]:
        """The sections this profile yields for ``context``, in order, empty ones left out."""
        parts: list[Part] = []
        for spec in self.specs:
            if spec.condition is not None and not spec.condition(context):
                continue
            built = spec.build(context)
            if not built:
                continue
            if isinstance(built, str):
                parts.append(
                    Section(
                        id=spec.id,
                        role=spec.role,
                        text=built,
                        stability=spec.stability,
                        priority=spec.priority,
                        cache_tier=spec.cache_tier,
                    )
                )
            elif isinstance(built, Section | HistorySlot):
                parts.append(built)
            else:
                parts.append(
                    HistorySlot(
                        id=spec.id,
                        messages=tuple(built),
                        priority=spec.priority,
                        stability=spec.stability,
                    )
                )
        return parts
