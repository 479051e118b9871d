"""Composition: how sections become messages, with exact token counts and cache breakpoints.

:func:`assemble` turns sections into messages: adjacent sections of one role share a
message only within one stability band and cache tier, every section and message is counted
exactly, and provider cache breakpoints go at the edges between stability classes.
:func:`compose` does the same for a profile and its context value.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from agentprompt.errors import UsageError
from agentprompt.messages import ImagePart, Message, Role, ToolDefinition
from agentprompt.sections import (
    C,
    HistorySlot,
    Part,
    Profile,
    Section,
    Stability,
)
from agentprompt.tokens import CountCache, KeyedSpan, Tokenizer, shared_counter
from agentprompt.wire.anthropic import MAX_CACHE_BREAKPOINTS

__all__ = [
    "MESSAGE_OVERHEAD",
    "REPLY_OVERHEAD",
    "SEPARATOR",
    "Composition",
    "PlacedSection",
    "assemble",
    "compose",
    "count_text",
    "message_tokens",
]

SEPARATOR = "\n\n"
"""What joins the texts of sections that share one message."""

MESSAGE_OVERHEAD = 3
"""Tokens the chat format adds around each message (OpenAI's published accounting)."""

REPLY_OVERHEAD = 3
"""Tokens the chat format adds to prime the model's reply."""

KEYED_COUNT_CHARS = 256_000
"""A text at least this long is counted by parts (:meth:`CountCache.count_keyed`): a large
message rebuilt with one section changed recounts only the parts that changed."""


def count_text(
    counter: Tokenizer,
    text: str,
    *,
    key: str | None = None,
    known: Sequence[KeyedSpan] = (),
) -> int:
    """The exact token count of ``text``, when ``counter`` is a
    :class:`~agentprompt.tokens.CountCache`: a keyed text (``key``), or one with keyed
    spans (``known``), from the counts remembered under those keys; a large one by its
    parts cut before each Markdown heading; each count remembered by the cache (in its
    store too, a cache database, when it has one)."""
    if isinstance(counter, CountCache):
        if key is not None:
            return counter.count_keyed(text, [(0, len(text), key)])
        if known or len(text) >= KEYED_COUNT_CHARS:
            return counter.count_keyed(text, known)
    return counter.count(text)


@dataclass(frozen=True, kw_only=True)
class PlacedSection:
    """Where one section landed and what it costs."""

    id: str
    """The section's id."""
    kind: Literal["text", "history"]
    """A text section or the history slot."""
    role: str
    """The role of its message (``history`` for the history slot)."""
    stability: Stability
    """Its stability class."""
    priority: int | None
    """Its budget priority (None: required)."""
    tokens: int
    """Tokens of its own text (for history: of its messages, framing included)."""
    first_message: int
    """Index of the first message it contributes to."""
    last_message: int
    """Index of the last message it contributes to."""
    cache_tier: str | None = None
    """Its explicit cache tier, if any."""


@dataclass(frozen=True, kw_only=True)
class Composition:
    """A composed prompt: its messages, what each section costs, and where caches break."""

    messages: tuple[Message, ...]
    """The messages to send, with ``cache_breakpoint`` set at tier edges."""
    sections: tuple[PlacedSection, ...]
    """Per section: tokens and the messages it landed in, in prompt order."""
    parts: tuple[Part, ...]
    """The sections the messages were assembled from (for refitting to a budget)."""
    message_tokens: tuple[int, ...]
    """Exact tokens of each message's content (framing not included)."""
    total_tokens: int
    """All input tokens: message contents, chat framing and tool definitions."""
    tools: tuple[ToolDefinition, ...] = ()
    """Tool definitions sent with the messages."""
    tool_tokens: int = 0
    """Tokens of the tool definitions, counted on their JSON form (an estimate: providers
    render tools in their own internal format)."""
    tokenizer: str = "o200k_base"
    """The encoding the counts were made with."""
    exact: bool = True
    """Whether message counts are exact for the target model."""
    separator: str = SEPARATOR
    """What joined the texts of sections that share a message (:func:`assemble`'s)."""

    @property
    def breakpoints(self) -> tuple[int, ...]:
        """Indices of the messages that carry a cache marker, at their end or after their
        static part."""
        return tuple(
            i
            for i, m in enumerate(self.messages)
            if m.cache_breakpoint
            or m.inner_breakpoints
            or any(p.cache_control is not None for p in m.parts)
        )

    def section(self, section_id: str) -> PlacedSection:
        """The placed section called ``section_id``."""
        for placed in self.sections:
            if placed.id == section_id:
                return placed
        raise KeyError(section_id)


def message_tokens(
    message: Message,
    counter: Tokenizer,
    known: Sequence[KeyedSpan] = (),
) -> int:
    """Tokens of one message's text, name and tool calls, framing not included (a large
    text counted by parts, and ``known`` spans of it by their keys, remembered by the
    counter: :func:`count_text`).

    Images are not counted: their cost depends on the provider and the image size.
    """
    n = count_text(counter, message.text, known=known)
    if message.name:
        n += counter.count(message.name) + 1  # OpenAI's accounting adds one for a name
    for call in message.tool_calls:
        n += counter.count(call.name) + counter.count(call.arguments)
    return n


def _has_images(message: Message) -> bool:
    content = message.content
    return isinstance(content, tuple) and any(isinstance(p, ImagePart) for p in content)


def _is_empty(message: Message) -> bool:
    """A message with no block to carry a cache marker."""
    return message.role != "tool" and not message.parts and not message.tool_calls


@dataclass
class _Group:
    """One message being assembled: joined section texts, or one history message."""

    role: Role
    stability: Stability
    cache_tier: str | None
    texts: list[str] = field(default_factory=list)
    keys: list[str | None] = field(default_factory=list)
    """Each text's count key (:attr:`Section.count_keys`), or None."""
    stable_texts: int = 0
    """How many leading texts are static; a marker may go after them inside the message."""
    message: Message | None = None
    separator: str = SEPARATOR
    """What joins the texts."""

    def spans(self) -> tuple[KeyedSpan, ...]:
        """The keyed texts' spans in the joined message; a text followed by another is
        keyed with the separator after it, so the span ends where the next text starts
        (with no separator, a text's span is the text alone, keyed by its own key)."""
        spans: list[KeyedSpan] = []
        at = 0
        last = len(self.texts) - 1
        gap = len(self.separator)
        for i, (text, key) in enumerate(zip(self.texts, self.keys, strict=True)):
            end = at + len(text)
            if key is not None:
                if i < last and gap:
                    spans.append((at, end + gap, f"{key}\0joined"))
                else:
                    spans.append((at, end, key))
            at = end + gap
        return tuple(spans)

    @property
    def empty(self) -> bool:
        """Whether the message has no block that could carry a cache marker."""
        if self.message is not None:
            return _is_empty(self.message)
        return not any(self.texts)

    def render(self, *, inner_mark: bool, end_mark: bool) -> Message:
        """The group's message, with cache markers after its static part and at its end."""
        if self.message is not None:
            if end_mark == self.message.cache_breakpoint:
                return self.message
            return replace(self.message, cache_breakpoint=end_mark)
        inner: tuple[int, ...] = ()
        if inner_mark:
            # The marker goes after the static sections and the separator that follows them.
            head = self.separator.join(self.texts[: self.stable_texts]) + self.separator
            inner = (len(head),)
        return Message(
            role=self.role,
            content=self.separator.join(self.texts),
            cache_breakpoint=end_mark,
            inner_breakpoints=inner,
        )


def _keyed_counts(parts: Sequence[Part], counter: Tokenizer) -> dict[int, int]:
    """The token counts of the keyed sections (by ``id``), recalled or counted in one
    batch (:meth:`~agentprompt.tokens.CountCache.count_each_keyed`)."""
    if not isinstance(counter, CountCache):
        return {}
    keyed = [
        (p, key) for p in parts if isinstance(p, Section) and (key := _count_key(p)) is not None
    ]
    if not keyed:
        return {}
    counts = counter.count_each_keyed([(key, p.text) for p, key in keyed])
    return {id(p): n for (p, _key), n in zip(keyed, counts, strict=True)}


def _count_key(section: Section) -> str | None:
    """The key of a section's current text, if it has one."""
    return section.count_keys[0] if section.count_keys else None


def _segment_key(group: _Group) -> tuple[object, ...]:
    return ("history",) if group.message is not None else (group.stability.band, group.cache_tier)


def assemble(
    parts: Iterable[Part],
    *,
    counter: Tokenizer | None = None,
    tools: Sequence[ToolDefinition] = (),
    separator: str = SEPARATOR,
) -> Composition:
    """Turn sections into messages, count their tokens and place cache breakpoints.

    Adjacent sections with the same role share one message (joined by ``separator``, a
    blank line unless told otherwise: a prompt whose sections are cut from one text joins
    them with nothing) only
    when they are in the same stability band and cache tier, so per-turn facts never change
    a message that carries stable text. A cache breakpoint ends each run of messages of one
    band, tier or the history, except runs of per-turn or ephemeral text, which are not worth
    caching; when more than four would result, the last four are kept. Large texts are
    counted by parts whose counts ``counter`` remembers (in its store too, a cache
    database, when it has one: :func:`count_text`).
    """
    counter = counter or shared_counter()
    parts = tuple(parts)
    dupes = sorted(i for i, n in Counter(p.id for p in parts).items() if n > 1)
    if dupes:
        raise UsageError(f"two sections share the id(s) {', '.join(dupes)}")

    groups: list[_Group] = []
    spans: list[tuple[int, int]] = []
    for part in parts:
        if isinstance(part, HistorySlot):
            first = len(groups)
            for msg in part.messages:
                groups.append(_Group(msg.role, part.stability, None, message=msg))
            spans.append((first, len(groups) - 1))  # empty history: last < first
            continue
        open_group = groups[-1] if groups else None
        if (
            open_group is not None
            and open_group.message is None
            and open_group.role == part.role
            and open_group.stability.band == part.stability.band
            and open_group.cache_tier == part.cache_tier
        ):
            if (
                open_group.stable_texts == len(open_group.texts)
                and part.stability == Stability.STATIC
            ):
                open_group.stable_texts += 1
            open_group.texts.append(part.text)
            open_group.keys.append(_count_key(part))
            open_group.stability = max(open_group.stability, part.stability)
        else:
            static = 1 if part.stability == Stability.STATIC else 0
            groups.append(
                _Group(
                    part.role,
                    part.stability,
                    part.cache_tier,
                    [part.text],
                    [_count_key(part)],
                    static,
                    separator=separator,
                )
            )
        spans.append((len(groups) - 1, len(groups) - 1))

    messages = _render(groups)
    keyed = _keyed_counts(parts, counter)
    msg_tokens = tuple(
        message_tokens(m, counter, g.spans() if g.message is None else ())
        for m, g in zip(messages, groups, strict=True)
    )
    placed: list[PlacedSection] = []
    for part, (first, last) in zip(parts, spans, strict=True):
        if isinstance(part, HistorySlot):
            tokens = sum(msg_tokens[first : last + 1]) + MESSAGE_OVERHEAD * len(part.messages)
            placed.append(
                PlacedSection(
                    id=part.id,
                    kind="history",
                    role="history",
                    stability=part.stability,
                    priority=part.priority,
                    tokens=tokens,
                    first_message=first,
                    last_message=last,
                )
            )
        else:
            placed.append(
                PlacedSection(
                    id=part.id,
                    kind="text",
                    role=part.role,
                    stability=part.stability,
                    priority=part.priority,
                    tokens=keyed[id(part)] if id(part) in keyed else count_text(counter, part.text),
                    first_message=first,
                    last_message=last,
                    cache_tier=part.cache_tier,
                )
            )
    tool_tokens = sum(counter.count(t.wire_json) for t in tools)
    images = any(_has_images(m) for m in messages)
    total = sum(msg_tokens) + MESSAGE_OVERHEAD * len(messages) + REPLY_OVERHEAD + tool_tokens
    return Composition(
        messages=tuple(messages),
        sections=tuple(placed),
        parts=parts,
        message_tokens=msg_tokens,
        total_tokens=total,
        tools=tuple(tools),
        tool_tokens=tool_tokens,
        tokenizer=counter.name,
        exact=counter.exact and not images,
        separator=separator,
    )


def _render(groups: list[_Group]) -> list[Message]:
    """The groups' messages with cache markers at the tier edges, at most four in all.

    A marker ends each run of messages of one band, tier or the history (runs of per-turn
    or ephemeral text excepted), and a message that holds static and then session text gets
    one after its static part. A marker that would fall on an empty message moves to the
    message before it in the same run. When more than four result, the last four are kept:
    they cover the longest prefixes.
    """
    marks: list[tuple[int, bool]] = []  # (group index, inside the message rather than at its end)
    for i, g in enumerate(groups):
        if g.message is None and 0 < g.stable_texts < len(g.texts):
            marks.append((i, True))
        run_ends = i + 1 == len(groups) or _segment_key(groups[i + 1]) != _segment_key(g)
        if run_ends and (g.message is not None or g.stability <= Stability.SESSION):
            j = i
            while j >= 0 and _segment_key(groups[j]) == _segment_key(g) and groups[j].empty:
                j -= 1
            if j >= 0 and _segment_key(groups[j]) == _segment_key(g):
                marks.append((j, False))
    kept = set(marks[-MAX_CACHE_BREAKPOINTS:])
    return [
        g.render(inner_mark=(i, True) in kept, end_mark=(i, False) in kept)
        for i, g in enumerate(groups)
    ]


def compose(
    profile: Profile[C],
    context: C,
    *,
    counter: Tokenizer | None = None,
    tools: Sequence[ToolDefinition] = (),
) -> Composition:
    """Build ``profile``'s sections for ``context`` and assemble them into messages."""
    return assemble(profile.build(context), counter=counter, tools=tools)
